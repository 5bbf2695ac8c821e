/**
 * The date and number formats an accounting package writes, read exactly as declared: a format is
 * never guessed, because 03/11/2026 is 3 November in one region and 11 March in another, and
 * 1.250 is a thousand and a quarter in one and one and a quarter in another.
 */
import {yearProblem} from '../shared/bill-rules.js'
import {Decimal, type Money} from '../shared/money.js'

export const DATE_FORMATS = ['DD/MM/YYYY', 'MM/DD/YYYY', 'DD.MM.YYYY', 'YYYY-MM-DD'] as const
export type DateFormat = (typeof DATE_FORMATS)[number]

export const NUMBER_FORMATS = ['1234.56', '1,234.56', '1.234,56', '1 234,56'] as const
export type NumberFormat = (typeof NUMBER_FORMATS)[number]

export type Parsed<T> = {ok: true; value: T} | {ok: false; reason: string}

const DATE_SHAPES: Record<DateFormat, {pattern: RegExp; order: [day: number, month: number, year: number]}> = {
  'DD/MM/YYYY': {pattern: /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/, order: [1, 2, 3]},
  'MM/DD/YYYY': {pattern: /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/, order: [2, 1, 3]},
  'DD.MM.YYYY': {pattern: /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/, order: [1, 2, 3]},
  'YYYY-MM-DD': {pattern: /^(\d{4})-(\d{1,2})-(\d{1,2})$/, order: [3, 2, 1]},
}

/**
 * A date written in `format` (day and month may be unpadded) as the spec's UTC datetime at
 * midnight, or why it is not one. A time after the date (some exports add ` 00:00:00`) is refused
 * rather than dropped: the map says dates, and a time of day would be lost.
 */
export function parseDateAs(text: string, format: DateFormat): Parsed<string> {
  const shape = DATE_SHAPES[format]
  const m = shape.pattern.exec(text)
  if (!m) return {ok: false, reason: `is not a date written ${format}`}
  const [d, mo, y] = shape.order.map((i) => Number(m[i]))
  const implausible = yearProblem(y!)
  if (implausible) return {ok: false, reason: implausible}
  if (mo! < 1 || mo! > 12) return {ok: false, reason: `is not a real date (${format}): there is no month ${mo}`}
  const days = new Date(Date.UTC(y!, mo!, 0)).getUTCDate()
  if (d! < 1 || d! > days) {
    return {ok: false, reason: `is not a real date (${format}): month ${mo} of ${y} has ${days} days`}
  }
  return {ok: true, value: `${String(y).padStart(4, '0')}-${pad(mo!)}-${pad(d!)}T00:00:00Z`}
}

/** A UTC midnight datetime moved by whole days (for a due date N days after the issue date). */
export function addDays(isoMidnight: string, days: number): string {
  const t = Date.parse(isoMidnight) + days * 86_400_000
  return new Date(t).toISOString().replace('.000Z', 'Z')
}

function pad(n: number): string {
  return n < 10 ? `0${n}` : String(n)
}

/**
 * The ways packages write a negative number, named by how they write -1 (`$` stands for any
 * currency symbol or code): a map lists those its file uses, and only those are read.
 */
export const NEGATIVE_FORMS = ['-1', '-$1', '$-1', '(1)', '($1)', '1-', '1 CR'] as const
export type NegativeForm = (typeof NEGATIVE_FORMS)[number]

export interface NumberOptions {
  /** A currency symbol or ISO code before or after the number is accepted (and dropped). */
  currencySymbols?: boolean
  /** `(12.50)` means -12.50, as accounting reports write negatives. */
  negativeParentheses?: boolean
  /** The negative forms allowed; when given, it replaces the legacy `-`/parentheses rules. */
  negative?: readonly NegativeForm[] | undefined
}

const SEPARATORS: Record<NumberFormat, {group: string; decimal: string}> = {
  '1234.56': {group: '', decimal: '.'},
  '1,234.56': {group: ',', decimal: '.'},
  '1.234,56': {group: '.', decimal: ','},
  '1 234,56': {group: ' ', decimal: ','},
}

/** Spaces a locale may group digits with: a space, a no-break space, a narrow no-break space. */
const SPACE_GROUPS = /[ \u00A0\u202F]/
const SYMBOL_AROUND = /^(?:[A-Z]{3}|[$£€¥₹])\s*|\s*(?:[A-Z]{3}|[$£€¥₹])$/g

/**
 * A number written in `format` as plain decimal text (`-1234.56`), exact; or why it is not one.
 * Thousands groups must be groups of three: `1,23.45` is a typo, not 123.45.
 */
export function parseNumberAs(text: string, format: NumberFormat, options: NumberOptions = {}): Parsed<string> {
  return readNumber(text, format, options, true)
}

