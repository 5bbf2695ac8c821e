/**
 * Which shipped preset reads an export, for `bk bills maps init`: a preset matches when the
 * import's own translator accepts the file's first record with it (header matching, aliases,
 * layout rules, a headerless layout's documented order, the columns its expressions and lookups
 * read, a value of the preamble it needs), and does so with the preset's own columns feeding bk's
 * required ones, not headers spelt as bk's columns. Otherwise the preset sharing the most
 * headers is the nearest, with the headers that differ.
 */
import {BkError} from '../shared/errors.js'
import {headerKey} from './columns.js'
import {looksLikeHeader} from './column-profile.js'
import type {Lookup, Lookups} from './lookups.js'
import {loadBillMap, withOverrides, type BillMap} from './map-file.js'
import {presetNames} from './presets.js'
import {LINES_PREFIX} from './record-structure.js'
import {joinSample} from './record-types-sample.js'
import {sampleFile, type FileSample} from './file-sample.js'
import {ExportTranslator, readFirstRow} from './translate.js'

export interface PresetMatch {
  name: string
  map: BillMap
  /** The file's header as the preset reads it; undefined for a headerless layout. */
  header: string[] | undefined
  /** The file has a header row (a headerless layout read by its documented order has none). */
  headerRow: boolean
  /** Data rows of the sample, as the preset reads them. */
  rows: string[][]
  /** The preset needs --amounts (net and gross both possible). */
  needsAmounts: boolean
}

export interface NearestPreset {
  name: string
  shared: number
  /** Headers of the file the preset does not know. */
  unknown: string[]
  /** Headers the preset maps (not ignores) that the file lacks. */
  absent: string[]
}

/**
 * Every preset that reads the file, the one named first: the one that reads the most of the
 * file's columns (ties in name order). Without a match, the nearest by shared headers (if any
 * shares one).
 */
export async function matchPresets(
  sample: FileSample,
): Promise<{match?: PresetMatch; others?: PresetMatch[]; nearest?: {preset: NearestPreset; map: BillMap}}> {
  let nearest: {preset: NearestPreset; map: BillMap} | undefined
  let unquoted: FileSample | undefined
  const matches: PresetMatch[] = []
  for (const name of presetNames()) {
    const map = await loadBillMap(name)
    // A file that quotes nothing (IIF) is read as its preset reads it.
    if (!map.quotes && sample.quotes) unquoted ??= await sampleFile(sample.file, false).catch(() => sample)
    const read = !map.quotes && unquoted ? unquoted : sample
    const records = structured(map, read)
    const match = records && tryPreset(name, map, read, records)
    if (match) matches.push(match)
    const near = nearness(name, map, read, records)
    if (near && near.shared > (nearest?.preset.shared ?? 0)) nearest = {preset: near, map}
  }
  if (matches.length > 0) {
    const [match, ...others] = matches.sort((a, b) => readColumns(b).length - readColumns(a).length)
    return {match: match!, others}
  }
  return nearest ? {nearest} : {}
}

/** The file's columns a match reads (maps to a target), by the header as written or its position. */
export function readColumns(match: PresetMatch): Array<{column: string; target: string}> {
  const cells = match.header ?? (match.rows[0] ?? []).map((_, i) => String(i + 1))
  return cells.flatMap((c) => {
    const target = match.map.columns.get(headerKey(c))
    return typeof target === 'string' ? [{column: c, target}] : []
  })
}

/** The match of one map on the sample, read as its import reads it; undefined when it does not read it. */
export function presetMatch(name: string, map: BillMap, sample: FileSample): PresetMatch | undefined {
  const records = structured(map, sample)
  return records && tryPreset(name, map, sample, records)
}

