/**
 * The hot path of amount checking for bill rows: the same rules as src/shared/money.ts `parseMoney` with
 * `asJsonNumber` (plain decimal text, at most 15 significant digits), decided on the text alone
 * so that a million rows do not build a million Decimals. A valid text converts to the JSON number
 * `toJsonNumber` would give (a property test in test/bills/emulator-bills.test.ts checks both agree); sums and comparisons
 * still go through decimal.js.
 */
import {DECIMAL_TEXT, EXPONENT_TEXT, exponentRefusal, MAX_EXACT_DIGITS} from '../shared/money.js'

/** Significant digits as decimal.js `precision(true)` counts them (integer trailing zeros count). */
function significantDigits(text: string): number {
  let start = 0
  let end = text.length
  if (text[0] === '+' || text[0] === '-') start = 1
  const dot = text.indexOf('.')
  // Trailing zeros of a fraction do not count.
  if (dot !== -1) {
    while (end > dot + 1 && text.charCodeAt(end - 1) === 48) end--
    if (end === dot + 1) end = dot
  }
  // Leading zeros (and the dot among them) do not count.
  let i = start
  while (i < end && (text.charCodeAt(i) === 48 || text.charCodeAt(i) === 46)) i++
  if (i === end) return 1
  let digits = end - i
  if (dot !== -1 && dot > i && dot < end) digits--
  return digits
}

/** Undefined when the text is a valid amount for a JSON-number field, else what was expected. */
export function amountProblem(text: string, options: {nonNegative?: boolean} = {}): string | undefined {
  if (text === '') return 'is empty: expected a decimal amount such as 120.50'
  if (!DECIMAL_TEXT.test(text)) {
    const why = text.includes(',')
      ? 'use a dot for decimals and no thousands separators, such as 1234.50'
      : EXPONENT_TEXT.test(text)
        ? exponentRefusal(text)
        : 'expected digits with an optional dot, such as 120.50'
    return `is not a decimal amount (${why})`
  }
  if (options.nonNegative && text[0] === '-' && /[1-9]/.test(text)) return 'must be 0 or more'
  if (significantDigits(text) > MAX_EXACT_DIGITS) {
    return `has more than ${MAX_EXACT_DIGITS} significant digits, which a JSON number cannot carry exactly`
  }
  return undefined
}

/** Texts that are already the JSON literal JavaScript writes for their value (no sign, zeros or exponent to drop). */
const AS_WRITTEN = /^-?(?:0|[1-9]\d{0,19})(?:\.\d*[1-9])?$/
/** Below 1e-6 JavaScript writes an exponent (1e-7), as does `-0` as `0`: those go through Number. */
const REWRITTEN = /^-?0(?:\.0{6}|$)/

/**
 * The JSON number literal of a text `amountProblem` accepted, as `JSON.stringify(Number(text))`
 * writes it (exact: at most 15 significant digits). Most amounts are that text already
 * (`120.5`, `-3`), so they go into the request body as read, without a round trip through a double.
 */
export function amountLiteral(text: string): string {
  if (AS_WRITTEN.test(text) && !REWRITTEN.test(text)) return text
  return JSON.stringify(Number(text))
}
