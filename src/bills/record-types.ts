/**
 * Several record types in one file, each with its own header row (`record_types:`, QuickBooks
 * Desktop's IIF): a row whose first cell is a type after the header prefix (`!TRNS`) names that
 * type's columns; a bill row (`TRNS`) begins a bill, each line row (`SPL`) is one of its lines,
 * an end row (`ENDTRNS`) closes it. Each line becomes one row: the bill row's cells, then the
 * line row's, under the header `TRNS.<column>…, SPL.<column>…` (the type cell itself dropped).
 * A type the map does not name is refused; the ones it lists in `skip` are dropped.
 */
import {InputError} from '../shared/errors.js'
import {IGNORED_COLUMN, headerKey} from './columns.js'
import {
  fitTo,
  type FlatRow,
  type Flattened,
  type ReadRecord,
  type RecordStructure,
  type RowOrigin,
} from './record-structure.js'

type Types = NonNullable<RecordStructure['recordTypes']>

export function joinRecordTypes(label: string, records: ReadRecord[], types: Types): Flattened {
  const headers = new Map<string, ReadRecord>()
  const bills: FlatRow[][] = []
  let open: {bill: ReadRecord; lines: FlatRow[]; origin: RowOrigin} | undefined
  // Types whose header row ends with bk's reason column: the width before it.
  const reasonsAt = new Map<string, number>()
  // The bill's records as read, each under its type's header width, for the side files.
  // A row of a rejects file read again leaves its old reason behind.
  const asRead = (row: ReadRecord) => {
    const type = (row.cells[0] ?? '').trim()
    const at = reasonsAt.get(type)
    const cells = at === undefined ? row.cells : row.cells.slice(0, at)
    return {line: row.line, cells, width: headers.get(type)?.cells.length ?? cells.length}
  }
  const close = (at: number | undefined) => {
    if (!open) return
    if (open.lines.length === 0)
      throw new InputError(
        `${label}:${open.bill.line}: the ${types.bill} record has no ${types.line} record before ${at === undefined ? 'the end of the file' : `line ${at}`}: a bill needs at least one line`,
      )
    bills.push(open.lines)
    open = undefined
  }
  const width = (type: string, row: ReadRecord) => {
    const header = headers.get(type)
    if (!header)
      throw new InputError(
        `${label}:${row.line}: a ${type} record before the header row naming its columns (${types.headerPrefix}${type})`,
      )
    const at = reasonsAt.get(type)
    return fitTo(
      label,
      at === undefined ? row : {line: row.line, cells: row.cells.slice(0, at)},
      header.cells.length,
      `the ${types.headerPrefix}${type} header (line ${header.line})`,
    ).slice(1)
  }
  for (const row of records) {
    const type = (row.cells[0] ?? '').trim()
    if (type.startsWith(types.headerPrefix)) {
      const own = withoutReasons(row)
      headers.set(type.slice(types.headerPrefix.length), own)
      if (own !== row) reasonsAt.set(type.slice(types.headerPrefix.length), own.cells.length)
      continue
    }
    if (types.skip.includes(type)) continue
    if (type === types.bill) {
      close(row.line)
      open = {bill: {line: row.line, cells: width(type, row)}, lines: [], origin: {records: [asRead(row)]}}
    } else if (type === types.line) {
      if (!open)
        throw new InputError(
          `${label}:${row.line}: a ${types.line} record outside a bill: it follows no ${types.bill} record`,
        )
      open.origin.records.push(asRead(row))
      open.lines.push({line: row.line, cells: [...open.bill.cells, ...width(type, row)], origin: open.origin})
    } else if (type === types.end && types.end !== undefined) {
      if (!open)
        throw new InputError(`${label}:${row.line}: an ${types.end} record that closes no ${types.bill} record`)
      open.origin.records.push(asRead(row))
      close(row.line)
    } else {
      const known = [types.bill, types.line, types.end, ...types.skip].filter(Boolean).join(', ')
      throw new InputError(
        `${label}:${row.line}: the record type ${JSON.stringify(type)} is not one the map reads (${known})`,
        {
          hint: 'List the record types to drop without a word in record_types.skip.',
        },
      )
    }
  }
  if (open && types.end)
    throw new InputError(
      `${label}:${open.bill.line}: the ${types.bill} record is never closed by an ${types.end} record`,
    )
  close(undefined)
  const named = (type: string) => {
    const header = headers.get(type)
    if (!header) throw new InputError(`${label}: no header row naming the columns of ${types.headerPrefix}${type}`)
    return header.cells.slice(1).map((h) => `${type}.${h.trim()}`)
  }
  if (bills.length === 0) throw new InputError(`${label}: no ${types.bill} record: the file holds no bill`)
  const first = headers.get(types.bill)!
  const readHeader = [...headers.entries()]
    .filter(([type]) => type === types.bill || type === types.line || type === types.end)
    .map(([, header]) => header)
  return {header: {line: first.line, cells: [...named(types.bill), ...named(types.line)]}, bills, readHeader}
}

/**
 * A header row without bk's reason column: the rejects file of an IIF import adds `error` to each
 * type's header row, and the file imports again as it is (the column is read as no field).
 */
function withoutReasons(header: ReadRecord): ReadRecord {
  const last = header.cells.length - 1
  if (last < 1 || headerKey(header.cells[last]!) !== IGNORED_COLUMN) return header
  return {line: header.line, cells: header.cells.slice(0, last)}
}
