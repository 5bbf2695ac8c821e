/**
 * `bk bills maps init FILE`: what an export is, told from its first rows. A preset that reads it
 * is named with the import command to run; otherwise the nearest preset and how it differs, and
 * the findings a starter map is written from (starter-map.ts): each column's proposed target,
 * the date and number formats seen, credit markers, and the lookups the map needs. A format
 * that reads the sample two ways is never chosen: it is a decision left to the user.
 */
import {canonicalColumn, headerKey, ID_COLUMN_PREFIX, layoutFor} from './columns.js'
import {BkError} from '../shared/errors.js'
import {shellWord} from '../output/shell-word.js'
import {delimiterFlag, plainMap, type BillMap} from './map-file.js'
import {DATE_CANDIDATES, fileFormat, looksLikeHeader, profileColumn, type ColumnProfile} from './column-profile.js'
import {sampleFile, type FileSample} from './file-sample.js'
import {NUMBER_FORMATS} from './formats.js'
import {matchPresets, presetMatch, readColumns, type NearestPreset, type PresetMatch} from './preset-match.js'
import {presetFormats} from './preset-formats.js'
import {presetDetails} from './presets.js'
import {proposeColumns} from './column-proposals.js'
import type {RecordStructure} from './record-structure.js'
import {iifRecordTypes, joinSample} from './record-types-sample.js'
import {computedLookups, LOOKUP_FILES} from './lookups-init.js'
import {starterMap} from './starter-map.js'
import {listed} from './translate.js'

/** A format as seen: the one format that reads the sample, or the several to decide between. */
export interface FormatFinding {
  value: string | null
  candidates: string[]
  examples: string[]
}

export interface ColumnFinding {
  /** The header as written, or the 1-based position in a file without a header row. */
  column: string
  target: string | null
  /** Why this target: the header's name, the values, or nothing recognised. */
  why: string
  examples: string[]
}

export interface LookupFinding {
  field: string
  /** The file's columns the lookup is keyed by. */
  columns: string[]
  /** The lookup file `bk bills lookups init` writes. */
  file: string
  /** Distinct values (or keys) in the sample. */
  distinct: number
}

export interface CreditFinding {
  column: string | null
  values: string[]
  bills: string[]
  negativeTotal: boolean
}

export interface MapInitFindings {
  file: string
  encoding: string
  delimiter: string
  header: boolean
  skipLines: number
  /** false: the file is read with a `"` as text (`quotes: false`): IIF, or a sample that reads only so. */
  quotes: boolean
  /** An IIF file's record types (`record_types:`), or null for a file with one header row. */
  recordTypes: RecordStructure['recordTypes'] | null
  sampledRows: number
  wholeFile: boolean
  /** `lookups`: the `bk bills lookups init` command, with the flags the file is read with; null without lookups. */
  preset: {name: string; command: string; needs: string[]; lookups: string | null} | null
  /** The file is in bk's own format: it imports with no map, by this command. */
  ownFormat: {command: string} | null
  nearest: NearestPreset | null
  columns: ColumnFinding[]
  dateFormat: FormatFinding | null
  numberFormat: FormatFinding | null
  negative: string[]
  currencySymbols: boolean
  credit: CreditFinding | null
  /** Net and gross amounts both readable: --amounts (or amounts:) must say which is sent. */
  amountsDecide: boolean
  lookups: LookupFinding[]
  /** Bill-level targets blank on a bill's further rows (filled from the row above). */
  fillDown: string[]
  /** Each decision the user must make before the map imports (a `# DECIDE:` line of the map). */
  decide: string[]
  /**
   * Headers the header row names more than once, each with its columns (1-based): a map names a
   * header once, so the starter map then reads every column by its position.
   */
  repeated: Array<{header: string; columns: number[]}>
  /** Notes for the user: columns bk found nothing for, a missing currency. */
  notes: string[]
  /** The starter map (YAML), when no preset reads the file. */
  map: string | null
}

