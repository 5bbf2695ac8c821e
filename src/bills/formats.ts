/**
 * The date and number formats an accounting package writes, read exactly as declared: a format is
 * never guessed, because 03/11/2026 is 3 November in one region and 11 March in another, and
 * 1.250 is a thousand and a quarter in one and one and a quarter in another.
 */
import {yearProblem} from '../shared/datetime.js'
import {Decimal, type Money} from '../shared/money.js'

/** The date formats the flags list; a map (and `--date-format`) may write any pattern of `datePattern`'s tokens. */
export const DATE_FORMATS = ['DD/MM/YYYY', 'MM/DD/YYYY', 'DD.MM.YYYY', 'YYYY-MM-DD'] as const
/** A date pattern: tokens D, DD, M, MM, YY, YYYY and DDMM, with / - . or nothing between them. */
export type DateFormat = string

export const NUMBER_FORMATS = ['1234.56', '1,234.56', '1.234,56', '1 234,56'] as const
export type NumberFormat = (typeof NUMBER_FORMATS)[number]

export type Parsed<T> = {ok: true; value: T} | {ok: false; reason: string}

/** Where a date without a year takes it from: a year, or a fiscal year's first day. */
export interface YearSource {
  year: number
  /** The fiscal year starts on this month and day of `year`: an earlier day of the calendar is in `year + 1`. */
  fiscalStart?: {month: number; day: number} | undefined
  /** Where the year came from, for messages (`--year`, or the preamble's field). */
  from: string
}

interface DateShape {
  pattern: RegExp
  /** The capture group of each part, 0 when the pattern has none. */
  day: number
  month: number
  year: number
  /** Years written with two digits: 20YY. */
  shortYear: boolean
}

const TOKEN = /^(DDMM|YYYY|YY|DD|D|MM|M)/
const shapes = new Map<string, DateShape | string>()

/**
 * A date pattern, checked and compiled to a regular expression; or why it is not one. D and M
 * allow one or two digits when a separator follows; without a separator each part has its fixed
 * width (DDMM is four digits, or three when the leading zero of the day is dropped).
 */
export function datePattern(format: string): DateShape | string {
  const cached = shapes.get(format)
  if (cached) return cached
  let rest = format
  let source = '^'
  let group = 0
  const shape = {day: 0, month: 0, year: 0, shortYear: false}
  const problem = (why: string) =>
    `"${format}" is not a date pattern: ${why} (tokens D, DD, M, MM, YY, YYYY, DDMM; separators / - . or none)`
  while (rest !== '') {
    const token = TOKEN.exec(rest)?.[1]
    if (!token) {
      if (/^[/.-]/.test(rest) && source !== '^' && !/[/.-]$/.test(source)) {
        source += `\\${rest[0]}`
        rest = rest.slice(1)
        continue
      }
      return problem(`unexpected "${rest[0]}"`)
    }
    rest = rest.slice(token.length)
    const separated = /^[/.-]/.test(rest) || rest === ''
    const part = token === 'DDMM' ? 'day' : token.startsWith('Y') ? 'year' : token.startsWith('D') ? 'day' : 'month'
    if (shape[part] !== 0 || (token === 'DDMM' && shape.month !== 0)) return problem(`the ${part} appears twice`)
    if (token === 'DDMM') {
      source += '(\\d{1,2}?)(\\d{2})'
      shape.day = ++group
      shape.month = ++group
      continue
    }
    if ((token === 'D' || token === 'M') && !separated)
      return problem(`${token} needs a separator after it (or write ${token}${token})`)
    const width = token === 'YYYY' ? '4' : token.length === 2 && !separated ? '2' : token.startsWith('Y') ? '2' : '1,2'
    source += `(\\d{${width}})`
    shape[part] = ++group
    if (token === 'YY') shape.shortYear = true
  }
  if (shape.day === 0 || shape.month === 0) return problem('it needs a day and a month')
  const compiled: DateShape = {pattern: new RegExp(source + '$'), ...shape}
  shapes.set(format, compiled)
  return compiled
}

/**
 * A date written in `format` (D and M unpadded or padded) as the spec's UTC datetime at
 * midnight, or why it is not one. A time after the date (some exports add ` 00:00:00`) is refused
 * rather than dropped: the map says dates, and a time of day would be lost. A pattern without a
 * year takes it from `year`, never from a guess.
 */
