/**
 * The date and number flags of the import command `bk bills maps init` prints for a preset, told
 * from the sample's date and amount columns. A preset that leaves a format open gets the one the
 * sample reads in. A preset that fixes one (KashFlow's DD/MM/YYYY, QuickBooks Desktop's M/D/YY,
 * DATEV's decimal comma) is checked against the sample: when its format does not read the
 * sample's values (a US-region export against a day-first preset, four-digit years against
 * two), the flag that does is added, as flags beat the map; a format the sample reads two ways
 * is left to decide, never guessed. Without that, the command named would refuse every row.
 */
import {DATE_CANDIDATES, fileFormat, type ColumnProfile} from './column-profile.js'
import {parseDateAs, type YearSource} from './formats.js'
import type {BillMap} from './map-file.js'
import {decideText, type FormatFinding} from './map-init.js'
import {shellWord} from '../output/shell-word.js'

export interface PresetFormats {
  flags: string[]
  decide: string[]
  notes: string[]
  /** The sample's date format, when the preset's does not read it (replaces the finding). */
  dateFormat?: FormatFinding
}

/** A year for patterns without one (DATEV's DDMM): whether day and month read is what is checked. */
const ANY_YEAR: YearSource = {year: 2000, from: 'maps init'}

const isDate = (target: string | null) => target != null && target.endsWith('_at')

export function presetFormats(
  map: BillMap,
  profiles: readonly ColumnProfile[],
  targets: ReadonlyArray<string | null>,
  found: {dateFormat: FormatFinding | null; numberFormat: FormatFinding | null},
): PresetFormats {
  const out: PresetFormats = {flags: [], decide: [], notes: []}
  const flag = (name: string, what: string, f: FormatFinding) => {
    out.flags.push(`--${name} ${f.value !== null ? shellWord(f.value) : `<${f.candidates.join('|') || 'FORMAT'}>`}`)
    if (f.value === null) out.decide.push(`the ${what} format: ${decideText(f)}`)
  }
  if (!map.dateFormat && found.dateFormat) flag('date-format', 'date', found.dateFormat)
  if (map.dateFormat) {
    const dates = profiles.filter((_, i) => isDate(targets[i] ?? null)).map((p) => p.values)
    const own = [map.dateFormat, ...(map.dateAlternatives ?? [])]
    const all = dates.flat()
    const misses = all.filter((v) => !own.some((p) => parseDateAs(v, p, ANY_YEAR).ok))
    const unread = misses[0]
    const f = unread === undefined ? undefined : sampleDateFormat(dates, own)
    // The map's format reads most dates and no other reads them all: a date that is wrong
    // (31/02), not a format to change; the import names its row.
    if (f && f.candidates.length === 0 && misses.length * 2 < all.length)
      out.notes.push(
        `the map's date format (${own.join(' or ')}) does not read ${JSON.stringify(unread)}, nor does any other: the import names the row`,
      )
    else if (f) {
      out.dateFormat = f
      flag('date-format', 'date', f)
      out.notes.push(
        `the preset's date format (${own.join(' or ')}) does not read ${JSON.stringify(unread)}: ` +
          (f.value ? `the dates read as ${f.value}, passed as --date-format` : 'pass the one the file is written in'),
      )
    }
  }
  const numbers = found.numberFormat
  const plain = numbers?.value === '1234.56' && !map.needs.has('number-format')
  if (!map.numberFormat && numbers && !plain) flag('number-format', 'number', numbers)
  if (map.numberFormat && numbers) {
    const amounts = profiles.filter((p, i) => !isDate(targets[i] ?? null) && p.numberFormats.length > 0)
    const unread = amounts.find((p) => !p.numberFormats.includes(map.numberFormat!))
    if (unread) {
      flag('number-format', 'number', numbers)
      out.notes.push(
        `the preset's number format (${map.numberFormat}) does not read ${JSON.stringify(unread.values[0])}: ` +
          (numbers.value
            ? `the amounts read as ${numbers.value}, passed as --number-format`
            : 'pass the one the file is written in'),
      )
    }
  }
  return out
}

/**
 * The format the sample's dates read in, its columns each read whole. The preset's own patterns
 * with the other year width come first (M/D/YYYY for M/D/YY), so that a preset's order is kept
 * where the sample allows it.
 */
function sampleDateFormat(columns: string[][], own: readonly string[]): FormatFinding {
  const widened = own.map((p) => p.replace(/YYYY|YY/, (y) => (y === 'YY' ? 'YYYY' : 'YY')))
  const order = [...new Set([...widened, ...DATE_CANDIDATES])]
  const read = columns.map((values) => ({
    values,
    formats: order.filter((f) => values.every((v) => parseDateAs(v, f).ok)),
  }))
  const {formats, examples} = fileFormat(read, 'date', order)
  const shown = examples.length > 0 ? examples : [...new Set(columns.flat())].slice(0, 3)
  return {value: formats.length === 1 ? formats[0]! : null, candidates: formats, examples: shown}
}