function readNumber(text: string, format: NumberFormat, options: NumberOptions, hint: boolean): Parsed<string> {
  const otherFormatHint = (t: string, f: NumberFormat) => (hint ? otherFormats(t, f) : '')
  let s = text.trim()
  const expected = `expected a number written ${format}${options.negativeParentheses ? ' (or (1234.56) for a negative)' : ''}`
  if (s === '') return {ok: false, reason: `is empty: ${expected}`}
  let negative = false
  if (options.negative) {
    const signed = negativeForm(s, options.negative)
    if (!signed.ok) return signed
    ;({body: s, negative} = signed.value)
    if (options.currencySymbols) s = s.replace(SYMBOL_AROUND, '')
    else if (/[$£€¥₹]/.test(s))
      return {
        ok: false,
        reason: `has a currency symbol, which the map does not allow (currency_symbols: true): ${expected}`,
      }
    if (s[0] === '-' || s[0] === '+')
      return {ok: false, reason: `has a sign in a form the map does not list: ${expected}`}
  } else if (options.negativeParentheses && s.startsWith('(') && s.endsWith(')')) {
    negative = true
    s = s.slice(1, -1).trim()
  }
  if (options.currencySymbols) s = s.replace(SYMBOL_AROUND, '')
  else if (/[$£€¥₹]/.test(s))
    return {
      ok: false,
      reason: `has a currency symbol, which the map does not allow (currency_symbols: true): ${expected}`,
    }
  if (s.startsWith('-') || s.startsWith('+')) {
    if (negative) return {ok: false, reason: `has both parentheses and a sign: ${expected}`}
    negative = s[0] === '-'
    s = s.slice(1)
  }
  const {group, decimal} = SEPARATORS[format]
  const dot = s.lastIndexOf(decimal)
  let whole = dot === -1 ? s : s.slice(0, dot)
  const fraction = dot === -1 ? '' : s.slice(dot + 1)
  if (!/^\d*$/.test(fraction) || (dot !== -1 && fraction === '' && whole === '')) {
    return {ok: false, reason: `is not a number: ${expected}${otherFormatHint(text.trim(), format)}`}
  }
  const grouped = group === ' ' ? SPACE_GROUPS.test(whole) : group !== '' && whole.includes(group)
  if (grouped) {
    const parts = group === ' ' ? whole.split(SPACE_GROUPS) : whole.split(group)
    if (!/^\d{1,3}$/.test(parts[0]!) || parts.slice(1).some((p) => !/^\d{3}$/.test(p))) {
      return {
        ok: false,
        reason: `has digit groups that are not thousands: ${expected}${otherFormatHint(text.trim(), format)}`,
      }
    }
    whole = parts.join('')
  }
  if (!/^\d*$/.test(whole) || (whole === '' && fraction === '')) {
    const other = otherFormatHint(text.trim(), format)
    return {ok: false, reason: `is not a number: ${expected}${other}`}
  }
  return {ok: true, value: `${negative ? '-' : ''}${whole === '' ? '0' : whole}${fraction ? `.${fraction}` : ''}`}
}

const SYMBOL = '(?:[A-Z]{3}|[$\u00a3\u20ac\u00a5\u20b9])'
const FORM_PATTERNS: Array<[NegativeForm, RegExp]> = [
  ['($1)', new RegExp(`^\\(\\s*(${SYMBOL}\\s*[^)]*|[^)]*?\\s*${SYMBOL})\\s*\\)$`)],
  ['(1)', /^\(\s*([^)]*?)\s*\)$/],
  ['1 CR', /^(.*?)\s*CR$/],
  ['1-', /^(.*?\d)\s*-$/],
  ['-$1', new RegExp(`^-\\s*(${SYMBOL}.*)$`)],
  ['$-1', new RegExp(`^(${SYMBOL})\\s*-\\s*(.*)$`)],
  ['-1', /^-\s*(.*)$/],
]

const isDigit = (code: number) => code >= 48 && code <= 57

/** Which negative form a number is written in, checked against the map's list; its body without the sign. */
function negativeForm(s: string, allowed: readonly NegativeForm[]): Parsed<{body: string; negative: boolean}> {
  // Most numbers start and end with a digit: positive, nothing to look at.
  if (isDigit(s.charCodeAt(0)) && isDigit(s.charCodeAt(s.length - 1)))
    return {ok: true, value: {body: s, negative: false}}
  for (const [form, pattern] of FORM_PATTERNS) {
    const m = pattern.exec(s)
    if (!m) continue
    if (!allowed.includes(form))
      return {
        ok: false,
        reason: `is a negative number written in the form "${form}", which the map does not list (negative: ${allowed.map((f) => `"${f}"`).join(', ')})`,
      }
    return {ok: true, value: {body: m.slice(1).join(''), negative: true}}
  }
  return {ok: true, value: {body: s.replace(/^\+/, ''), negative: false}}
}

/** When a value reads cleanly in another format, say so: it is the likeliest fix. */
function otherFormats(text: string, format: NumberFormat): string {
  const fits = NUMBER_FORMATS.filter((f) => f !== format && readNumber(text, f, {}, false).ok)
  return fits.length > 0 ? ` (it reads as ${fits.map((f) => `"${f}"`).join(' or ')}: check --number-format)` : ''
}

const minorUnits = new Map<string, number>()

/**
 * The currency's minor unit (ISO 4217, from ICU's currency data through Intl): the decimals a
 * computed amount is rounded to. 2 for EUR, 0 for JPY, 3 for KWD.
 */
export function minorUnit(currency: string): number {
  let digits = minorUnits.get(currency)
  if (digits === undefined) {
    digits = new Intl.NumberFormat('en', {style: 'currency', currency}).resolvedOptions().maximumFractionDigits ?? 2
    minorUnits.set(currency, digits)
  }
  return digits
}

/** Rounded half away from zero (ISO 4217 minor unit), as invoices round a line. */
export function roundMoney(value: Money, decimals: number): Money {
  return value.toDecimalPlaces(decimals, Decimal.ROUND_HALF_UP)
}
