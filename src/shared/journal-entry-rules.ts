/**
 * The service's rules for one journal entry of POST …/journal-entries, as the spec states them
 * ("Journal entry", Errors 7) and, where it is silent, as bk decides (docs/journal-entries.md,
 * "Decisions"). One list, used by both sides: the emulator checks every entry it is sent with
 * it before looking up ledgers and tag values, and `bk journal-entries create` (and `validate`)
 * checks every entry it would send. The balance check works on amounts kept as decimal text: at
 * least one debit and one credit line, every amount a positive decimal, and total debits equal to
 * total credits exactly (decimal.js, never a binary float). Pure: no YAML, no I/O.
 */
import {parseIsoDatetime, yearProblem} from './datetime.js'
import {Decimal, parseMoney, sum, type Money, type ParseMoneyResult} from './money.js'
import {ID_PREFIX, ID_SUFFIX} from './spec.js'

export type Side = 'debit' | 'credit'

export interface BalanceLine {
  side: Side
  /** The amount exactly as written, e.g. "120.50". */
  amount: string
}

export interface BalanceProblem {
  kind: 'no_debit' | 'no_credit' | 'unbalanced'
  message: string
}

export interface BalanceResult {
  ok: boolean
  /** Totals printed with as many decimals as the most precise amount of the entry. */
  debits: string
  credits: string
  /** debits - credits. */
  difference: string
  problems: BalanceProblem[]
}

/** Digits with an optional fraction; no sign, exponent, separator or leading dot. */
const AMOUNT_TEXT = /^\d+(?:\.\d+)?$/

/** Parses an amount as written in the file: a positive decimal such as 120.50. */
export function parseAmount(text: string): ParseMoneyResult {
  const t = text.trim()
  if (t === '' || t === '~' || t === 'null')
    return {ok: false, reason: 'is empty; expected a positive decimal amount such as 120.50'}
  if (/^-\d/.test(t))
    return {
      ok: false,
      reason: `"${t}" is negative; amounts are positive: put the line on the other side (debit or credit) instead`,
    }
  const parsed = parseMoney(t)
  if (!parsed.ok) return {ok: false, reason: `"${t}" is ${parsed.reason}`}
  // parseMoney also takes a sign and a leading or trailing dot; an amount in a file is plainer.
  if (!AMOUNT_TEXT.test(t)) return {ok: false, reason: `"${t}" ${plainerAmount(t)}`}
  if (parsed.value.isZero()) return {ok: false, reason: `"${t}" is zero; amounts must be greater than 0`}
  return parsed
}

/** Why an amount parseMoney reads (a dot first or last, a plus sign) is not written as a file's amount is. */
function plainerAmount(text: string): string {
  if (/^\d+\.$/.test(text)) return `ends with a dot: write ${text.slice(0, -1)} or ${text}00`
  if (/^\.\d+$/.test(text)) return `starts with a dot: write 0${text}`
  return 'is not a decimal amount (expected digits with no sign, such as 120.50)'
}

/**
 * An amount as bk sends it, from its text and the value parsed from it: decimal.js's plain text at
 * the scale written, so leading zeros go (`010` is sent as "10") and the decimals written stay
 * (`120.50` is sent as "120.50").
 */
export function amountToSend(text: string, value: Money): string {
  return value.toFixed(scaleOf(text.trim()))
}

function scaleOf(text: string): number {
  const dot = text.indexOf('.')
  return dot < 0 ? 0 : text.length - dot - 1
}

/** Checks one entry's lines; amounts that are not positive decimals must be rejected before. */
export function checkBalance(lines: readonly BalanceLine[]): BalanceResult {
  const debitLines = lines.filter((l) => l.side === 'debit')
  const creditLines = lines.filter((l) => l.side === 'credit')
  // A loop, not Math.max(...): an entry of a few hundred thousand lines would overflow the stack.
  let scale = 2
  for (const l of lines) scale = Math.max(scale, scaleOf(l.amount.trim()))
  const debits = sum(debitLines.map((l) => new Decimal(l.amount.trim())))
  const credits = sum(creditLines.map((l) => new Decimal(l.amount.trim())))
  const difference = debits.minus(credits)
  const problems: BalanceProblem[] = []
  if (debitLines.length === 0)
    problems.push({kind: 'no_debit', message: 'has no debit line; an entry needs at least one debit and one credit'})
  if (creditLines.length === 0)
    problems.push({kind: 'no_credit', message: 'has no credit line; an entry needs at least one debit and one credit'})
  const fmt = (d: Money) => d.toFixed(scale)
  if (!difference.isZero()) {
    problems.push({
      kind: 'unbalanced',
      message: `does not balance: debits ${fmt(debits)}, credits ${fmt(credits)}, difference ${fmt(difference.abs())} (${difference.isPositive() ? 'debits' : 'credits'} higher)`,
    })
  }
  return {ok: problems.length === 0, debits: fmt(debits), credits: fmt(credits), difference: fmt(difference), problems}
}

