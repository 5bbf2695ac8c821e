/**
 * The columns of a bill CSV, header matching (case-insensitive) and the --map file that renames a
 * user's own headers (an accounting package's export) onto ours.
 */
import {readFile} from 'node:fs/promises'

import {InputError} from '../errors.js'
import {decodeUtf8} from '../utf8.js'

/** Columns repeated on each row of a bill: every row of the bill must agree on them. */
export const BILL_COLUMNS = [
  'business_id',
  'number',
  'vendor_id',
  'description',
  'issued_at',
  'due_at',
  'currency',
  'metadata',
] as const
/** Columns of one bill line. */
export const LINE_COLUMNS = ['line_description', 'line_amount', 'line_ledger_id', 'line_metadata'] as const
export const REQUIRED_COLUMNS = ['number', 'vendor_id', 'line_amount', 'line_ledger_id'] as const
export const KNOWN_COLUMNS: readonly string[] = [...BILL_COLUMNS, ...LINE_COLUMNS]

export type BillColumn = (typeof BILL_COLUMNS)[number]
export type LineColumn = (typeof LINE_COLUMNS)[number]
export type Column = BillColumn | LineColumn

/** Where each of our columns sits in a record (-1 when absent), and the tag columns. */
export interface ColumnLayout {
  /** The file's own header cells, as written. */
  header: string[]
  index: Record<Column, number>
  /** Tag columns: field name (as written after `tag:`) and its index. */
  tags: Array<{field: string; index: number}>
  /** Constant values from the map's `defaults:`, for columns the file lacks or leaves empty. */
  defaults: Partial<Record<Column, string>>
  /** Our name of each header cell, or undefined for a column the map ignores. */
  names: Array<string | undefined>
}

/** A parsed --map file: header (lower-cased) to our column, or null to ignore it. */
export interface HeaderMap {
  file: string
  columns: Map<string, string | null>
  defaults: Partial<Record<Column, string>>
}

const TAG_PREFIX = /^tag:/i
/** Ignored on input: the reason column of bk's own rejects and unconfirmed files. */
export const IGNORED_COLUMN = 'error'

/** Our canonical name for a column name (case-insensitive; a tag field keeps its own case). */
export function canonicalColumn(name: string): string | undefined {
  const trimmed = name.trim()
  if (TAG_PREFIX.test(trimmed)) {
    const field = trimmed.slice(4).trim()
    return field ? `tag:${field}` : undefined
  }
  const lower = trimmed.toLowerCase()
  return KNOWN_COLUMNS.includes(lower) ? lower : undefined
}

/**
 * Reads a --map file:
 *   columns:            # your header: our column (or ~ to ignore the column)
 *     Bill No: number
 *     Memo: ~
 *   defaults:           # a value for a column your file does not have
 *     currency: EUR
 */
