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
      const {stringify} = await import('csv-stringify/sync')
      const record = (cells: string[]) => stringify([cells], {record_delimiter: 'unix'})
      const guard = options.rawCsv ? (s: string) => s : neutraliseCell
      // Rows are gathered into chunks of about 64 KB: one write per chunk, not per row.
      let parts = [record(columns.map((c) => c.header))]
      let size = 0
      return {
        async write(item) {
          const line = record(columns.map((c) => guard(cellText(c.get(item)))))
          parts.push(line)
          size += line.length
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