/** One rule an entry breaks: where (`datetime`, `lines[1].amount`) and why; `data` for the error body. */
export interface EntryViolation {
  path: string
  message: string
  data?: Record<string, unknown>
}

const ENTRY_FIELDS = new Set(['description', 'datetime', 'lines'])
const LINE_FIELDS = new Set(['ledger_id', 'description', 'debit_credit', 'amount', 'tag_value_ids'])
/** The datetime as sent: seconds written, in UTC (`Z` or a zero offset). */
const UTC_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]00:00)$/

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

const isId = (v: unknown, prefix: string): boolean =>
  typeof v === 'string' && v.startsWith(prefix) && ID_SUFFIX.test(v.slice(prefix.length))

/**
 * Every rule of the spec (and of bk's assumptions) that one journal entry body breaks, in the
 * order of its fields; empty when the entry is one the service takes, but for its references
 * (whether its ledgers and tag values exist).
 */
export function journalEntryViolations(body: unknown): EntryViolation[] {
  if (!isObject(body)) return [{path: '', message: 'must be a journal entry object'}]
  const out: EntryViolation[] = []
  for (const key of Object.keys(body)) if (!ENTRY_FIELDS.has(key)) out.push({path: key, message: 'unknown field'})
  if (body.description !== undefined && body.description !== null && typeof body.description !== 'string')
    out.push({path: 'description', message: 'must be a string'})
  const dt = body.datetime
  if (typeof dt !== 'string' || !UTC_DATETIME.test(dt) || !parseIsoDatetime(dt).ok)
    out.push({path: 'datetime', message: 'must be a UTC ISO 8601 datetime such as 2026-03-31T12:00:00Z'})
  else {
    // The bills' rule, bk's assumption as theirs is: a year such as 0026 is a typo, not a date.
    const implausible = yearProblem(Number(dt.slice(0, 4)), 'a journal entry')
    if (implausible) out.push({path: 'datetime', message: implausible})
  }
  if (!Array.isArray(body.lines)) {
    out.push({path: 'lines', message: 'must be an array of lines'})
    return out
  }
  const balance: BalanceLine[] = []
  let linesValid = true
  body.lines.forEach((raw: unknown, i) => {
    const at = `lines[${i}]`
    if (!isObject(raw)) {
      out.push({path: at, message: 'must be an object'})
      linesValid = false
      return
    }
    for (const key of Object.keys(raw))
      if (!LINE_FIELDS.has(key)) out.push({path: `${at}.${key}`, message: 'unknown field'})
    if (typeof raw.ledger_id !== 'string' || raw.ledger_id === '')
      out.push({path: `${at}.ledger_id`, message: 'is required'})
    else if (!isId(raw.ledger_id, ID_PREFIX.ledger))
      out.push({path: `${at}.ledger_id`, message: `is not a ledger id (expected ${ID_PREFIX.ledger}…)`})
    if (raw.description !== undefined && raw.description !== null && typeof raw.description !== 'string')
      out.push({path: `${at}.description`, message: 'must be a string'})
    const side = raw.debit_credit
    if (side !== 'debit' && side !== 'credit') {
      out.push({path: `${at}.debit_credit`, message: 'must be debit or credit'})
      linesValid = false
    }
    if (typeof raw.amount !== 'string') {
      out.push({path: `${at}.amount`, message: 'must be a decimal string'})
      linesValid = false
    } else if (!AMOUNT_TEXT.test(raw.amount) || new Decimal(raw.amount).isZero()) {
      out.push({path: `${at}.amount`, message: 'must be a positive decimal string'})
      linesValid = false
    } else if (linesValid) balance.push({side: side as Side, amount: raw.amount})
    const tags = raw.tag_value_ids
    if (tags !== undefined && tags !== null) {
      if (!Array.isArray(tags)) out.push({path: `${at}.tag_value_ids`, message: 'must be an array of tag value ids'})
      else {
        const seen = new Set<unknown>()
        tags.forEach((t: unknown, j) => {
          const where = `${at}.tag_value_ids[${j}]`
          if (!isId(t, ID_PREFIX.tagValue))
            out.push({path: where, message: `is not a tag value id (expected ${ID_PREFIX.tagValue}…)`})
          else if (seen.has(t)) out.push({path: where, message: `tag value ${String(t)} is listed twice`})
          seen.add(t)
        })
      }
    }
  })
  if (linesValid) {
    const result = checkBalance(balance)
    for (const p of result.problems)
      out.push({
        path: 'lines',
        message: p.message,
        ...(p.kind === 'unbalanced'
          ? {data: {debits: result.debits, credits: result.credits, difference: result.difference}}
          : {}),
      })
  }
  return out
}
