/**
 * The map keys for exports whose bill lines are not one row each (docs/bills.md "The map
 * language"): lines packed in cells (`packed_lines:`), lines in a second file joined on a key
 * (`lines_file:`, with `--lines-file`), and several record types in one file, each with its own
 * header row (`record_types:`, QuickBooks Desktop's IIF). map-file.ts checks the rest of a map and
 * adds these keys to it from here; structured-input.ts reads a file by them.
 */
import {z} from 'zod'

import {InputError} from '../shared/errors.js'
import {headerKey} from './columns.js'

const names = z.array(z.string({error: 'expected a column name'}).min(1)).min(1)

/** The schema of these keys, spread into the map's schema. */
export const STRUCTURE_KEYS = {
  quotes: z.boolean({error: 'expected true or false'}).optional(),
  packed_lines: z
    .object(
      {columns: names.optional(), numbered: names.optional()},
      {
        error:
          'expected {columns: [column, ...]} (cells holding one line each) or {numbered: ["Line {n} Amount", ...]}',
      },
    )
    .strict()
    .refine((p) => p.columns ?? p.numbered, {
      message: 'name the packed columns (columns:) or the numbered groups (numbered:)',
    })
    .refine((p) => (p.numbered ?? []).every((n) => n.includes('{n}')), {
      message: 'each numbered column says where its line number is with {n}, such as "Line {n} Amount"',
    })
    .optional(),
  lines_file: z
    .object(
      {key: z.string().min(1), line_key: z.string().min(1).optional()},
      {error: 'expected {key, line_key}: the column that joins a bill to its lines'},
    )
    .strict()
    .optional(),
  record_types: z
    .object(
      {
        bill: z.string().min(1),
        line: z.string().min(1),
        end: z.string().min(1).optional(),
        skip: z.array(z.string().min(1)).optional(),
        header_prefix: z.string().min(1).optional(),
      },
      {error: 'expected {bill, line, end, skip, header_prefix}'},
    )
    .strict()
    .optional(),
}

/** The prefix of a lines file's columns in the map (`lines.Amount`), and of each record type's (`SPL.AMOUNT`). */
export const LINES_PREFIX = 'lines'

export interface RecordStructure {
  /** `quotes: false`: the file quotes nothing, so a `"` is text (IIF). */
  quotes: boolean
  /** Compared forms (`headerKey`) of the columns whose cells hold one line per line of the cell. */
  packedLines?: string[] | undefined
  /** Numbered column groups, one group per line: each header pattern with {n} for the line number. */
  numberedLines?: string[] | undefined
  /** The bills file's join column, the lines file's, and the lines file (`--lines-file`). */
  linesFile?: {key: string; lineKey: string; path?: string | undefined} | undefined
  /** The record type of a bill's fields, of its lines, of the row that ends it, and those dropped. */
  recordTypes?: {bill: string; line: string; end?: string | undefined; skip: string[]; headerPrefix: string} | undefined
}

type StructureKeys = {[K in keyof typeof STRUCTURE_KEYS]?: z.infer<(typeof STRUCTURE_KEYS)[K]>}

/** These keys of a checked map, each checked against the others; `at` names a key's place in the map. */
export function recordStructure(m: StructureKeys, at: (path: string[]) => string): RecordStructure {
  const given = (['packed_lines', 'lines_file', 'record_types'] as const).filter((k) => m[k] !== undefined)
  if (given.length > 1)
    throw new InputError(
      `${at([given[1]!])}: a map reads lines one way: ${given.join(' and ')} cannot be used together`,
    )
  const types = m.record_types
  if (types) {
    const named = [types.bill, types.line, types.end, ...(types.skip ?? [])].filter((t) => t !== undefined)
    const twice = named.find((t, i) => named.indexOf(t) !== i)
    if (twice) throw new InputError(`${at(['record_types'])}: the record type "${twice}" has two roles`)
  }
  return {
    quotes: m.quotes ?? true,
    packedLines: m.packed_lines?.columns?.map(headerKey),
    numberedLines: m.packed_lines?.numbered?.map((n) => n.trim()),
    linesFile: m.lines_file && {
      key: m.lines_file.key.trim(),
      lineKey: (m.lines_file.line_key ?? m.lines_file.key).trim(),
    },
    recordTypes: types && {
      bill: types.bill.trim(),
      line: types.line.trim(),
      end: types.end?.trim(),
      skip: (types.skip ?? []).map((t) => t.trim()),
      headerPrefix: types.header_prefix ?? '!',
    },
  }
}

/** Whether the map reads lines other than one row each: then the file is read whole first. */
export function hasStructure(s: RecordStructure): boolean {
  return Boolean(s.packedLines ?? s.numberedLines ?? s.linesFile ?? s.recordTypes)
}

/** A record as read, at the physical line it starts on. */
export interface ReadRecord {
  line: number
  cells: string[]
}

/**
 * Where a flattened row was read, for the side files and for messages: the side files hold the
 * rows as read, so that the user fixes and imports again the file they have.
 */
export interface RowOrigin {
  /** Every record of the row's bill as the file has it (a packed row; TRNS, SPL and ENDTRNS). */
  records: OriginalRecord[]
  /** A bill line joined from the lines file: its record, and the first joined column that is its. */
  lines?: {label: string; record: ReadRecord; from: number} | undefined
}

/** A record as read, with the width of the header row it is under (IIF: each type's own). */
export interface OriginalRecord extends ReadRecord {
  width: number
}

/** A row as the scan will see it, and where it was read. */
export interface FlatRow extends ReadRecord {
  origin?: RowOrigin | undefined
}

/** A file's rows as the scan will see them: a header, then each bill's rows (one per line), bill by bill. */
export interface Flattened {
  header: ReadRecord
  bills: FlatRow[][]
  /** The header rows as read (one, or one per record type), for the side files. */
  readHeader?: ReadRecord[] | undefined
  /** The lines file's header, for its own side files. */
  linesHeader?: {label: string; record: ReadRecord} | undefined
}

/** A record's cells padded to `width`; a non-blank cell past it is an error naming the file and line. */
export function fitTo(label: string, record: ReadRecord, width: number, what: string): string[] {
  const cells = record.cells
  if (cells.length === width) return cells
  if (cells.length < width) return [...cells, ...Array.from({length: width - cells.length}, () => '')]
  const extra = cells.slice(width).findIndex((c) => c.trim() !== '')
  if (extra !== -1)
    throw new InputError(
      `${label}:${record.line}: has a value in column ${width + extra + 1} (${JSON.stringify(cells[width + extra])}), but ${what} has ${width} columns: check for a missing or extra separator`,
    )
  return cells.slice(0, width)
}
