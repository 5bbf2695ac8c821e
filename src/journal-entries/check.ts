/**
 * The local balance check of one journal entry, on amounts kept as decimal text: at least one
 * debit and one credit line, every amount a positive decimal, and total debits equal to total
 * credits exactly (decimal.js, never a binary float). Pure: no YAML, no I/O.
 */
import {Decimal, parseMoney, sum, type Money, type ParseMoneyResult} from '../money.js'

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
  if (!AMOUNT_TEXT.test(t))
    return {ok: false, reason: `"${t}" is not a decimal amount (expected digits with an optional dot, such as 120.50)`}
  if (parsed.value.isZero()) return {ok: false, reason: `"${t}" is zero; amounts must be greater than 0`}
  return parsed
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
