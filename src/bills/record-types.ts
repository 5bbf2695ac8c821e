/**
 * Several record types in one file, each with its own header row (`record_types:`, QuickBooks
 * Desktop's IIF): a row whose first cell is a type after the header prefix (`!TRNS`) names that
 * type's columns; a bill row (`TRNS`) begins a bill, each line row (`SPL`) is one of its lines,
 * an end row (`ENDTRNS`) closes it. Each line becomes one row: the bill row's cells, then the
 * line row's, under the header `TRNS.<column>…, SPL.<column>…` (the type cell itself dropped).
 * A type the map does not name is refused; the ones it lists in `skip` are dropped.
 */
import {InputError} from '../shared/errors.js'
import {fitTo, type Flattened, type ReadRecord, type RecordStructure} from './record-structure.js'

type Types = NonNullable<RecordStructure['recordTypes']>

export function joinRecordTypes(label: string, records: ReadRecord[], types: Types): Flattened {
  const headers = new Map<string, ReadRecord>()
  const bills: ReadRecord[][] = []
  let open: {bill: ReadRecord; lines: ReadRecord[]} | undefined
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
    return fitTo(
      label,
      row,
      header.cells.length,
      `the ${types.headerPrefix}${type} header (line ${header.line})`,
    ).slice(1)
  }
  for (const row of records) {
    const type = (row.cells[0] ?? '').trim()
    if (type.startsWith(types.headerPrefix)) {
      headers.set(type.slice(types.headerPrefix.length), row)
      continue
    }
    if (types.skip.includes(type)) continue
    if (type === types.bill) {
      close(row.line)
      open = {bill: {line: row.line, cells: width(type, row)}, lines: []}
    } else if (type === types.line) {
      if (!open)
        throw new InputError(
          `${label}:${row.line}: a ${types.line} record outside a bill: it follows no ${types.bill} record`,
        )
      open.lines.push({line: row.line, cells: [...open.bill.cells, ...width(type, row)]})
    } else if (type === types.end && types.end !== undefined) {
      if (!open)
        throw new InputError(`${label}:${row.line}: an ${types.end} record that closes no ${types.bill} record`)
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
  return {header: {line: first.line, cells: [...named(types.bill), ...named(types.line)]}, bills}
}
