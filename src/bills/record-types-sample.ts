/**
 * A sample's records joined by record type (QuickBooks Desktop's IIF), for `bk bills maps init`:
 * both to try a preset with `record_types:` and to write a starter map for an IIF file whose
 * column names bk has never seen. The record markers (`!TRNS`, `TRNS`, `SPL`, `ENDTRNS`) are the
 * format itself, so they are recognised by name; the columns under them are the file's own.
 */
import {BkError} from '../shared/errors.js'
import type {FileSample} from './file-sample.js'
import type {RecordStructure} from './record-structure.js'
import {joinRecordTypes} from './record-types.js'

type Types = NonNullable<RecordStructure['recordTypes']>

/** IIF's list records (Intuit, "IIF file headers"): an export may carry them beside its transactions. */
const IIF_LISTS = ['HDR', 'ACCNT', 'VEND', 'CUST', 'OTHERNAME', 'EMP', 'CLASS', 'INVITEM', 'TERMS', 'CTYPE', 'VTYPE']

/**
 * The record types of an IIF file: one with `!TRNS` and `!SPL` header rows. The types to skip
 * are IIF's list records and any other type the sample holds, as the QuickBooks Desktop preset
 * skips them. Undefined for any other file.
 */
export function iifRecordTypes(records: readonly string[][]): Types | undefined {
  const firsts = new Set(records.map((r) => (r[0] ?? '').trim()))
  if (!firsts.has('!TRNS') || !firsts.has('!SPL')) return undefined
  const roles = ['TRNS', 'SPL', 'ENDTRNS']
  const seen = [...firsts].map((f) => f.replace(/^!/, '')).filter((t) => t !== '' && !roles.includes(t))
  return {
    bill: 'TRNS',
    line: 'SPL',
    end: firsts.has('!ENDTRNS') ? 'ENDTRNS' : undefined,
    skip: [...new Set([...IIF_LISTS, ...seen])],
    headerPrefix: '!',
  }
}

/**
 * The records after `skipLines` joined by `types`: one header (`TRNS.<column>…, SPL.<column>…`)
 * and a row per line. A sample cut short may end inside a bill: it is read up to the last bill it
 * holds whole. Undefined when the records do not have that structure.
 */
export function joinSample(
  sample: FileSample,
  skipLines: number,
  types: Types,
): {header: string[]; rows: string[][]} | undefined {
  let records = sample.records.slice(skipLines)
  if (!sample.complete) {
    const lastBill = records.findLastIndex((r) => (r[0] ?? '').trim() === types.bill)
    if (lastBill > 0) records = records.slice(0, lastBill)
  }
  try {
    const flat = joinRecordTypes(
      sample.file,
      records.map((cells, i) => ({line: skipLines + i + 1, cells})),
      types,
    )
    return {header: flat.header.cells, rows: flat.bills.flat().map((r) => r.cells)}
  } catch (error) {
    if (error instanceof BkError) return undefined
    throw error
  }
}
