/**
 * POST /v0/business/{business_id}/journal-entries: creates a balanced journal entry. The rules
 * of the spec plus what a ledger needs: at least one debit and one credit line, amounts as
 * positive decimal strings, debits equal to credits exactly (decimal.js), ledgers and tag values
 * that exist in the business. Amounts are kept as the exact strings received.
 */
import {parseIsoDatetime} from '../../datetime.js'
import {Decimal} from '../../money.js'
import {ID_PREFIX} from '../../spec.js'
import {SCOPES, requireAuth} from '../auth.js'
import {HttpError, ok, parseJsonBody} from '../http.js'
import type {EmulatorState} from '../state.js'
import type {JournalEntry} from '../types.js'
import type {EmulatorContext} from './context.js'

const AMOUNT = /^\d+(?:\.\d+)?$/
const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]00:00)$/
const ENTRY_FIELDS = new Set(['description', 'datetime', 'lines'])
const LINE_FIELDS = new Set(['ledger_id', 'description', 'debit_credit', 'amount', 'tag_value_ids'])

const invalid = (field: string, message: string, value?: unknown): HttpError =>
  new HttpError(422, `${field}: ${message}`, value === undefined ? {field} : {field, value})

export function register({router, state}: EmulatorContext): void {
  router.add('POST', '/v0/business/:business_id/journal-entries', (ctx) => {
    requireAuth(state, ctx, SCOPES.journalEntryCreate)
    const businessId = ctx.params.business_id as string
    const body = parseJsonBody(ctx.rawBody)
    const entry = validateEntry(state, businessId, body)
    const id = state.newId(ID_PREFIX.journalEntry)
    const record: JournalEntry = {
      id,
      business_id: businessId,
      description: entry.description,
      clean_description: entry.description,
      datetime: entry.datetime,
      is_reconciled: false,
      review_status: 'bookkeeper_pending',
      basis: 'both',
      transaction_id: null,
      categorization_method: 'manual',
      invoice_id: null,
      line_entries: entry.lines.map((l) => ({
        id: state.newId(ID_PREFIX.lineEntry),
        journal_entry_id: id,
        transaction_id: null,
        ledger_id: l.ledger_id,
        description: l.description,
        debit_credit: l.debit_credit,
        amount: l.amount,
        tag_value_ids: l.tag_value_ids,
      })),
    }
    state.journalEntries.add(businessId, record)
    return ok({data: record}, 201)
  })
}

interface ValidLine {
  ledger_id: string
  description: string
  debit_credit: 'debit' | 'credit'
  amount: string
  tag_value_ids: string[]
}

function validateEntry(
  state: EmulatorState,
  businessId: string,
  body: unknown,
): {description: string; datetime: string; lines: ValidLine[]} {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new HttpError(422, 'Request body must be a journal entry object', {field: null})
  const b = body as Record<string, unknown>
  for (const key of Object.keys(b)) if (!ENTRY_FIELDS.has(key)) throw invalid(key, 'unknown field')
  if (b.description !== undefined && b.description !== null && typeof b.description !== 'string')
    throw invalid('description', 'must be a string', b.description)
  if (typeof b.datetime !== 'string' || !DATETIME.test(b.datetime) || !parseIsoDatetime(b.datetime).ok) {
    throw invalid('datetime', 'must be a UTC ISO 8601 datetime', b.datetime ?? null)
  }
  if (!Array.isArray(b.lines)) throw invalid('lines', 'must be an array of lines', b.lines ?? null)
  const ledgerIds = new Set(state.ledgers.all(businessId).map((l) => l.id))
  const tagValueIds = new Set<string>()
  for (const values of state.tagFields.get(businessId)?.values() ?? [])
    for (const id of values.values()) tagValueIds.add(id)

  const lines = b.lines.map((raw, i): ValidLine => {
    const at = `lines[${i}]`
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw invalid(at, 'must be an object')
    const l = raw as Record<string, unknown>
    for (const key of Object.keys(l)) if (!LINE_FIELDS.has(key)) throw invalid(`${at}.${key}`, 'unknown field')
    if (typeof l.ledger_id !== 'string' || !l.ledger_id)
      throw invalid(`${at}.ledger_id`, 'is required', l.ledger_id ?? null)
    if (!ledgerIds.has(l.ledger_id))
      throw invalid(`${at}.ledger_id`, `ledger ${l.ledger_id} not found in business ${businessId}`, l.ledger_id)
    if (l.description !== undefined && l.description !== null && typeof l.description !== 'string')
      throw invalid(`${at}.description`, 'must be a string', l.description)
    if (l.debit_credit !== 'debit' && l.debit_credit !== 'credit')
      throw invalid(`${at}.debit_credit`, 'must be debit or credit', l.debit_credit ?? null)
    if (typeof l.amount !== 'string') throw invalid(`${at}.amount`, 'must be a decimal string', l.amount ?? null)
    if (!AMOUNT.test(l.amount) || new Decimal(l.amount).isZero())
      throw invalid(`${at}.amount`, 'must be a positive decimal string', l.amount)
    const tags = l.tag_value_ids ?? []
    if (!Array.isArray(tags)) throw invalid(`${at}.tag_value_ids`, 'must be an array of tag value ids', tags)
    tags.forEach((t, j) => {
      if (typeof t !== 'string' || !tagValueIds.has(t))
        throw invalid(`${at}.tag_value_ids[${j}]`, `tag value ${String(t)} not found in business ${businessId}`, t)
    })
    return {
      ledger_id: l.ledger_id,
      description: (l.description as string | null | undefined) ?? '',
      debit_credit: l.debit_credit,
      amount: l.amount,
      tag_value_ids: tags as string[],
    }
  })
  const debits = lines.filter((l) => l.debit_credit === 'debit')
  const credits = lines.filter((l) => l.debit_credit === 'credit')
  if (debits.length === 0) throw invalid('lines', 'at least one debit line is required')
  if (credits.length === 0) throw invalid('lines', 'at least one credit line is required')
  const total = (ls: ValidLine[]) => ls.reduce((s, l) => s.plus(l.amount), new Decimal(0))
  const debitTotal = total(debits)
  const creditTotal = total(credits)
  if (!debitTotal.equals(creditTotal)) {
    const scale = Math.max(...lines.map((l) => l.amount.split('.')[1]?.length ?? 0))
    const [d, c, diff] = [debitTotal, creditTotal, debitTotal.minus(creditTotal).abs()].map((x) => x.toFixed(scale))
    throw new HttpError(422, `Journal entry does not balance: debits ${d}, credits ${c}, difference ${diff}`, {
      field: 'lines',
      debits: d,
      credits: c,
      difference: diff,
    })
  }
  const datetime = b.datetime.replace(/[+-]00:00$/, 'Z')
  return {description: (b.description as string | null | undefined) ?? '', datetime, lines}
}
