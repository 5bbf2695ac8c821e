/**
 * How amounts and datetimes read in tables, for people only: json, ndjson and csv keep the
 * service's values exactly as they came.
 *
 * An amount shows the minor unit of its currency (`1068.7` USD reads `1068.70`, `0` reads `0.00`,
 * JPY shows none, KWD three), and never fewer digits than it has: display pads, it never rounds
 * (`10.125` stays `10.125`). A datetime at midnight UTC reads as its date alone; any other reads
 * `YYYY-MM-DD HH:MM[:SS]Z`, in UTC.
 */
import {parseIsoDatetime} from '../shared/datetime.js'
import {JsonNumber, stringifyExact} from '../shared/exact-json.js'
import {Decimal, DECIMAL_TEXT, numberText} from '../shared/money.js'

/** Digits after the point when a record names no currency (or one ICU does not know). */
export const DEFAULT_MINOR_UNIT = 2

const minorUnits = new Map<string, number>()

/** The minor unit (decimal places) of an ISO 4217 currency, as the ICU data of Node knows it. */
export function minorUnit(currency: string | null | undefined): number {
  if (!currency || !/^[A-Za-z]{3}$/.test(currency)) return DEFAULT_MINOR_UNIT
  const code = currency.toUpperCase()
  let digits = minorUnits.get(code)
  if (digits === undefined) {
    try {
      digits = new Intl.NumberFormat('en', {style: 'currency', currency: code}).resolvedOptions().maximumFractionDigits
    } catch {
      digits = DEFAULT_MINOR_UNIT
    }
    minorUnits.set(code, digits ?? DEFAULT_MINOR_UNIT)
  }
  return digits ?? DEFAULT_MINOR_UNIT
}

/**
 * An amount (a JSON number, exact: src/api/answer-json.ts; or a decimal string) with at least the
 * currency's minor unit of digits after the point; anything else is returned as text.
 */
export function formatAmount(value: unknown, currency?: string | null): string {
  if (value === null || value === undefined || value === '') return ''
  const text =
    typeof value === 'number' || value instanceof JsonNumber
      ? numberText(value)
      : typeof value === 'string'
        ? value.trim()
        : undefined
  if (text === undefined || !(DECIMAL_TEXT.test(text) || /^-?\d+(\.\d+)?e[+-]?\d+$/i.test(text))) return String(value)
  const amount = new Decimal(text)
  const digits = Math.max(minorUnit(currency), amount.decimalPlaces())
  return amount.toFixed(digits)
}

/** A datetime for a table: the date alone at midnight UTC, else `YYYY-MM-DD HH:MM[:SS]Z` in UTC. */
export function formatDatetime(value: unknown): string {
  if (typeof value !== 'string' || value === '') return value === null || value === undefined ? '' : String(value)
  const parsed = parseIsoDatetime(value)
  if (!parsed.ok) return value
  const {epochMs} = parsed.value
  const iso = new Date(epochMs).toISOString()
  const fraction = parsed.value.fraction.replace(/^\.?0*$/, '')
  if (/T00:00:00\.000Z$/.test(iso) && !fraction) return iso.slice(0, 10)
  const seconds = iso.slice(17, 19) === '00' && !fraction ? '' : iso.slice(16, 19) + fraction
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}${seconds}Z`
}

/**
 * Text of a cell: numbers as plain decimals, strings as they are, objects as JSON, nothing for
 * null; the values of a path through an array (`lines.amount`) joined by spaces.
 */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'number' || value instanceof JsonNumber) return numberText(value)
  if (Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object' || v instanceof JsonNumber))
    return value.map(cellText).join(' ')
  if (typeof value === 'object') return stringifyExact(value)
  return String(value)
}