/** Reads the start of `file` and says what it is. */
export async function initMap(file: string): Promise<MapInitFindings> {
  const sample = await sampleFile(file)
  const own = ownFormatFindings(sample)
  if (own) return own
  const {match, others, nearest} = await matchPresets(sample)
  if (match) {
    const findings = await presetFindings(sample, match)
    findings.notes.push(...(others ?? []).map((other) => otherMatch(match, other)))
    return findings
  }
  const layout = await layoutOf(sample)
  const {header, names, rows} = layout
  const profiles = names.map((_, i) => profileColumn(rows, i))
  const formats = formatsOf(profiles)
  const types = layout.recordTypes
  // IIF's field names are fixed by the format: its preset says what each one is.
  const preset = nearest?.map.recordTypes && {
    columns: nearest.map.columns,
    why: (column: string) => `IIF's ${column.replace('.', ' ')}, as the ${nearest.preset.name} preset reads it`,
  }
  const proposal = proposeColumns(names, profiles, header, types ? {...types, preset} : undefined)
  const findings: MapInitFindings = {
    ...shapeOf(layout.sample, header),
    // QuickBooks Desktop writes IIF in Windows' code page: a plain-ASCII sample says nothing of
    // next month's file with an é, which read as UTF-8 would be refused.
    ...(layout.recordTypes && {skipLines: 0, sampledRows: rows.length}),
    ...(layout.recordTypes && layout.sample.ascii && {encoding: 'windows-1252'}),
    quotes: layout.sample.quotes,
    recordTypes: layout.recordTypes,
    preset: null,
    ownFormat: null,
    nearest: nearest?.preset ?? null,
    ...formats,
    ...proposal,
    repeated: layout.recordTypes ? [] : repeatedHeaders(names),
    map: null,
  }
  for (const r of findings.repeated)
    findings.notes.push(
      `the header row names "${r.header}" on columns ${r.columns.join(', ')}: a map names a header once, so this map reads every column by its position (header: false, the header row skipped). Check which of them is which; if a later export moves a column, edit the positions`,
    )
  if (findings.dateFormat && findings.dateFormat.value === null)
    findings.decide.unshift(`the date format: ${decideText(findings.dateFormat)}`)
  if (findings.numberFormat && findings.numberFormat.value === null)
    findings.decide.unshift(`the number format: ${decideText(findings.numberFormat)}`)
  findings.map = starterMap(findings, names)
  return findings
}

/** Headers named more than once, as the import compares them (case, spaces, a trailing `:` forgiven). */
function repeatedHeaders(names: readonly string[]): MapInitFindings['repeated'] {
  const at = new Map<string, number[]>()
  names.forEach((name, i) => at.set(headerKey(name), [...(at.get(headerKey(name)) ?? []), i + 1]))
  return [...at.values()]
    .filter((columns) => columns.length > 1)
    .map((columns) => ({header: names[columns[0]! - 1]!, columns}))
}

export function decideText(f: FormatFinding): string {
  return f.candidates.length > 0
    ? `${f.candidates.join(' or ')} (each reads ${f.examples.map((e) => JSON.stringify(e)).join(', ')} differently)`
    : `no one format reads every value (${f.examples.map((e) => JSON.stringify(e)).join(', ')})`
}

/**
 * The file's columns and rows as a starter map reads them: an IIF file (its `!TRNS` and `!SPL`
 * header rows) read without quotes and its record types joined, as the import will read it with
 * the map's `record_types:`; any other file by its one header row, or by position without one.
 */
async function layoutOf(sample: FileSample) {
  const recordTypes = iifRecordTypes(sample.records) ?? null
  if (recordTypes) {
    const unquoted = sample.quotes ? await sampleFile(sample.file, false).catch(() => undefined) : sample
    const flat = unquoted && joinSample(unquoted, 0, recordTypes)
    if (unquoted && flat) return {sample: unquoted, header: true, names: flat.header, rows: flat.rows, recordTypes}
  }
  const first = sample.records[sample.preambleLines]!
  const header = looksLikeHeader(first)
  const rows = sample.records.slice(sample.preambleLines + (header ? 1 : 0))
  const names = header
    ? first.map((c, i) => c.replace(/^\uFEFF/, '').trim() || `column ${i + 1}`)
    : first.map((_, i) => String(i + 1))
  return {sample, header, names, rows, recordTypes: null}
}

