/**
 * POST /v0/business/{business_id}/bills: creates up to 100 bills. Each bill is checked on its
 * own; a failing bill goes to `errors: [{error, bill_number}]` and the others are created.
 * Amounts are read from the JSON text itself (not through a binary float), so totals and tag
 * allocation sums are exact: 0.1 + 0.2 allocated against a total of 0.3 is accepted.
 */
import {parseIsoDatetime} from '../../datetime.js'
import {JsonNumber} from '../../exact-json.js'
import {Decimal, type Money} from '../../money.js'
import {ID_PREFIX, MAX_BILLS_PER_REQUEST, PERFORMED_BY_HEADER} from '../../spec.js'
import {SCOPES, requireAuth} from '../auth.js'
import {HttpError, ok, parseJsonBodyExact} from '../http.js'
import type {EmulatorState} from '../state.js'
import type {Bill} from '../types.js'
import type {EmulatorContext} from './context.js'

const performers = new WeakMap<EmulatorState, Map<string, string>>()

/** Who performed the creation of a bill (the performed-by header), for tests and inspection. */
export function performedBy(state: EmulatorState, billId: string): string | undefined {
  return performers.get(state)?.get(billId)
}

/** Back to plain JSON values (for metadata). */
function plain(value: unknown): unknown {
  if (value instanceof JsonNumber) return Number(value.text)
  if (Array.isArray(value)) return value.map(plain)
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]))
  return value
}

const ISO_DATETIME =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/

class BillError extends Error {}

function fail(message: string): never {
  throw new BillError(message)
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  Boolean(v) && typeof v === 'object' && !Array.isArray(v) && !(v instanceof JsonNumber)
const str = (v: unknown, field: string): string | undefined => {
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'string') fail(`${field} must be a string`)
  return v
}
const toNumber = (d: Money): number => Number(d.toFixed())

export function register({router, state}: EmulatorContext): void {
  router.add('POST', '/v0/business/:business_id/bills', (ctx) => {
    requireAuth(state, ctx, SCOPES.billCreate)
    const businessId = ctx.params.business_id as string
    if (ctx.rawBody === '') throw new HttpError(422, 'Request body is empty; expected a JSON array of bills')
    const body = parseJsonBodyExact(ctx.rawBody)
    if (!Array.isArray(body)) throw new HttpError(422, 'Request body must be a JSON array of bills')
    if (body.length > MAX_BILLS_PER_REQUEST)
      throw new HttpError(422, `At most ${MAX_BILLS_PER_REQUEST} bills per request; got ${body.length}`, {
        max: MAX_BILLS_PER_REQUEST,
        count: body.length,
      })
    const header = ctx.headers[PERFORMED_BY_HEADER]
    const performer = Array.isArray(header) ? header[0] : header
    const data: Bill[] = []
    const errors: Array<{error: string; bill_number: string | null}> = []
    for (const item of body) {
      const number = isObject(item) && typeof item.number === 'string' ? item.number : null
      try {
        const bill = checkBill(state, businessId, item)
        data.push(bill)
        if (performer) {
          let map = performers.get(state)
          if (!map) performers.set(state, (map = new Map()))
          map.set(bill.id, performer)
        }
      } catch (error) {
        if (!(error instanceof BillError)) throw error
        errors.push({error: error.message, bill_number: number})
      }
    }
    return ok({data, errors})
  })
}

