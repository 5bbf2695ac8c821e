/**
 * POST /v0/business/{business_id}/journal-entries: creates a balanced journal entry. The rules
 * are bk's own list (src/shared/journal-entry-rules.ts: at least one debit and one credit line, amounts
 * as positive decimal strings, debits equal to credits exactly), then the references: ledgers and
 * tag values that exist in the business. Amounts are kept as the exact strings received.
 */
import {journalEntryViolations} from '../../shared/journal-entry-rules.js'
import {ID_PREFIX} from '../../shared/spec.js'
import {SCOPES, requireAuth} from '../auth.js'
import {HttpError, ok, parseJsonBody} from '../http.js'
import type {EmulatorState} from '../state.js'
import type {JournalEntry} from '../types.js'
import type {EmulatorContext} from './context.js'

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

/**
 * Checks an entry with the rules bk checks before sending (src/shared/journal-entry-rules.ts), then its
 * references: every ledger and tag value must exist in the business. The first problem is a 422.
 */
function validateEntry(
  state: EmulatorState,
  businessId: string,
  body: unknown,
): {description: string; datetime: string; lines: ValidLine[]} {
  const [first] = journalEntryViolations(body)
  if (first) {
    const value = valueAt(body, first.path)
    if (first.path === '') throw new HttpError(422, 'Request body must be a journal entry object', {field: null})
    if (first.path === 'lines' && first.data)
      throw new HttpError(422, `Journal entry ${first.message}`, {field: 'lines', ...first.data})
    throw invalid(first.path, first.message, value)
  }
  const b = body as {description?: string | null; datetime: string; lines: Array<Record<string, unknown>>}
  const ledgerIds = new Set(state.ledgers.all(businessId).map((l) => l.id))
  const tagValueIds = new Set<string>()
  for (const values of state.tagFields.get(businessId)?.values() ?? [])
    for (const id of values.values()) tagValueIds.add(id)
  const lines = b.lines.map((l, i): ValidLine => {
    const at = `lines[${i}]`
    const ledgerId = l.ledger_id as string
    if (!ledgerIds.has(ledgerId))
      throw invalid(`${at}.ledger_id`, `ledger ${ledgerId} not found in business ${businessId}`, ledgerId)
    const tags = (l.tag_value_ids ?? []) as string[]
    tags.forEach((t, j) => {
      if (!tagValueIds.has(t))
        throw invalid(`${at}.tag_value_ids[${j}]`, `tag value ${t} not found in business ${businessId}`, t)
    })
    return {
      ledger_id: ledgerId,
      description: (l.description as string | null | undefined) ?? '',
      debit_credit: l.debit_credit as 'debit' | 'credit',
      amount: l.amount as string,
      tag_value_ids: tags,
    }
  })
  const datetime = b.datetime.replace(/[+-]00:00$/, 'Z')
  return {description: b.description ?? '', datetime, lines}
}

/** The value at a violation's path (`lines[0].amount`), for the error body; null when absent. */
function valueAt(body: unknown, path: string): unknown {
  let v: unknown = body
  for (const part of path.match(/[^.[\]]+/g) ?? []) {
    if (v === null || typeof v !== 'object') return null
    v = (v as Record<string, unknown>)[part]
  }
  return v ?? null
}
