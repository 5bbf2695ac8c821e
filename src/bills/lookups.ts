/**
 * `--lookup FIELD=FILE.csv`: the user's own tables from the names and codes an export writes (a
 * vendor name, a vendor number with its leading zeros, an account code or path) to bk ids. The API
 * has no vendor or ledger list, so these files are the user's to keep (docs/bills.md "Lookups").
 */

import {parse} from 'csv-parse/sync'

import {InputError} from '../shared/errors.js'
import {undefused} from '../output/safe-csv.js'
import {decodeUtf8} from '../shared/utf8.js'
import {readBoundedFile, SIZE_LIMITS} from '../files/input-limits.js'

/** The bk columns a lookup may feed. */
const LOOKUP_FIELDS = ['vendor_id', 'line_ledger_id', 'business_id', 'currency'] as const

export interface Lookup {
  field: string
  file: string
  caseInsensitive: boolean
  /** The export's value (trimmed; lower-cased when case-insensitive) to the bk value. */
  values: Map<string, string>
  /** The key's columns in the file (1, or more for a lookup the map keys by several columns, `lookups:`). */
  width: number
  /** Values listed with an empty id (as `bk bills lookups init` writes them): still to fill, so missing. */
  pending: Set<string>
}

export type Lookups = Map<string, Lookup>

/**
 * Parses each `FIELD=FILE` and reads the files. `caseInsensitive` lists fields the map marks so;
 * `keys` the fields the map keys by several columns (`lookups:`), with their key columns.
 */
export async function loadLookups(
  specs: readonly string[],
  caseInsensitive: readonly string[] = [],
  keys: ReadonlyMap<string, readonly string[]> = new Map(),
): Promise<Lookups> {
  const lookups: Lookups = new Map()
  for (const spec of specs) {
    const eq = spec.indexOf('=')
    const field = canonicalField(eq === -1 ? '' : spec.slice(0, eq).trim())
    const file = eq === -1 ? '' : spec.slice(eq + 1).trim()
    if (!field || !file) {
      throw new InputError(`--lookup ${spec}: expected FIELD=FILE.csv, such as vendor_id=vendors.csv`, {
        hint: `FIELD is one of ${LOOKUP_FIELDS.join(', ')} or tag:<field>.`,
      })
    }
    if (lookups.has(field))
      throw new InputError(`--lookup ${field} is given twice (${lookups.get(field)!.file} and ${file})`)
    lookups.set(field, await readLookup(field, file, caseInsensitive.includes(field), keys.get(field)?.length ?? 1))
  }
  return lookups
}

function canonicalField(name: string): string | undefined {
  if (/^tag:/i.test(name)) return name.slice(4).trim() ? `tag:${name.slice(4).trim()}` : undefined
  const lower = name.toLowerCase()
  return (LOOKUP_FIELDS as readonly string[]).includes(lower) ? lower : undefined
}

async function readLookup(field: string, file: string, caseInsensitive: boolean, width: number): Promise<Lookup> {
  const bytes = await readBoundedFile(file, `--lookup ${field}:`, SIZE_LIMITS.lookup)
  const values = new Map<string, string>()
  const pending = new Set<string>()
  const lineOf = new Map<string, number>()
  let problem: InputError | undefined
  // Each row is taken as it is parsed (on_record, which keeps none), with the line it ends on
  // (context.lines), so a message names the right line past empty lines and quoted line breaks.
  const take = (row: string[], line: number): void => {
    if (row.length !== width + 1)
      throw new InputError(
        width === 1
          ? `${file}:${line}: expected two columns (the value as the export writes it, then the bk id), found ${row.length}`
          : `${file}:${line}: expected ${width + 1} columns (the ${width} key columns the map's lookups: names for ${field}, then the bk id), found ${row.length}`,
      )
    // `bills lookups init` writes a value a spreadsheet would run as a formula with a leading `'`.
    const parts = row.slice(0, width).map((p) => undefused(p.trim()))
    // A blank part of a key of several columns matches a blank cell (an individual has no first name).
    const from = width === 1 ? parts[0]! : parts.every((p) => p === '') ? '' : keyText(parts)
    const to = row[width]!.trim()
    if (from === '') throw new InputError(`${file}:${line}: an empty value`)
    const key = caseInsensitive ? from.toLowerCase() : from
    // A value listed without its id yet is missing, named as such by the dry run, not an error here.
    if (to === '') {
      pending.add(key)
      return
    }
    const earlier = values.get(key)
    if (earlier !== undefined && earlier !== to) {
      throw new InputError(
        `${file}:${line}: "${from}" is listed twice with different ids (${earlier} on line ${lineOf.get(key)}, ${to} here)`,
      )
    }
    values.set(key, to)
    lineOf.set(key, line)
  }
  try {
    parse(decodeUtf8(bytes, file), {
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      on_record: (row: string[], context) => {
        // The first record is the header row (the export's name for the value, then bk's).
        if (problem || context.records === 1) return null
        try {
          take(row, context.lines)
        } catch (error) {
          problem = error as InputError
        }
        return null
      },
    })
  } catch (error) {
    throw new InputError(`--lookup ${field}: ${file} is not a readable CSV: ${(error as Error).message}`)
  }
  if (problem) throw problem
  if (values.size === 0 && pending.size === 0)
    throw new InputError(`--lookup ${field}: ${file} has no rows after its header`)
  return {field, file, caseInsensitive, values, width, pending}
}

/** The lookup key of several cells: joined by a character no cell of a CSV export holds. */
const keyText = (parts: readonly string[]) => parts.join('\u0000')

/** The bk value for a key of several cells, or undefined when the lookup lacks it. */
export function lookUpKey(lookup: Lookup, parts: readonly string[]): string | undefined {
  const key = keyText(parts.map((p) => p.trim()))
  return lookup.values.get(lookup.caseInsensitive ? key.toLowerCase() : key)
}

/** The bk value for an export's value, or undefined when the lookup lacks it. */
export function lookUp(lookup: Lookup, value: string): string | undefined {
  const key = value.trim()
  return lookup.values.get(lookup.caseInsensitive ? key.toLowerCase() : key)
}
