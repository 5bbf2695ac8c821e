/**
 * The columns of a bill CSV in bk's own format and header matching (case-insensitive). An
 * accounting package's export is translated onto these columns by translate.ts, through a map.
 */
import {editDistance} from '../cli/closest.js'
import {InputError} from '../shared/errors.js'
import {ID_PREFIX} from '../shared/spec.js'

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

/** bk's id columns a lookup can fill from names or codes, each with the prefix of its ids. */
export const ID_COLUMN_PREFIX: Readonly<Partial<Record<string, string>>> = {
  vendor_id: ID_PREFIX.vendor,
  line_ledger_id: ID_PREFIX.ledger,
  business_id: ID_PREFIX.business,
}

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
  /** With a map: the export's columns each of these is read from (a lines file's are its own rows'). */
  sources?: ReadonlyArray<readonly number[]> | undefined
}

const TAG_PREFIX = /^tag:/i
/** Ignored on input: the reason column of bk's own rejects and unconfirmed files. */
export const IGNORED_COLUMN = 'error'

/**
 * A header as compared: what cannot mislead is forgiven (case, a BOM, surrounding and repeated
 * inner spaces, a trailing `.` or `:`, a leading `*` as Xero marks its required columns). Any
 * other difference is another column.
 */
export function headerKey(name: string): string {
  return name
    .replace(/^\uFEFF/, '')
    .trim()
    .replace(/^\*\s*/, '')
    .replace(/\s*[.:]$/, '')
    .replace(/\s+/g, ' ')
    .toLowerCase()
}

/**
 * The compared form of the header `name` stands for, an alias (`aliases:`) read as its header: two
 * names are the same column when their forms are equal, whichever spelling each one uses.
 */
export function headerOf(aliasOf: ReadonlyMap<string, string>, name: string): string {
  const key = headerKey(name)
  return aliasOf.get(key) ?? key
}

/** A header's compared form and those of its aliases: every spelling a file may give it. */
export function spellingsOfKey(aliasOf: ReadonlyMap<string, string>, key: string): string[] {
  return [key, ...[...aliasOf].filter(([, of]) => of === key).map(([alias]) => alias)]
}

/**
 * The known name nearest to an unknown header (edit distance on the compared form), if close.
 * `known` holds each name by its compared form (a map's spellings are kept so already).
 */
export function nearestName(
  header: string,
  known: Iterable<readonly [form: string, name: string]>,
): string | undefined {
  const key = headerKey(header)
  // Close means at most a third of the name differs: beyond that the "fix" would be a guess.
  const close = Math.max(2, Math.floor(key.length / 3))
  let best: string | undefined
  let bestDistance = close + 1
  for (const [form, name] of known) {
    const d = editDistance(key, form, bestDistance - 1)
    if (d < bestDistance) [best, bestDistance] = [name, d]
  }
  return best
}

/** Names by their compared forms, for nearestName. */
export function byForm(names: readonly string[]): Array<[string, string]> {
  return names.map((name) => [headerKey(name), name])
}

/** Our canonical name for a column name (matched by `headerKey`; a tag field keeps its own case). */
export function canonicalColumn(name: string): string | undefined {
  const trimmed = name.replace(/^\uFEFF/, '').trim()
  if (TAG_PREFIX.test(trimmed)) {
    const field = trimmed.slice(4).trim()
    return field ? `tag:${field}` : undefined
  }
  const key = headerKey(trimmed)
  return KNOWN_COLUMNS.includes(key) ? key : undefined
}

/** When a header row looks like data, or like one cell of another delimiter, say what to change. */
export function noHeaderHint(header: string[]): string | undefined {
  const line = header.join(',')
  const count = (c: string) => line.split(c).length - 1
  // More semicolons (or tabs) than cells: the file is separated by them, not by commas.
  if (count(';') >= header.length || count('\t') >= header.length) {
    const d = count(';') >= count('\t') ? ';' : 'tab'
    return `The file looks ${d}-separated: pass --delimiter '${d}' (or delimiter: in the map).`
  }
  const looksLikeData = (c: string) =>
    /^\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}$/.test(c.trim()) || /^-?[\d.,]+$/.test(c.trim())
  if (header.some(looksLikeData)) {
    return 'The first row looks like data, not a header: use a map with header: false and name the columns by position (1, 2, …).'
  }
  return undefined
}

/** Matches the header row of a file in bk's own format against bk's columns. */
export function layoutFor(header: string[], fileLabel: string): ColumnLayout {
  const index = Object.fromEntries(KNOWN_COLUMNS.map((c) => [c, -1])) as Record<Column, number>
  const tags: ColumnLayout['tags'] = []
  const names: Array<string | undefined> = []
  const unknown: string[] = []
  header.forEach((cell, i) => {
    const label = cell.trim()
    // The `error` column bk adds to rejects and unconfirmed files: those files import again as they are.
    if (headerKey(label) === IGNORED_COLUMN) {
      names.push(undefined)
      return
    }
    const name = canonicalColumn(label)
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
    const near = unknown
      .map((u) => [u, nearestName(u.replace(/^"|"$/g, ''), byForm(KNOWN_COLUMNS))] as const)
      .find(([, n]) => n)
    throw new InputError(
      `${fileLabel}:1: unknown column${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}: expected ${KNOWN_COLUMNS.join(', ')} or tag:<field>`,
      {
        hint:
          noHeaderHint(header) ??
          (near ? `Did you mean "${near[1]}" for ${near[0]}? ` : '') +
            'Rename the header, or pass --map FILE.yaml (see docs/bills.md).',
      },
    )
  }
  const defaults = {}
  const missing = REQUIRED_COLUMNS.filter((c) => index[c] === -1)
  if (missing.length > 0) {
    throw new InputError(
      `${fileLabel}:1: missing required column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (header: ${header.map((h) => h.trim()).join(',')})`,
      {hint: 'Add the column, or pass --map FILE.yaml to name your own headers (see docs/bills.md).'},
    )
  }
  return {header, index, tags, defaults, names}
}