function shapeOf(sample: FileSample, header: boolean) {
  return {
    file: sample.file,
    encoding: sample.bom ?? sample.encoding,
    delimiter: sample.delimiter,
    header,
    skipLines: sample.preambleLines,
    sampledRows: sample.records.length - sample.preambleLines - (header ? 1 : 0),
    wholeFile: sample.complete,
  }
}

/** The file's date and number formats, from every column that holds dates or numbers. */
function formatsOf(profiles: ColumnProfile[]) {
  const finding = (kind: 'date' | 'number') => {
    const columns = profiles.map((p) => ({
      values: p.values,
      formats: kind === 'date' ? p.dateFormats : p.numberFormats,
    }))
    const {formats, examples} = fileFormat(columns, kind, kind === 'date' ? DATE_CANDIDATES : NUMBER_FORMATS)
    if (formats.length === 0 && examples.length === 0) return null
    return {value: formats.length === 1 ? formats[0]! : null, candidates: formats, examples}
  }
  const numbers = profiles.filter((p) => p.numberFormats.length > 0)
  return {
    dateFormat: finding('date'),
    numberFormat: finding('number'),
    negative: [...new Set(numbers.flatMap((p) => p.negativeForms))],
    currencySymbols: numbers.some((p) => p.currencySymbols),
  }
}

/** The flags the import needs to read the sample as it was read here, with `map`. */
function readingFlags(map: BillMap, sample: FileSample): string[] {
  const reading: string[] = []
  if (map.linesFile) reading.push('--lines-file <LINES.csv>')
  if (map.delimiter !== sample.delimiter) reading.push(delimiterFlag(sample.delimiter))
  // A byte order mark is read whatever the map's encoding says (csv-records.ts): no flag for it.
  if (!sample.ascii && !sample.bom && map.encoding !== sample.encoding) reading.push(`--encoding ${sample.encoding}`)
  return reading
}

/**
 * A file whose header row is bk's own columns (the import's own check of them passes) imports as
 * it is, with no map: no preset is matched against it, as any of them would read it only through
 * those columns.
 */
function ownFormatFindings(sample: FileSample): MapInitFindings | undefined {
  const header = sample.records[0]
  if (!header || sample.preambleLines > 0 || !sample.quotes) return undefined
  try {
    layoutFor(header, sample.file)
  } catch (error) {
    if (error instanceof BkError) return undefined
    throw error
  }
  const rows = sample.records.slice(1)
  return {
    ...shapeOf(sample, true),
    quotes: true,
    recordTypes: null,
    preset: null,
    ownFormat: {command: [`bk bills import ${shellWord(sample.file)}`, ...readingFlags(plainMap(), sample)].join(' ')},
    nearest: null,
    columns: header.map((c, i) => ({
      column: c.replace(/^\uFEFF/, '').trim(),
      target: canonicalColumn(c) ?? null,
      why: "bk's own column",
      examples: profileColumn(rows, i).values.slice(0, 3),
    })),
    dateFormat: null,
    numberFormat: null,
    negative: [],
    currencySymbols: false,
    credit: null,
    amountsDecide: false,
    lookups: [],
    fillDown: [],
    decide: [],
    repeated: [],
    notes: [],
    map: null,
  }
}

/**
 * The import command's flags for a preset reading the sample, by where they go in it: how the file
 * is read, what the sample tells (formats, --amounts), the lookups, then --currency and each flag
 * of the preset's needs the sample could not tell, as a placeholder.
 */
