/**
 * `bk bills lookups init FILE --map M`: one lookup file per field the map looks up (lookups.ts
 * reads them), holding every distinct value of the export (or key, for a lookup the map keys by
 * several columns) with an empty id column for the user to fill. Run again on a newer export, it
 * adds the values not listed yet and keeps every row already there as it is, filled ids
 * included; each file is replaced atomically (written beside it, then renamed over it).
 */
import {existsSync} from 'node:fs'
import {readFile} from 'node:fs/promises'
import {join} from 'node:path'

import {parse} from 'csv-parse/sync'
import {stringify} from 'csv-stringify/sync'

import {InputError} from '../shared/errors.js'
import {decodeUtf8} from '../shared/utf8.js'
import {replacePrivateFile} from '../files/private-file.js'
import {defused, undefused} from '../output/safe-csv.js'
import {headerKey, headerOf, ID_COLUMN_PREFIX} from './columns.js'
import type {BillMap} from './map-file.js'
import {compileComputed, computedText, RowFailure, type ComputedStep} from './computed-columns.js'
import {parseDateAs, parseNumberAs} from './formats.js'
import {openInput} from './structured-input.js'
import {columnsForLayout, readFirstRow} from './translate.js'

/** The lookup file written for each field. */
export const LOOKUP_FILES: Record<string, string> = {
  vendor_id: 'vendors.csv',
  line_ledger_id: 'ledgers.csv',
  business_id: 'businesses.csv',
}

export interface LookupFileResult {
  field: string
  file: string
  /** The export's columns the values come from (several for a keyed lookup). */
  columns: string[]
  /** Rows in the file now. */
  values: number
  /** Rows this run added. */
  added: number
  /** Rows with an id filled in. */
  filled: number
}

interface Field {
  field: string
  columns: string[]
  at: number[]
  /** Distinct keys in file order: the cells, trimmed. */
  keys: Map<string, string[]>
  /** A field the map computes (`compute: vendor_id: …`): its value is the expression's. */
  compute?: ComputedStep
}

/** Reads `file` as `map` reads it, and writes or updates a lookup file per looked-up field in `dir`. */
export async function initLookups(file: string, map: BillMap, dir: string): Promise<LookupFileResult[]> {
  const fields = await collect(file, map)
  const out: LookupFileResult[] = []
  for (const f of fields) out.push(await writeLookup(f, map, join(dir, LOOKUP_FILES[f.field] ?? `${f.field}.csv`)))
  return out
}

/**
 * One pass over the export as the import reads it (an IIF file's record types joined, a lines
 * file joined, packed lines unpacked): the distinct values of each looked-up field.
 */
async function collect(file: string, map: BillMap): Promise<Field[]> {
  const input = await openInput(file, 'worker', map, {delimiter: map.delimiter, encoding: map.encoding})
  let fields: Field[] | undefined
  let cells: string[] = []
  let skipped = 0
  const filter = {skip: -1, rows: -1}
  try {
    for await (const batch of input.batches())
      for (const record of batch) {
        input.advance(record)
        if (record.every((c) => c.trim() === '')) continue
        if (skipped < map.skipLines) {
          skipped++
          continue
        }
        if (!fields) {
          const first = readFirstRow(map, record)
          cells = first.header ?? record.map((_, i) => String(i + 1))
          fields = lookedUp(map, first.header, cells, file)
          const at = (name?: string) => (name ? indexOf(map, first.header, cells, name) : -1)
          filter.skip = at(map.skip?.column)
          filter.rows = at(map.rows?.column)
          if (!first.isData) continue
        }
        if (filter.skip !== -1 && map.skip!.values.includes((record[filter.skip] ?? '').trim())) continue
        if (filter.rows !== -1 && !map.rows!.values.includes((record[filter.rows] ?? '').trim())) continue
        for (const f of fields) {
          const parts = f.compute ? [computedKey(f.compute, record)] : f.at.map((i) => (record[i] ?? '').trim())
          if (parts.every((p) => p === '')) continue
          const key = parts.join('\u0000')
          const id = map.caseInsensitiveLookups.includes(f.field) ? key.toLowerCase() : key
          if (!f.keys.has(id)) f.keys.set(id, parts)
        }
      }
  } catch (error) {
    if (error instanceof InputError) throw error
    throw new InputError(`${file}: cannot be read with ${map.source}: ${(error as Error).message}`)
  } finally {
    input.close()
  }
  if (!fields) throw new InputError(`${file} is empty: expected a header row and rows of bills`)
  // A column that already holds bk ids needs no lookup.
  return fields.filter(
    (f) =>
      f.at.length > 1 ||
      f.compute !== undefined ||
      [...f.keys.values()].some(([v]) => !v!.startsWith(ID_COLUMN_PREFIX[f.field] ?? '\u0000')),
  )
}

