/**
 * The writers behind every list command: table (people), json (one array), ndjson (one object a
 * line) and csv. All but the table stream page by page; the table needs its rows for widths.
 */
import type {Options} from 'csv-stringify/sync'

import type {Sink} from './sink.js'

export const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv'] as const
export type OutputFormat = (typeof OUTPUT_FORMATS)[number]

/** A column of list output: its header and how to get its value from an item. */
export interface OutputColumn<T> {
  header: string
  get: (item: T) => unknown
}

/** Written a page at a time: one call (and one await) per page, not per row. */
export interface ListWriter<T> {
  write(items: readonly T[]): Promise<void>
  end(): Promise<void>
  /** After a failure: nothing more is written, and a --file is left as it was. */
  abort(): Promise<void>
}

export interface ListWriterOptions {
  /** Turn off the spreadsheet-formula guard (--raw-csv). */
  rawCsv?: boolean
}

/** Text of a cell: numbers and strings as they are, objects as JSON, nothing for null. */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

const CSV_CHUNK = 64 * 1024

export async function createListWriter<T>(
  format: OutputFormat,
  sink: Sink,
  columns: Array<OutputColumn<T>>,
  writerOptions: ListWriterOptions = {},
): Promise<ListWriter<T>> {
  switch (format) {
    case 'json': {
      let first = true
      return {
        async write(items) {
          if (!items.length) return
          await sink.write((first ? '[\n' : ',\n') + items.map((item) => JSON.stringify(item)).join(',\n'))
          first = false
        },
        async end() {
          await sink.write(first ? '[]\n' : '\n]\n')
          await sink.end()
        },
        abort: () => sink.abort(),
      }
    }
    case 'ndjson':
      return {
        write: async (items) => {
          if (items.length) await sink.write(items.map((item) => JSON.stringify(item) + '\n').join(''))
        },
        end: () => sink.end(),
        abort: () => sink.abort(),
      }
    case 'csv': {
      const {stringify} = await import('csv-stringify/sync')
      const csvOptions: Options = {
        record_delimiter: 'unix',
        // Spreadsheet safety (OWASP "CSV injection"): text starting with =, +, -, @, a tab or a
        // carriage return (or a full-width =, +, -, @) gets a leading apostrophe; a number is not
        // a formula, so a negative amount stays a number.
        escape_formulas: !writerOptions.rawCsv,
        cast: {boolean: String},
      }
      const records = (rows: unknown[][]) => stringify(rows, csvOptions)
      // Pages are gathered into chunks of about 64 KB: one write per chunk.
      let parts = [records([columns.map((c) => c.header)])]
      let size = 0
      return {
        async write(items) {
          const text = records(items.map((item) => columns.map((c) => c.get(item))))
          parts.push(text)
          size += text.length
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
        abort: () => sink.abort(),
      }
    }
    case 'table': {
      const rows: string[][] = []
      return {
        async write(items) {
          for (const item of items) rows.push(columns.map((c) => cellText(c.get(item))))
        },
        async end() {
          const {default: Table} = await import('cli-table3')
          const table = new Table({
            head: columns.map((c) => c.header),
            style: {head: sink.isTty ? ['cyan'] : [], border: sink.isTty ? ['grey'] : []},
          })
          table.push(...rows)
          await sink.write(rows.length ? table.toString() + '\n' : 'No results.\n')
          await sink.end()
        },
        abort: () => sink.abort(),
      }
    }
  }
}