function presetFlags(sample: FileSample, match: PresetMatch) {
  const {map} = match
  const cells = match.header ?? sample.records[map.skipLines]!.map((_, i) => String(i + 1))
  const targets = cells.map((c) => map.columns.get(headerKey(c)) ?? null)
  const profiles = cells.map((_, i) => profileColumn(match.rows, i))
  // Formats are told from the columns the preset reads as dates and amounts only: a vendor id
  // such as 1043 is not a number format.
  const read = profiles.map((p, i) => (formatTarget(targets[i]) ? p : profileColumn([], 0)))
  const formats = formatsOf(read)
  // How the file is read: `lookups init` reads it too, so its command gets these as well.
  const reading = readingFlags(map, sample)
  const checked = presetFormats(map, read, targets, formats)
  const told = [...checked.flags]
  const decide = [...checked.decide]
  if (checked.dateFormat) formats.dateFormat = checked.dateFormat
  const amounts = amountsTold(map, targets, match.rows)
  if (match.needsAmounts) {
    told.push('--amounts <net|gross>')
    decide.push('--amounts net or gross: the layout has amounts before and after tax')
  } else if (amounts.length === 1) told.push(`--amounts ${amounts[0]!}`)
  else if (amounts.length > 1) {
    told.push('--amounts <net|gross>')
    decide.push(
      `--amounts net or gross: rows of the sample say their amounts are without tax and others with it; the rows of the other kind are refused`,
    )
  }
  const lookups = presetLookups(match, cells, targets)
  const after: string[] = []
  if (
    !targets.includes('currency') &&
    map.defaults.currency === undefined &&
    !map.compute.some((c) => c.target === 'currency')
  )
    after.push('--currency <CODE>')
  after.push(...neededFlags(map, [...reading, ...told, ...after]))
  return {cells, targets, profiles, formats, reading, told, lookups, after, decide, notes: checked.notes}
}

/**
 * Each flag of the map's `needs:` that `given` lacks, as a placeholder: what the preset needs and
 * the sample could not tell (a lines file's number format) is left for the user.
 */
function neededFlags(map: BillMap, given: readonly string[]): string[] {
  const out: string[] = []
  for (const flag of map.needs.keys())
    if (!flag.startsWith('lookup ') && ![...given, ...out].some((f) => f.startsWith(`--${flag} `)))
      out.push(`--${flag} <${flag.endsWith('format') ? 'FORMAT' : 'VALUE'}>`)
  return out
}

/**
 * The flags of the import command `lookups init` prints, besides how the file is read (`given`)
 * and its lookups: those of the command `maps init` prints for `map` on the file, the ones it
 * puts before the lookups (formats the sample tells, --amounts) and after them (--currency, the
 * map's needs: as placeholders). Without a sample the map reads as a preset would, the needs:
 * alone.
 */
export async function importFlagsBeyondLookups(
  file: string,
  name: string,
  map: BillMap,
  given: readonly string[],
): Promise<{before: string[]; after: string[]}> {
  // stdin is read once, by the lookups: no sample of it.
  const sample = file === '-' ? undefined : await sampleFile(file, map.quotes ? undefined : false)
  const match = sample && presetMatch(name, map, sample)
  if (!sample || !match) return {before: [], after: neededFlags(map, given)}
  const {told, after} = presetFlags(sample, match)
  const named = (flag: string) => flag.split(' ')[0]
  const notGiven = (flag: string) => !given.some((g) => named(g) === named(flag))
  return {before: told.filter(notGiven), after: after.filter(notGiven)}
}

/** A preset reads the file: the command to run, with the flags told from the sample. */
async function presetFindings(sample: FileSample, match: PresetMatch): Promise<MapInitFindings> {
  const {map} = match
  const {cells, targets, profiles, formats, reading, told, lookups, after, decide, notes} = presetFlags(sample, match)
  const flags = [...reading, ...told, ...lookups.map((l) => `--lookup ${l.field}=${l.file}`), ...after]
  if (map.linesFile) {
    notes.push(
      `${match.name} reads the bills' lines from a second file, joined on ${map.linesFile.key}: pass it as --lines-file`,
    )
  }
  const details = await presetDetails(match.name)
  return {
    ...shapeOf(sample, match.headerRow),
    skipLines: map.skipLines,
    sampledRows: match.rows.length,
    quotes: map.quotes,
    recordTypes: map.recordTypes ?? null,
    preset: {
      name: match.name,
      command: [`bk bills import ${shellWord(sample.file)} --map ${match.name}`, ...flags].join(' '),
      needs: details.needs,
      lookups:
        lookups.length > 0
          ? [`bk bills lookups init ${shellWord(sample.file)} --map ${match.name}`, ...reading].join(' ')
          : null,
    },
    ownFormat: null,
    nearest: null,
    columns: cells.map((c, i) => ({
      column: c,
      target: targets[i] ?? null,
      why: `preset ${match.name}`,
      examples: profiles[i]!.values.slice(0, 3),
    })),
    ...formats,
    credit: null,
    amountsDecide: match.needsAmounts,
    lookups,
    fillDown: [],
    decide,
    repeated: [],
    notes,
    map: null,
  }
}

