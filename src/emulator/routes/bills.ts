/**
 * POST /v0/business/{business_id}/bills: creates up to 100 bills. Each bill is checked on its
 * own, with the rules bk checks before sending (src/shared/bill-rules.ts) and then against the records of
 * the business; a failing bill goes to `errors: [{error, bill_number}]` and the others are created.
 * Amounts are read from the JSON text itself (not through a binary float), so totals and tag
 * allocation sums are exact: 0.1 + 0.2 allocated against a total of 0.3 is accepted.
 */
import {billViolations} from '../../shared/bill-rules.js'
import {JsonNumber, JsonSyntaxError, parseJsonTree, treeToExactValue, type JsonNode} from '../../shared/exact-json.js'
import {Decimal, type Money} from '../../shared/money.js'
import {ID_PREFIX, MAX_BILLS_PER_REQUEST, PERFORMED_BY_HEADER} from '../../shared/spec.js'
import {SCOPES, requireAuth} from '../auth.js'
import {HttpError, ok} from '../http.js'
import type {EmulatorState} from '../state.js'
import type {Bill} from '../types.js'
import type {EmulatorContext} from './context.js'

const performers = new WeakMap<EmulatorState, Map<string, string>>()

/** Who performed the creation of a bill (the performed-by header), for tests and inspection. */
export function performedBy(state: EmulatorState, billId: string): string | undefined {
  return performers.get(state)?.get(billId)
}

/** Back to plain JSON values (for metadata), as the service would keep them. */
function plain(value: unknown): unknown {
  if (value instanceof JsonNumber) return Number(value.text)
  if (Array.isArray(value)) return value.map(plain)
  if (value && typeof value === 'object') {
    const o: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(o, k, {value: plain(v), enumerable: true, writable: true, configurable: true})
    return o
  }
  return value
}

class BillError extends Error {}

function fail(message: string): never {
  throw new BillError(message)
}

const toNumber = (d: Money): number => Number(d.toFixed())

/** The body as a tree (duplicate keys and number literals kept, for the rules), or 422. */
function parseBody(text: string): JsonNode {
  try {
    return parseJsonTree(text, {nonFinite: false})
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw new HttpError(422, `Request body is not valid JSON: ${error.message}`)
    throw error
  }
}

export function register({router, state}: EmulatorContext): void {
  router.add('POST', '/v0/business/:business_id/bills', (ctx) => {
    requireAuth(state, ctx, SCOPES.billCreate)
    const businessId = ctx.params.business_id as string
    if (ctx.rawBody === '') throw new HttpError(422, 'Request body is empty; expected a JSON array of bills')
    const tree = parseBody(ctx.rawBody)
    if (tree.kind !== 'array') throw new HttpError(422, 'Request body must be a JSON array of bills')
    const body = tree.items
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
      const numberNode = item.kind === 'object' ? item.members.find(([k]) => k === 'number')?.[1] : undefined
      const number = numberNode?.kind === 'string' ? numberNode.value : null
      try {
        const violations = billViolations(item, {businessId})
        if (violations.length > 0) fail(violations.map((v) => `${v.path}: ${v.message}`).join('; '))
        const bill = createBill(state, businessId, treeToExactValue(item) as Record<string, unknown>)
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

/**
 * Creates one bill that keeps every rule of src/shared/bill-rules.ts (and any new tag values), once the
 * records it names are found in the business: the vendor, each line's ledger, each tag field.
 */
function createBill(state: EmulatorState, businessId: string, item: Record<string, unknown>): Bill {
  const number = item.number as string
  const vendorId = item.vendor_id as string
  if (!state.vendors.get(businessId, vendorId)) fail(`vendor ${vendorId} does not exist in business ${businessId}`)
  const description = (item.description ?? undefined) as string | undefined
  const currency = (item.currency ?? undefined) as string | undefined
  const dates = {
    issued_at: (item.issued_at ?? undefined) as string | undefined,
    due_at: (item.due_at ?? undefined) as string | undefined,
  }
  let total = new Decimal(0)
  const lines = (item.lines as Array<Record<string, unknown>>).map((line, i) => {
    const amount = new Decimal((line.amount as JsonNumber).text)
    total = total.plus(amount)
    const ledgerId = line.ledger_id as string
    if (!state.ledgers.get(businessId, ledgerId))
      fail(`lines[${i}]: ledger ${ledgerId} does not exist in business ${businessId}`)
    return {
      amount,
      ledgerId,
      description: (line.description ?? undefined) as string | undefined,
      metadata: line.metadata_ ? (plain(line.metadata_) as Record<string, unknown>) : {},
    }
  })
  const tags: Record<string, Array<{amount: string; value: string}>> = {}
  const newValues: Array<[Map<string, string>, string]> = []
  if (item.tags !== undefined && item.tags !== null) {
    const fields = state.tagFields.get(businessId)
    for (const [field, spec] of Object.entries(item.tags as Record<string, unknown>)) {
      const values = fields?.get(field)
      if (!values) fail(`tag field "${field}" does not exist in business ${businessId}`)
      // A single value takes the whole bill; allocations were checked against the total by the rules.
      const allocations =
        typeof spec === 'string'
          ? [{value: spec, amount: total}]
          : (spec as Array<{value: string; amount: JsonNumber}>).map((a) => ({
              value: a.value,
              amount: new Decimal(a.amount.text),
            }))
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
