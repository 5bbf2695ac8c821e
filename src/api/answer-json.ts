/**
 * The service's JSON answers as values, their numbers exact: the one place that decides when a
 * number cannot be a JavaScript number. JSON.parse reads every answer whose text holds no number
 * a double could change; an answer that may hold one is read by the exact parser instead, and each
 * number a double would write back differently (more than 15 significant digits, `1e21`,
 * `0.0000001`) comes back as a JsonNumber holding the service's literal. The schemas accept it
 * where they accept a number (src/api/schemas/common.ts `jsonNumber`); the writers print it as it
 * came, or as a plain decimal in CSV and summaries (docs/output.md).
 */
import {JsonNumber, parseJsonTree, treeToExactValue} from '../shared/exact-json.js'
import {Decimal} from '../shared/money.js'

/**
 * What any number a double would change has in its text: 16 significant digits in a row (17
 * characters with a dot), an exponent, or six zeros after the point. A cheap test of the whole
 * text, which a string value can also pass (an id of 16 digits): it only decides which parser
 * reads the answer; each number is then judged on its own literal.
 */
const MAY_LOSE_DIGITS = /[:[,\s]-?(?:\d{16}|[\d.]{17}|0\.0{6}|\d+(?:\.\d+)?[eE])/

/**
 * The answer's JSON text as values; throws as JSON.parse does when it is not JSON. `exactNumbers`
 * false: the caller reads no number of it (a batch of created bills), so the search is spared.
 */
export function parseAnswerJson(text: string, exactNumbers = true): unknown {
  if (!exactNumbers || !MAY_LOSE_DIGITS.test(text)) return JSON.parse(text)
  // As JSON.parse would give it, but for the numbers a double does not keep.
  return treeToExactValue(parseJsonTree(text, {nonFinite: false}), (literal) =>
    doubleKeeps(literal) ? Number(literal) : new JsonNumber(literal),
  )
}

/**
 * Whether a double holds a number literal exactly, and writes it back without an exponent: then
 * the number reads, sums and prints as the service wrote it (`120.50` as 120.5, the same amount).
 */
export function doubleKeeps(literal: string): boolean {
  const back = String(Number(literal))
  if (back === literal) return true
  return !/e/i.test(back) && new Decimal(literal).eq(back)
}
