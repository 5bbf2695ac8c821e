/**
 * Which shipped preset reads an export, for `bk bills maps init`: a preset matches when the
 * import's own translator accepts the file's first record with it (header matching, aliases,
 * layout rules, a headerless layout's documented order, the columns its expressions and lookups
 * read, a value of the preamble it needs). Otherwise the preset sharing the most headers is the
 * nearest, with the headers that differ.
 */
import {BkError} from '../shared/errors.js'
import {headerKey} from './columns.js'
import {looksLikeHeader} from './column-profile.js'
import type {Lookup, Lookups} from './lookups.js'
import {loadBillMap, withOverrides, type BillMap} from './map-file.js'
import {presetNames} from './presets.js'
import {ExportTranslator, readFirstRow} from './translate.js'
import type {FileSample} from './file-sample.js'

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

/** The first preset that reads the file, else the nearest by shared headers (if any shares one). */
export async function matchPresets(sample: FileSample): Promise<{match?: PresetMatch; nearest?: NearestPreset}> {
  let nearest: NearestPreset | undefined
  for (const name of presetNames()) {
    const map = await loadBillMap(name)
    const match = tryPreset(name, map, sample)
    if (match) return {match}
    const near = nearness(name, map, sample)
    if (near && near.shared > (nearest?.shared ?? 0)) nearest = near
  }
  return nearest ? {nearest} : {}
}

function tryPreset(name: string, map: BillMap, sample: FileSample): PresetMatch | undefined {
  const preamble = sample.records.slice(0, map.skipLines)
  const first = sample.records[map.skipLines]
  if (!first) return undefined
  const read = readFirstRow(map, first)
  // A headerless reading fits only a file as wide as the fields the preset documents, whose
  // first row holds data: a header of names bk does not know is not a row of values.
  if (!read.header || read.isData) {
    if (read.isData && looksLikeHeader(first)) return undefined
    const documented = map.fieldOrder?.length ?? Math.max(0, ...[...map.columns.keys()].map(Number).filter(Boolean))
    if (first.length > documented) return undefined
  }
  const rows = sample.records.slice(map.skipLines + (read.isData ? 0 : 1))
  for (const amounts of [undefined, 'net'] as const) {
    try {
      const checked = amounts ? withOverrides(map, {amounts}) : map
      new ExportTranslator(read.header, first.length, checked, placeholderLookups(map), sample.file, preamble)
      return {name, map, header: read.header, headerRow: !read.isData, rows, needsAmounts: amounts !== undefined}
    } catch (error) {
      if (!(error instanceof BkError)) throw error
      if (error.code !== 'amounts_needed' || amounts) return undefined
    }
  }
  return undefined
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

function nearness(name: string, map: BillMap, sample: FileSample): NearestPreset | undefined {
  const header = sample.records[sample.preambleLines]
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
