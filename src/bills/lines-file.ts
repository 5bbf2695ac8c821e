/**
 * Bill fields in one file, their lines in a second (`lines_file:` and `--lines-file`, NetSuite's
 * vendor bill import), joined on a key column (its External ID). Each bill becomes one row per
 * line: the bill's cells, then the line's, under the bills file's header followed by the lines
 * file's header with each name prefixed `lines.`. A line whose key has no bill, a bill without
 * lines, a blank key or a key given to two bills is refused, naming both files' rows.
 */
import {InputError} from '../shared/errors.js'
import {headerOf} from './columns.js'
import {LINES_PREFIX, fitTo, type FlatRow, type Flattened, type ReadRecord} from './record-structure.js'

interface Side {
  label: string
  records: ReadRecord[]
}

export function joinLinesFile(
  bills: Side,
  lines: Side,
  join: {key: string; lineKey: string},
  aliasOf: ReadonlyMap<string, string>,
): Flattened {
  if (lines.records.length === 0)
    throw new InputError(`${lines.label} (--lines-file) is empty: expected a header row and the bills' lines`)
  const [billHeader, ...billRows] = bills.records as [ReadRecord, ...ReadRecord[]]
  const [lineHeader, ...lineRows] = lines.records as [ReadRecord, ...ReadRecord[]]
  const billKey = keyColumn(bills.label, billHeader, join.key, 'lines_file.key', sameColumn(join.key, aliasOf))
  const lineKey = keyColumn(
    lines.label,
    lineHeader,
    join.lineKey,
    'lines_file.line_key',
    (h) =>
      sameColumn(join.lineKey, aliasOf)(h) ||
      sameColumn(`${LINES_PREFIX}.${join.lineKey}`, aliasOf)(`${LINES_PREFIX}.${h.trim()}`),
  )
  const byKey = new Map<string, ReadRecord[]>()
  for (const row of lineRows) {
    const key = keyValue(lines.label, row, lineKey, lineHeader)
    const cells = fitTo(lines.label, row, lineHeader.cells.length, `the header of ${lines.label}`)
    const group = byKey.get(key)
    if (group) group.push({line: row.line, cells})
    else byKey.set(key, [{line: row.line, cells}])
  }
  const seen = new Map<string, number>()
  const out: FlatRow[][] = []
  for (const row of billRows) {
    const key = keyValue(bills.label, row, billKey, billHeader)
    const earlier = seen.get(key)
    if (earlier !== undefined)
      throw new InputError(
        `${bills.label}:${row.line}: column ${billHeader.cells[billKey]} ${JSON.stringify(key)} is the key of the bill at line ${earlier} too: each bill has its own key`,
      )
    seen.set(key, row.line)
    const group = byKey.get(key)
    if (!group)
      throw new InputError(
        `${bills.label}:${row.line}: the bill with column ${billHeader.cells[billKey]} ${JSON.stringify(key)} has no lines in ${lines.label} (no row with column ${lineHeader.cells[lineKey]} ${JSON.stringify(key)})`,
        {hint: 'Every bill needs at least one line: add its lines to the lines file, or remove the bill.'},
      )
    const billCells = fitTo(bills.label, row, billHeader.cells.length, `the header of ${bills.label}`)
    // The side files hold the bill's row as read; each line's row goes to the lines file's own.
    const records = [{...row, width: billHeader.cells.length}]
    const from = billHeader.cells.length
    out.push(
      group.map((l) => ({
        line: row.line,
        cells: [...billCells, ...l.cells],
        origin: {records, lines: {label: lines.label, record: l, from}},
      })),
    )
  }
  for (const [key, group] of byKey) {
    if (seen.has(key)) continue
    throw new InputError(
      `${lines.label}:${group[0]!.line}: column ${lineHeader.cells[lineKey]} ${JSON.stringify(key)} names no bill in ${bills.label} (no row with column ${billHeader.cells[billKey]} ${JSON.stringify(key)})`,
      {hint: 'A line belongs to the bill with the same key: add the bill to the bills file, or remove its lines.'},
    )
  }
  const header = {
    line: billHeader.line,
    cells: [...billHeader.cells, ...lineHeader.cells.map((h) => `${LINES_PREFIX}.${h.trim()}`)],
  }
  return {header, bills: out, readHeader: [billHeader], linesHeader: {label: lines.label, record: lineHeader}}
}

/**
 * A header cell that is the map's column `name`, compared as every column of a map is: by
 * headerKey (case, spaces, a trailing `.`), or as one of its `aliases:`. The lines file's key
 * answers to the bills file's aliases of the name and to the aliases of `lines.<name>`.
 */
function sameColumn(name: string, aliasOf: ReadonlyMap<string, string>): (cell: string) => boolean {
  const want = headerOf(aliasOf, name)
  return (cell) => headerOf(aliasOf, cell) === want
}

function keyColumn(
  label: string,
  header: ReadRecord,
  name: string,
  mapKey: string,
  matches: (cell: string) => boolean,
): number {
  const i = header.cells.findIndex(matches)
  if (i === -1)
    throw new InputError(
      `${label}:${header.line}: no column ${JSON.stringify(name)} (the map's ${mapKey}) in the header`,
      {
        hint: `The header has: ${header.cells.join(', ')}.`,
      },
    )
  return i
}

function keyValue(label: string, row: ReadRecord, at: number, header: ReadRecord): string {
  const key = (row.cells[at] ?? '').trim()
  if (key === '')
    throw new InputError(`${label}:${row.line}: column ${header.cells[at]} is blank: it joins each line to its bill`)
  return key
}
