/**
 * What the values of an export's columns look like, for `bk bills maps init`: which date and
 * number formats every value of a column reads in, the negative forms and currency symbols
 * seen. A format is proposed only when it is the only reading; when two formats read the sample
 * with different meanings (03/04/2025, 4.199), both are returned for the user to decide.
 */
import {
  NEGATIVE_FORMS,
  NUMBER_FORMATS,
  parseDateAs,
  parseNumberAs,
  type NegativeForm,
  type NumberFormat,
} from './formats.js'

/** The date patterns tried, most common first; any of formats.ts's patterns may be written by hand. */
export const DATE_CANDIDATES = [
  'YYYY-MM-DD',
  'DD/MM/YYYY',
  'MM/DD/YYYY',
  'DD.MM.YYYY',
  'DD-MM-YYYY',
  'MM-DD-YYYY',
  'YYYY/MM/DD',
  'DD/MM/YY',
  'MM/DD/YY',
  'DD.MM.YY',
] as const

export interface ColumnProfile {
  /** Non-empty values seen (trimmed). */
  values: string[]
  /** Cells left blank in the sample. */
  blanks: number
  /** Date patterns every value reads in (empty: not a date column). */
  dateFormats: string[]
  /** Number formats every value reads in (empty: not a number column). */
  numberFormats: NumberFormat[]
  negativeForms: NegativeForm[]
  currencySymbols: boolean
  /** Some value is negative (in any form). */
  negatives: boolean
}

const ALL_NEGATIVES = {negative: NEGATIVE_FORMS, currencySymbols: true}
const SYMBOL = /[$£€¥₹]|\b[A-Z]{3}\b/
const FORMS: Array<[NegativeForm, RegExp]> = [
  ['($1)', /^\(.*([$£€¥₹]|[A-Z]{3}).*\)$/],
  ['(1)', /^\(.*\)$/],
  ['1 CR', /CR$/],
  ['1-', /\d\s*-$/],
  ['-$1', /^-\s*([$£€¥₹]|[A-Z]{3})/],
  ['$-1', /^([$£€¥₹]|[A-Z]{3})\s*-/],
  ['-1', /^-/],
]

/** Profiles column `index` of `rows`. */
export function profileColumn(rows: readonly string[][], index: number): ColumnProfile {
  const values: string[] = []
  let blanks = 0
  for (const row of rows) {
    const v = (row[index] ?? '').trim()
    if (v === '') blanks++
    else values.push(v)
  }
  const profile: ColumnProfile = {
    values,
    blanks,
    dateFormats: [],
    numberFormats: [],
    negativeForms: [],
    currencySymbols: false,
    negatives: false,
  }
  if (values.length === 0) return profile
  profile.dateFormats = DATE_CANDIDATES.filter((f) => values.every((v) => parseDateAs(v, f).ok))
  if (profile.dateFormats.length > 0) return profile
  // A number has a digit, and no letters beyond a currency code or CR.
  if (!values.every((v) => /\d/.test(v) && !/[a-z]/i.test(v.replace(/\b[A-Z]{3}\b|CR$/g, '')))) return profile
  profile.numberFormats = NUMBER_FORMATS.filter((f) => values.every((v) => parseNumberAs(v, f, ALL_NEGATIVES).ok))
  if (profile.numberFormats.length === 0) return profile
  const forms = new Set<NegativeForm>()
  for (const v of values) {
    if (SYMBOL.test(v.replace(/CR$/, ''))) profile.currencySymbols = true
    const form = FORMS.find(([, pattern]) => pattern.test(v))?.[0]
    if (form) forms.add(form)
  }
  profile.negativeForms = NEGATIVE_FORMS.filter((f) => forms.has(f))
  profile.negatives = forms.size > 0
  return profile
}

/** Whether two formats read every value alike (1,234.56 and 1234.56 agree on 23.45). */
export function sameReading(values: readonly string[], a: string, b: string, kind: 'date' | 'number'): boolean {
  return values.every((v) => {
    const x = kind === 'date' ? parseDateAs(v, a) : parseNumberAs(v, a as NumberFormat, ALL_NEGATIVES)
    const y = kind === 'date' ? parseDateAs(v, b) : parseNumberAs(v, b as NumberFormat, ALL_NEGATIVES)
    return x.ok && y.ok && x.value === y.value
  })
}

/**
 * One format for the whole file from its columns' candidates: the formats every column reads,
 * reduced to those that differ in meaning on the sample. One left: the format; several: a
 * decision for the user; none: the columns disagree (also the user's to decide).
 */
export function fileFormat(
  columns: ReadonlyArray<{values: string[]; formats: string[]}>,
  kind: 'date' | 'number',
  order: readonly string[],
): {formats: string[]; examples: string[]} {
  const used = columns.filter((c) => c.formats.length > 0)
  if (used.length === 0) return {formats: [], examples: []}
  let common = order.filter((f) => used.every((c) => c.formats.includes(f)))
  if (common.length === 0) common = [...new Set(used.flatMap((c) => c.formats))]
  const values = used.flatMap((c) => c.values)
  // Keep the first of each group of formats that read the sample alike.
  const distinct: string[] = []
  for (const f of common) if (!distinct.some((d) => sameReading(values, d, f, kind))) distinct.push(f)
  const unique = values.filter((v, i) => values.indexOf(v) === i)
  // When formats differ, the values that tell them apart are the examples worth showing.
  const differing = unique.filter((v) => distinct.some((f) => !sameReading([v], distinct[0]!, f, kind)))
  const telling = (distinct.length > 1 && differing.length > 0 ? differing : unique).slice(0, 3)
  return {formats: distinct, examples: telling}
}

/** A header row: some cell filled, and none reads as a date or a number. */
export function looksLikeHeader(record: readonly string[]): boolean {
  const filled = record.map((c) => c.trim()).filter((c) => c !== '')
  return (
    filled.length > 0 &&
    filled.every((c) => profileColumn([[c]], 0).dateFormats.length === 0 && !/^[-+(]?[$£€]?\d[\d.,\s]*\)?$/.test(c))
  )
}
