/**
 * Money is exact: every amount bk parses, sums, compares or prints goes through decimal.js.
 * Amounts arrive as text (CSV cells, YAML scalars, flag values) and leave as JSON numbers or
 * decimal strings, as each field of the spec says; never through a binary float on the way.
 */
import {Decimal as DecimalJs} from 'decimal.js'

import {JsonNumber} from './exact-json.js'

// Enough precision that no sum of realistic amounts ever rounds.
const D = DecimalJs.clone({precision: 64, rounding: DecimalJs.ROUND_HALF_EVEN})
export type Money = InstanceType<typeof D>
export {D as Decimal}

/** Plain decimal text: optional sign, digits, optional fraction. No exponents, separators or spaces. */
export const DECIMAL_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/
/** A number in exponent notation (`1e3`, `1.5E-2`): refused with its own reason, not a word holding an e. */
export const EXPONENT_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)e[+-]?\d+$/i

/**
 * Why a text in exponent notation (EXPONENT_TEXT) is refused, with its own digits to write instead
 * (`1e3`: 1000) when they are few. Decided on the exponent first: `1e999999999` has a billion.
 */
export function exponentRefusal(text: string): string {
  const exponent = Number(/e([+-]?\d+)$/i.exec(text)?.[1])
  if (Math.abs(exponent) > 20) return 'exponents are not accepted; write the digits, such as 1500'
  return `exponents are not accepted; write ${new D(text).toFixed()}`
}

/** Largest count of significant digits a JSON number (an IEEE double) carries exactly. */
export const MAX_EXACT_DIGITS = 15

export type ParseMoneyResult = {ok: true; value: Money} | {ok: false; reason: string}

export interface ParseMoneyOptions {
  /** Accept zero and negatives (default: any sign). */
  min?: 'positive' | 'non-negative' | 'any'
  /** The value travels as a JSON number, so it must round-trip through a double exactly. */
  asJsonNumber?: boolean
}

/** Parses decimal text strictly; the reason says what was expected, for error messages. */
export function parseMoney(text: string, options: ParseMoneyOptions = {}): ParseMoneyResult {
  const trimmed = text.trim()
  if (trimmed === '') return {ok: false, reason: 'expected a decimal amount, got an empty value'}
  if (!DECIMAL_TEXT.test(trimmed)) {
    const why = /,/.test(trimmed)
      ? 'use a dot for decimals and no thousands separators'
      : EXPONENT_TEXT.test(trimmed)
        ? exponentRefusal(trimmed)
        : 'expected digits with an optional dot, such as 120.50'
    return {ok: false, reason: `not a decimal amount (${why})`}
  }
  const value = new D(trimmed)
  const min = options.min ?? 'any'
  if (min === 'positive' && !value.gt(0)) return {ok: false, reason: 'must be greater than 0'}
  if (min === 'non-negative' && value.lt(0)) return {ok: false, reason: 'must be 0 or more'}
  if (options.asJsonNumber && !fitsJsonNumber(value)) {
    return {
      ok: false,
      reason: `has more than ${MAX_EXACT_DIGITS} significant digits, which a JSON number cannot carry exactly`,
    }
  }
  return {ok: true, value}
}

export function fitsJsonNumber(value: Money): boolean {
  return value.precision(true) <= MAX_EXACT_DIGITS
}

export function sum(values: Iterable<Money>): Money {
  let total = new D(0)
  for (const v of values) total = total.plus(v)
  return total
}

/** The plain decimal string of an amount (never exponent notation). */
export function toDecimalString(value: Money): string {
  return value.toFixed()
}

/**
 * The JSON number for an amount whose field the spec types as a number. With at most 15
 * significant digits the double's shortest text is the same decimal, so JSON.stringify writes
 * exactly the amount that was read (120.50 travels as 120.5, which is the same value).
 */
export function toJsonNumber(value: Money): number {
  if (!fitsJsonNumber(value)) throw new RangeError(`${value.toFixed()} cannot travel as an exact JSON number`)
  return Number(value.toFixed())
}

/**
 * A JSON number of an answer (src/api/answer-json.ts) as plain decimal text: a JsonNumber's
 * literal as the service wrote it, a double's shortest text; either without an exponent
 * (`1e21` reads 1000000000000000000000, `1e-7` 0.0000001), for CSV cells and tables.
 */
export function numberText(value: number | JsonNumber): string {
  const text = value instanceof JsonNumber ? value.text : String(value)
  return /[eE]/.test(text) ? new D(text).toFixed() : text
}

/** A JSON number of an answer as an amount, exact. */
export function moneyOf(value: number | JsonNumber): Money {
  return new D(value instanceof JsonNumber ? value.text : value)
}