/** Validates one bill and, when valid, creates it (and any new tag values). */
function checkBill(state: EmulatorState, businessId: string, item: unknown): Bill {
  if (!isObject(item)) fail('each bill must be a JSON object')
  const number = str(item.number, 'number')
  if (!number) fail('number is required')
  const bizField = str(item.business_id, 'business_id')
  if (bizField !== undefined && bizField !== businessId)
    fail(`business_id ${bizField} does not match the business of the request ${businessId}`)
  const vendorId = str(item.vendor_id, 'vendor_id')
  if (!vendorId) fail('vendor_id is required')
  if (!state.vendors.get(businessId, vendorId)) fail(`vendor ${vendorId} does not exist in business ${businessId}`)
  const description = str(item.description, 'description')
  const currency = str(item.currency, 'currency')
  if (currency !== undefined && !/^[A-Z]{3}$/.test(currency))
    fail(`currency must be a 3-letter ISO 4217 code, got "${currency}"`)
  const dates: Record<'issued_at' | 'due_at', string | undefined> = {issued_at: undefined, due_at: undefined}
  for (const field of ['issued_at', 'due_at'] as const) {
    const v = str(item[field], field)
    if (v !== undefined && (!ISO_DATETIME.test(v) || !parseIsoDatetime(v).ok))
      fail(`${field} must be an ISO 8601 datetime, got "${v}"`)
    dates[field] = v
  }
  if (item.metadata_ !== undefined && item.metadata_ !== null && !isObject(item.metadata_))
    fail('metadata_ must be an object')
  if (!Array.isArray(item.lines) || item.lines.length === 0) fail('a bill needs at least one line')
  let total = new Decimal(0)
  const lines = item.lines.map((line: unknown, i: number) => {
    if (!isObject(line)) fail(`lines[${i}] must be an object`)
    if (!(line.amount instanceof JsonNumber)) fail(`lines[${i}].amount must be a number`)
    const amount = new Decimal(line.amount.text)
    total = total.plus(amount)
    const ledgerId = str(line.ledger_id, `lines[${i}].ledger_id`)
    if (!ledgerId) fail(`lines[${i}].ledger_id is required`)
    if (!state.ledgers.get(businessId, ledgerId))
      fail(`lines[${i}]: ledger ${ledgerId} does not exist in business ${businessId}`)
    if (line.metadata_ !== undefined && line.metadata_ !== null && !isObject(line.metadata_))
      fail(`lines[${i}].metadata_ must be an object`)
    return {
      amount,
      ledgerId,
      description: str(line.description, `lines[${i}].description`),
      metadata: line.metadata_ ? (plain(line.metadata_) as Record<string, unknown>) : {},
    }
  })
  const tags: Record<string, Array<{amount: string; value: string}>> = {}
  const newValues: Array<[Map<string, string>, string]> = []
  if (item.tags !== undefined && item.tags !== null) {
    if (!isObject(item.tags)) fail('tags must be an object of tag field to value or allocations')
    const fields = state.tagFields.get(businessId)
    for (const [field, spec] of Object.entries(item.tags)) {
      const values = fields?.get(field)
      if (!values) fail(`tag field "${field}" does not exist in business ${businessId}`)
      const allocations: Array<{value: string; amount: Money}> = []
      if (typeof spec === 'string') {
        if (spec === '') fail(`tags.${field}: the value is empty`)
        allocations.push({value: spec, amount: total})
      } else if (Array.isArray(spec)) {
        spec.forEach((a: unknown, i: number) => {
          if (!isObject(a) || typeof a.value !== 'string' || a.value === '')
            fail(`tags.${field}[${i}].value must be a non-empty string`)
          const amountText =
            a.amount instanceof JsonNumber
              ? a.amount.text
              : typeof a.amount === 'string' && /^[+-]?\d*\.?\d+$/.test(a.amount)
                ? a.amount
                : undefined
          if (amountText === undefined) fail(`tags.${field}[${i}].amount must be a number`)
          const amount = new Decimal(amountText)
          if (amount.isNegative() && !amount.isZero()) fail(`tags.${field}[${i}].amount must not be negative`)
          allocations.push({value: a.value, amount})
        })
      } else fail(`tags.${field} must be a value or a list of {value, amount}`)
      const sum = allocations.reduce((s, a) => s.plus(a.amount), new Decimal(0))
      if (sum.greaterThan(total))
        fail(`tags.${field}: allocations sum to ${sum.toFixed()}, more than the bill total ${total.toFixed()}`)
      for (const a of allocations) if (!values.has(a.value)) newValues.push([values, a.value])
      tags[field] = allocations.map((a) => ({amount: a.amount.toFixed(), value: a.value}))
    }
  }
  // Valid: commit.
  for (const [values, value] of newValues) if (!values.has(value)) values.set(value, state.newId(ID_PREFIX.tagValue))
  const id = state.newId(ID_PREFIX.bill)
  const bill: Bill = {
    id,
    business_id: businessId,
    vendor_id: vendorId,
    number,
    description: description ?? null,
    total_amount: toNumber(total),
    total_paid: 0,
    due_at: dates.due_at ?? null,
    issued_at: dates.issued_at ?? null,
    voided_at: null,
    status: 'open',
    currency: currency ?? null,
    metadata_: item.metadata_ ? (plain(item.metadata_) as Record<string, unknown>) : {},
    lines: lines.map((l) => ({
      id: state.newId(ID_PREFIX.billLine),
      bill_id: id,
      description: l.description ?? null,
      ledger_id: l.ledgerId,
      amount: toNumber(l.amount),
      metadata_: l.metadata,
    })),
    payments: [],
    tags,
  }
  state.bills.add(businessId, bill)
  return bill
}