export function parseDateAs(text: string, format: DateFormat, year?: YearSource): Parsed<string> {
  const shape = datePattern(format)
  if (typeof shape === 'string') return {ok: false, reason: shape}
  const m = shape.pattern.exec(text)
  if (!m) return {ok: false, reason: `is not a date written ${format}`}
  const d = Number(m[shape.day])
  const mo = Number(m[shape.month])
  let y: number
  if (shape.year !== 0) y = Number(m[shape.year]) + (shape.shortYear ? 2000 : 0)
  else if (!year)
    return {
      ok: false,
      reason: `has no year (${format}): pass --year YYYY, or read it from the file's preamble (year_from: in the map)`,
    }
  else {
    const start = year.fiscalStart
    y = start && (mo < start.month || (mo === start.month && d < start.day)) ? year.year + 1 : year.year
  }
  const implausible = yearProblem(y, 'a bill')
  if (implausible) return {ok: false, reason: implausible}
  if (mo < 1 || mo > 12) return {ok: false, reason: `is not a real date (${format}): there is no month ${mo}`}
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate()
  if (d < 1) return {ok: false, reason: `is not a real date (${format}): there is no day ${d}`}
  if (d > days) {
    return {ok: false, reason: `is not a real date (${format}): month ${mo} of ${y} has ${days} days`}
  }
  return {ok: true, value: `${String(y).padStart(4, '0')}-${pad(mo)}-${pad(d)}T00:00:00Z`}
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
export function parseNumberAs(text: string, format: NumberFormat, options: NumberOptions = {}): ParsedNumber {
  return readNumber(text, format, options, true)
}

/** A number read, with the currency symbol or code written around it, if any (`mark`). */
export type ParsedNumber = Parsed<string> & {mark?: string | undefined}

/** Symbols that name one currency; `$` and `¥` name several, and mean what the map says. */
const ONE_CURRENCY: Record<string, string> = {'\u20ac': 'EUR', '\u00a3': 'GBP', '\u20b9': 'INR'}
export const SEVERAL_CURRENCIES: Record<string, readonly string[]> = {
  $: ['USD', 'CAD', 'AUD', 'NZD', 'SGD', 'HKD', 'MXN', 'TWD', 'ARS', 'CLP', 'COP'],
  '\u00a5': ['JPY', 'CNY'],
}

/**
 * The currency a mark written in a cell names: a code is itself; `€`, `£` and `₹` one each; `$`
 * and `¥` what the map's `currency_symbols` says, else the map's default currency when the symbol
 * can name it. `several` when the map does not say.
 */
export function currencyOfMark(
  mark: string,
  said: Readonly<Partial<Record<string, string | readonly string[]>>>,
  mapCurrency: string | undefined,
  billCurrency: string,
): {currency: string} | {several: readonly string[]} {
  if (/^[A-Z]{3}$/.test(mark)) return {currency: mark}
  const named = said[mark] ?? ONE_CURRENCY[mark]
  if (typeof named === 'string') return {currency: named}
  // A list: the package writes its local currency's symbol, so it means the bill's when it can.
  if (named) return {currency: named.includes(billCurrency) ? billCurrency : named.join(' or ')}
  const candidates = SEVERAL_CURRENCIES[mark] ?? []
  if (mapCurrency && candidates.includes(mapCurrency)) return {currency: mapCurrency}
  return {several: candidates}
}

/** The symbol or code around a number taken off; the first one found is kept. */
function takeMark(s: string, mark: string | undefined): {rest: string; mark: string | undefined} {
  let found = mark
  const rest = s.replace(SYMBOL_AROUND, (m) => {
    found ??= m.trim()
    return ''
  })
  return {rest, mark: found}
}

/** Digits with an optional dot and digits: the same number in every format whose decimal mark is a dot. */
const PLAIN_DOT = /^\d+(?:\.\d+)?$/
const PLAIN_DIGITS = /^\d+$/

function readNumber(text: string, format: NumberFormat, options: NumberOptions, hint: boolean): ParsedNumber {
  // Most cells are plain: no sign, group, symbol or space, read as written (what the steps below give them).
  if ((SEPARATORS[format].decimal === '.' ? PLAIN_DOT : PLAIN_DIGITS).test(text)) return {ok: true, value: text}
  const otherFormatHint = (t: string, f: NumberFormat) => (hint ? otherFormats(t, f) : '')
  let s = text.trim()
  const expected = `expected a number written ${format}${options.negativeParentheses ? ' (or (1234.56) for a negative)' : ''}`
  if (s === '') return {ok: false, reason: `is empty: ${expected}`}
  let negative = false
  let mark: string | undefined
  if (options.negative) {
    const signed = negativeForm(s, options.negative)
    if (!signed.ok) return signed
    ;({body: s, negative} = signed.value)
    if (options.currencySymbols) ({rest: s, mark} = takeMark(s, mark))
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
  if (options.currencySymbols) ({rest: s, mark} = takeMark(s, mark))
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
  return {
    ok: true,
    value: `${negative ? '-' : ''}${whole === '' ? '0' : whole}${fraction ? `.${fraction}` : ''}`,
    ...(mark ? {mark} : {}),
  }
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
let lastCurrency: string | undefined
let lastDigits = 2

/**
 * The currency's minor unit (ISO 4217, from ICU's currency data through Intl): the decimals a
 * computed amount is rounded to. 2 for EUR, 0 for JPY, 3 for KWD.
 */
export function minorUnit(currency: string): number {
  // Called once per computed amount, nearly always with the currency of the row before.
  if (currency === lastCurrency) return lastDigits
  let digits = minorUnits.get(currency)
  if (digits === undefined) {
    digits = new Intl.NumberFormat('en', {style: 'currency', currency}).resolvedOptions().maximumFractionDigits ?? 2
    minorUnits.set(currency, digits)
  }
  lastCurrency = currency
  lastDigits = digits
  return digits
}

/** Rounded half away from zero (ISO 4217 minor unit), as invoices round a line. */
export function roundMoney(value: Money, decimals: number): Money {
  return value.toDecimalPlaces(decimals, Decimal.ROUND_HALF_UP)
}