export async function loadHeaderMap(file: string): Promise<HeaderMap> {
  const {parseDocument, LineCounter, isMap, isScalar} = await import('yaml')
  let bytes: Buffer
  try {
    bytes = await readFile(file)
  } catch (error) {
    throw new InputError(`Cannot read the map file ${file}: ${(error as Error).message}`)
  }
  const text = decodeUtf8(bytes, file)
  const lineCounter = new LineCounter()
  const doc = parseDocument(text, {lineCounter, uniqueKeys: true})
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!
    const line = e.linePos?.[0]?.line
    throw new InputError(`${file}${line ? ` line ${line}` : ''}: ${e.message.split('\n')[0]}`)
  }
  const at = (node: {range?: [number, number, number] | null} | null | undefined) => {
    const offset = node?.range?.[0]
    return offset === undefined ? '' : ` line ${lineCounter.linePos(offset).line}`
  }
  const root = doc.contents
  if (!isMap(root))
    throw new InputError(`${file}: expected a mapping with "columns:" (and optionally "defaults:")`, {
      hint: 'See docs/bills.md "The --map file".',
    })
  const columns = new Map<string, string | null>()
  const defaults: Partial<Record<Column, string>> = {}
  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : ''
    if (key !== 'columns' && key !== 'defaults') {
      throw new InputError(`${file}${at(pair.key as never)}: unknown key "${key}": expected "columns" or "defaults"`)
    }
    if (!isMap(pair.value)) throw new InputError(`${file}${at(pair.key as never)}: "${key}" must be a mapping`)
    for (const item of pair.value.items) {
      const from = isScalar(item.key) ? String(item.key.value ?? '').trim() : ''
      const raw = isScalar(item.value) ? item.value.value : undefined
      const where = `${file}${at(item.key as never)}`
      if (!from) throw new InputError(`${where}: empty column name`)
      if (key === 'columns') {
        if (raw === null || raw === undefined || raw === '') {
          columns.set(from.toLowerCase(), null)
          continue
        }
        const to = canonicalColumn(String(raw))
        if (!to)
          throw new InputError(
            `${where}: "${from}" maps to "${String(raw)}", which is not a bill column: expected one of ${KNOWN_COLUMNS.join(', ')}, tag:<field>, or ~ to ignore it`,
          )
        columns.set(from.toLowerCase(), to)
      } else {
        const to = canonicalColumn(from)
        if (!to || to.startsWith('tag:'))
          throw new InputError(`${where}: "${from}" is not a bill column: expected one of ${KNOWN_COLUMNS.join(', ')}`)
        if (raw === null || raw === undefined || typeof raw === 'object')
          throw new InputError(`${where}: the default of ${to} must be a plain value`)
        defaults[to as Column] = String(raw)
      }
    }
  }
  return {file, columns, defaults}
}

/** Matches a header row against our columns (through the map when given). */
export function layoutFor(header: string[], fileLabel: string, map?: HeaderMap): ColumnLayout {
  const index = Object.fromEntries(KNOWN_COLUMNS.map((c) => [c, -1])) as Record<Column, number>
  const tags: ColumnLayout['tags'] = []
  const names: Array<string | undefined> = []
  const unknown: string[] = []
  header.forEach((cell, i) => {
    const label = cell.trim()
    const mapped = map?.columns.get(label.toLowerCase())
    // The `error` column bk adds to rejects and unconfirmed files: those files import again as they are.
    if (mapped === null || (mapped === undefined && label.toLowerCase() === IGNORED_COLUMN)) {
      names.push(undefined)
      return
    }
    const name = mapped ?? canonicalColumn(label)
    if (!name) {
      unknown.push(label === '' ? `(empty header in column ${i + 1})` : `"${label}"`)
      names.push(undefined)
      return
    }
    const taken = names.indexOf(name)
    if (taken !== -1) {
      throw new InputError(
        `${fileLabel}:1: columns ${taken + 1} ("${header[taken]}") and ${i + 1} ("${label}") are both ${name}`,
      )
    }
    names.push(name)
    if (name.startsWith('tag:')) tags.push({field: name.slice(4), index: i})
    else index[name as Column] = i
  })
  if (unknown.length > 0) {
    throw new InputError(
      `${fileLabel}:1: unknown column${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}: expected ${KNOWN_COLUMNS.join(', ')} or tag:<field>`,
      {
        hint: map
          ? `Map ${unknown.length > 1 ? 'them' : 'it'} in ${map.file} (or map ${unknown.length > 1 ? 'them' : 'it'} to ~ to ignore).`
          : 'Rename the header, or pass --map FILE.yaml (see docs/bills.md).',
      },
    )
  }
  const defaults = map?.defaults ?? {}
  const missing = REQUIRED_COLUMNS.filter((c) => index[c] === -1 && defaults[c] === undefined)
  if (missing.length > 0) {
    throw new InputError(
      `${fileLabel}:1: missing required column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (header: ${header.map((h) => h.trim()).join(',')})`,
      {
        hint: map
          ? `Map a column of the file to ${missing.join(', ')} in ${map.file}.`
          : 'Add the column, or pass --map FILE.yaml to name your own headers (see docs/bills.md).',
      },
    )
  }
  return {header, index, tags, defaults, names}
}