/** The fields the map looks up in this file: keyed lookups, and columns feeding a bk id. */
function lookedUp(map: BillMap, header: string[] | undefined, cells: string[], file: string): Field[] {
  const fields: Field[] = []
  for (const [field, key] of map.lookupKeys) {
    const at = key.map((name) => {
      const i = indexOf(map, header, cells, name)
      if (i === -1) throw new InputError(`${map.source}: lookups: ${field}: "${name}" is not a column of ${file}`)
      return i
    })
    fields.push({field, columns: key, at, keys: new Map()})
  }
  fields.push(...computedFields(map, header, cells))
  const columns = columnsForLayout(map, header)
  cells.forEach((cell, i) => {
    const target = columns.get(header ? headerKey(cell) : String(i + 1))
    if (!target || !(target in ID_COLUMN_PREFIX) || fields.some((f) => f.field === target)) return
    fields.push({field: target, columns: [header ? cell.trim() : `column ${i + 1}`], at: [i], keys: new Map()})
  })
  if (fields.length === 0)
    throw new InputError(
      `${map.source}: no column of ${file} feeds vendor_id, line_ledger_id or business_id: nothing to look up`,
    )
  return fields
}

/**
 * The looked-up fields the map computes (DATEV's vendor_id, the larger of two account columns),
 * with the distinct values `rows` compute: what `bk bills maps init` names for a preset.
 */
export function computedLookups(
  map: BillMap,
  header: string[] | undefined,
  rows: string[][],
): Array<{field: string; columns: string[]; distinct: number}> {
  const cells = header ?? (rows[0] ?? []).map((_, i) => String(i + 1))
  return computedFields(map, header, cells).map((f) => {
    const values = new Set(rows.map((r) => computedKey(f.compute!, r)).filter((v) => v !== ''))
    return {field: f.field, columns: f.columns, distinct: values.size}
  })
}

/** The looked-up fields the map computes from other columns, each named by the columns it reads. */
function computedFields(map: BillMap, header: string[] | undefined, cells: string[]): Field[] {
  const rules = map.compute.filter((c) => c.target in ID_COLUMN_PREFIX && !map.lookupKeys.has(c.target))
  if (rules.length === 0) return []
  const numberFormat = map.numberFormat ?? '1234.56'
  const steps = compileComputed(
    {...map, compute: rules},
    {
      labels: cells,
      column: (name) => {
        const i = indexOf(map, header, cells, name)
        return i === -1 ? undefined : i
      },
      number: (text) => parseNumberAs(text, numberFormat, {currencySymbols: map.currencySymbols}),
      date: (text) =>
        map.dateFormat ? parseDateAs(text.trim(), map.dateFormat) : {ok: false, reason: 'has no date format'},
      currency: map.defaults.currency,
    },
  )
  return steps.map((step) => ({
    field: step.target,
    columns: [`${step.target} (computed)`],
    at: step.reads,
    keys: new Map(),
    compute: step,
  }))
}

/** A computed lookup's value for one row: blank when the row cannot compute it (the import names that row). */
function computedKey(step: ComputedStep, record: string[]): string {
  try {
    return computedText(step, step.run(record), undefined).trim()
  } catch (error) {
    if (error instanceof RowFailure) return ''
    throw error
  }
}

function indexOf(map: BillMap, header: string[] | undefined, cells: string[], name: string): number {
  if (!header) return /^\d+$/.test(name.trim()) ? Number(name) - 1 : -1
  const want = headerOf(map.aliasOf, name)
  return cells.findIndex((c) => headerOf(map.aliasOf, c) === want)
}

/** Adds the values not listed yet to the lookup file, keeping every row there as it is. */
async function writeLookup(f: Field, map: BillMap, path: string): Promise<LookupFileResult> {
  const caseless = map.caseInsensitiveLookups.includes(f.field)
  const width = f.columns.length
  let rows: string[][] = [[...f.columns, f.field]]
  if (existsSync(path)) {
    const text = decodeUtf8(await readFile(path), path)
    rows = parse(text, {bom: true, relax_column_count: true, skip_empty_lines: true}) as string[][]
    rows.forEach((row, i) => {
      if (row.length !== width + 1)
        throw new InputError(
          `${path}:${i + 1}: expected ${width + 1} columns (${[...f.columns, f.field].join(', ')}), found ${row.length}: is this the lookup file of ${f.field}?`,
        )
    })
    if (rows.length === 0) rows = [[...f.columns, f.field]]
  }
  const listed = new Set(
    rows.slice(1).map((r) => {
      const key = r
        .slice(0, width)
        .map((c) => undefused(c.trim()))
        .join('\u0000')
      return caseless ? key.toLowerCase() : key
    }),
  )
  let added = 0
  for (const [id, parts] of f.keys) {
    if (listed.has(id)) continue
    // Opened in a spreadsheet to fill in the ids: a value such as `=HYPERLINK(…)` is kept as text.
    rows.push([...parts.map(defused), ''])
    listed.add(id)
    added++
  }
  if (added > 0 || !existsSync(path)) await replacePrivateFile(path, stringify(rows))
  return {
    field: f.field,
    file: path,
    columns: f.columns,
    values: rows.length - 1,
    added,
    filled: rows.slice(1).filter((r) => r[width]!.trim() !== '').length,
  }
}