/**
 * What a column of `amounts_are:` (QuickBooks Online's Amounts Are) says of the sample's rows:
 * net, gross or both. The import refuses a taxed row without --amounts, so the rows tell the flag.
 */
function amountsTold(map: PresetMatch['map'], targets: Array<string | null>, rows: string[][]): Array<'net' | 'gross'> {
  const at = targets.indexOf('amounts_are')
  const rule = map.amountsAre
  if (at === -1 || !rule) return []
  const values = rows.map((r) => (r[at] ?? '').trim())
  return (['net', 'gross'] as const).filter((basis) => values.some((v) => listed(rule[basis], v)))
}

const formatTarget = (target: string | null | undefined) =>
  target != null && /_at$|amount|net|gross|tax|price|quantity|discount/.test(target)

/**
 * The lookups a preset needs for this file: keyed ones, computed ones (DATEV's accounts), and id
 * columns holding names or codes.
 */
function presetLookups(match: PresetMatch, cells: string[], targets: Array<string | null>): LookupFinding[] {
  const {map, rows} = match
  const out: LookupFinding[] = []
  for (const [field, key] of map.lookupKeys) {
    const at = key.map((k) => cells.findIndex((c) => headerKey(c) === headerKey(k)))
    const keys = new Set(rows.map((r) => at.map((i) => (r[i] ?? '').trim()).join('\u0000')))
    out.push({field, columns: key, file: LOOKUP_FILES[field] ?? `${field}.csv`, distinct: keys.size})
  }
  for (const computed of computedLookups(map, match.header, rows))
    out.push({...computed, file: LOOKUP_FILES[computed.field] ?? `${computed.field}.csv`})
  targets.forEach((t, i) => {
    const prefix = t ? ID_COLUMN_PREFIX[t] : undefined
    if (!t || !prefix || out.some((l) => l.field === t)) return
    const values = new Set(rows.map((r) => (r[i] ?? '').trim()).filter((v) => v !== ''))
    // A column with no value in the sample (a lines file's, not read here) is looked up as the preset says.
    if (values.size > 0 && [...values].every((v) => v.startsWith(prefix))) return
    out.push({field: t, columns: [cells[i]!], file: LOOKUP_FILES[t]!, distinct: values.size})
  })
  return out
}

/** A second preset that reads the file too: why the first was named, and the columns they read apart. */
function otherMatch(chosen: PresetMatch, other: PresetMatch): string {
  const mine = readColumns(chosen)
  const theirs = readColumns(other)
  const targetIn = (list: typeof mine, column: string) => list.find((r) => r.column === column)?.target ?? 'dropped'
  const columns = [...new Set([...mine, ...theirs].map((r) => r.column))]
  const apart = columns
    .filter((c) => targetIn(mine, c) !== targetIn(theirs, c))
    .map((c) => `${c}: ${targetIn(mine, c)} in ${chosen.name}, ${targetIn(theirs, c)} in ${other.name}`)
  return (
    `the preset ${other.name} reads this file too; ${chosen.name} is named as it reads ${mine.length} of its columns (${other.name} ${theirs.length})` +
    (apart.length > 0 ? `. They read apart: ${apart.join('; ')}` : ', alike') +
    `. To use ${other.name}: --map ${other.name}`
  )
}
