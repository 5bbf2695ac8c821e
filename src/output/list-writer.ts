/**
 * The writers behind every list command: table (people), json (one array), ndjson (one object a
 * line) and csv. All but the table stream item by item; the table needs its rows for widths.
 */
import {neutraliseCell} from './csv-guard.js'
import type {Sink} from './sink.js'

export const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv'] as const
export type OutputFormat = (typeof OUTPUT_FORMATS)[number]

export interface Column<T> {
  header: string
  get: (item: T) => unknown
}

export interface ListWriter<T> {
  write(item: T): Promise<void>
  end(): Promise<void>
}

export interface ListWriterOptions {
  /** Turn off the spreadsheet-formula guard (--raw-csv). */
  rawCsv?: boolean
}

/** Text of a cell: numbers and strings as they are, objects as JSON, nothing for null. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

const CSV_CHUNK = 64 * 1024
const NEEDS_QUOTES = /[",\r\n]/

/** One RFC 4180 record (as csv-stringify writes it): a cell is quoted when it holds a comma, quote or line break. */
export function csvRecord(cells: string[]): string {
  return cells.map(csvCell).join(',') + '\n'
}

function csvCell(cell: string): string {
  return NEEDS_QUOTES.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell
}

export async function createListWriter<T>(format: OutputFormat, sink: Sink, columns: Array<Column<T>>, options: ListWriterOptions = {}): Promise<ListWriter<T>> {
  switch (format) {
    case 'json': {
      let first = true
      return {
        async write(item) {
          await sink.write((first ? '[\n' : ',\n') + JSON.stringify(item))
          first = false
        },
        async end() {
          await sink.write(first ? '[]\n' : '\n]\n')
          await sink.end()
        },
      }
    }
    case 'ndjson':
      return {
        write: (item) => sink.write(JSON.stringify(item) + '\n'),
        end: () => sink.end(),
      }
    case 'csv': {
      const guard = options.rawCsv ? (s: string) => s : neutraliseCell
      // Rows are gathered into chunks of about 64 KB: one write per chunk, not per row.
      let parts = [csvRecord(columns.map((c) => c.header))]
      let size = 0
      return {
        async write(item) {
          let record = ''
          for (let i = 0; i < columns.length; i++) record += (i ? ',' : '') + csvCell(guard(cellText((columns[i] as Column<T>).get(item))))
          record += '\n'
          parts.push(record)
          size += record.length
          if (size >= CSV_CHUNK) {
            const chunk = parts.join('')
            parts = []
            size = 0
            await sink.write(chunk)
          }
        },
        async end() {
          if (parts.length) await sink.write(parts.join(''))
          await sink.end()
        },
      }
    }
    case 'table': {
      const rows: string[][] = []
      return {
        async write(item) {
          rows.push(columns.map((c) => cellText(c.get(item))))
        },
        async end() {
          const {default: Table} = await import('cli-table3')
          const table = new Table({head: columns.map((c) => c.header), style: {head: sink.isTty ? ['cyan'] : [], border: sink.isTty ? ['grey'] : []}})
          table.push(...rows)
          await sink.write(rows.length ? table.toString() + '\n' : 'No results.\n')
          await sink.end()
        },
      }
    }
  }
}