function tryPreset(name: string, map: BillMap, sample: FileSample, records: string[][]): PresetMatch | undefined {
  const preamble = records.slice(0, map.skipLines)
  const first = records[map.skipLines]
  if (!first) return undefined
  const read = readFirstRow(map, first)
  // A headerless reading fits only a file as wide as the fields the preset documents, whose
  // first row holds data: a header of names bk does not know is not a row of values.
  if (!read.header || read.isData) {
    if (read.isData && looksLikeHeader(first)) return undefined
    // A first record of another width than the rows after it is a preamble (DATEV's EXTF record), not a row.
    if (read.isData && sample.preambleLines > map.skipLines) return undefined
    const documented = map.fieldOrder?.length ?? Math.max(0, ...[...map.columns.keys()].map(Number).filter(Boolean))
    if (first.length > documented) return undefined
  }
  const rows = records.slice(map.skipLines + (read.isData ? 0 : 1))
  for (const amounts of [undefined, 'net'] as const) {
    try {
      const checked = amounts ? withOverrides(map, {amounts}) : map
      new ExportTranslator(read.header, first.length, checked, placeholderLookups(map), sample.file, preamble)
      // The import reads a header spelt as bk's own column under any map: a preset reads the file
      // only when its own columns feed bk's required ones, those headers aside.
      const own = {...checked, ignoreAllOthers: true}
      new ExportTranslator(read.header, first.length, own, placeholderLookups(map), sample.file, preamble)
      return {name, map, header: read.header, headerRow: !read.isData, rows, needsAmounts: amounts !== undefined}
    } catch (error) {
      if (!(error instanceof BkError)) throw error
      if (error.code !== 'amounts_needed' || amounts) return undefined
    }
  }
  return undefined
}

/**
 * The sample's records as the preset's import reads them: an IIF file's record types joined into
 * one row per line under one header; a bills file whose lines are in a second file
 * (`lines_file:`) with the lines file's mapped columns added to its header, as the join adds
 * them. Undefined when the records do not have the preset's structure.
 */
function structured(map: BillMap, sample: FileSample): string[][] | undefined {
  const preamble = sample.records.slice(0, map.skipLines)
  const records = sample.records.slice(map.skipLines)
  if (map.recordTypes) {
    const flat = joinSample(sample, map.skipLines, map.recordTypes)
    return flat && [...preamble, flat.header, ...flat.rows]
  }
  if (map.linesFile) {
    const [header, ...rows] = records
    if (!header || !header.some((h) => headerKey(h) === headerKey(map.linesFile!.key))) return undefined
    const prefix = `${LINES_PREFIX}.`
    const lineColumns = [...map.spellings.values()].filter((s) => s.toLowerCase().startsWith(prefix))
    return [...preamble, [...header, ...lineColumns], ...rows]
  }
  return sample.records
}

/** Empty lookups for the fields the preset keys by several columns: the translator wants one for each. */
function placeholderLookups(map: BillMap): Lookups {
  const lookups: Lookups = new Map()
  for (const [field, key] of map.lookupKeys) {
    const lookup: Lookup = {
      field,
      file: '',
      caseInsensitive: false,
      values: new Map(),
      width: key.length,
      pending: new Set(),
    }
    lookups.set(field, lookup)
  }
  return lookups
}

function nearness(
  name: string,
  map: BillMap,
  sample: FileSample,
  records: string[][] | undefined,
): NearestPreset | undefined {
  // An IIF file's columns are its record types' (TRNS.DATE), as the preset reads them.
  const header = map.recordTypes ? records?.[map.skipLines] : sample.records[sample.preambleLines]
  if (!header) return undefined
  const known = (cell: string) => map.columns.has(headerKey(cell)) || map.whenColumn.has(headerKey(cell))
  const cells = header.map((c) => c.trim()).filter((c) => c !== '')
  const shared = cells.filter(known)
  if (shared.length === 0) return undefined
  const present = new Set(cells.map(headerKey).map((k) => map.aliasOf.get(k) ?? k))
  const absent: string[] = []
  for (const [key, spelt] of map.spellings) {
    if (map.aliasOf.has(key) || map.columns.get(key) === null || /^\d+$/.test(key)) continue
    if (!present.has(key)) absent.push(spelt)
  }
  return {name, shared: shared.length, unknown: cells.filter((c) => !known(c)), absent}
}
