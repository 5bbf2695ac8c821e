/**
 * The writers behind every list command: table (people), json (one array), ndjson (one object a
 * line) and csv. All but the table stream page by page; the table needs its rows for widths.
 * Only the table formats values (amounts to their minor unit, dates): json, ndjson and csv write
 * the service's values exactly as they came, numbers digit for digit (src/api/answer-json.ts;
 * csv without exponents).
 */
import {stringifyExact} from '../shared/exact-json.js'
import type {Sink} from './sink.js'
import type {ColumnKind} from './table.js'

export const OUTPUT_FORMATS = ['table', 'json', 'ndjson', 'csv'] as const
export type OutputFormat = (typeof OUTPUT_FORMATS)[number]

/** A column of list output: its header and how to get its value from an item. */
export interface OutputColumn<T> {
  header: string
  get: (item: T) => unknown
  /** How a table shows it (text when not given): see src/output/table.ts. */
  kind?: ColumnKind | undefined
  /** A table on a narrow terminal drops columns with the lowest priority first; undefined: never. */
  priority?: number | undefined
  /** For an amount: the currency whose minor unit a table shows. */
  currency?: ((item: T) => string | null | undefined) | undefined
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
  /** A table through the user's pager when it is longer than the screen (not with --no-pager). */
  pager?: boolean
  /** json and ndjson: what is written of each item (--fields cuts it down). */
  project?: ((item: unknown) => unknown) | undefined
  /** json: the array inside an object, `{"data": [...], …after()}` (--summary), instead of alone. */
  wrap?: {after: () => Record<string, unknown>} | undefined
}

type Display = typeof import('./display.js')

/** A value as a table shows it: amounts to their currency's minor unit, datetimes shortened. */
function tableCell<T>({cellText, formatAmount, formatDatetime}: Display, column: OutputColumn<T>, item: T): string {
  const value = column.get(item)
  switch (column.kind) {
    case 'amount': {
      const currency = column.currency?.(item)
      return Array.isArray(value)
        ? value.map((v) => formatAmount(v, currency)).join(' ')
        : formatAmount(value, currency)
    }
    case 'date':
      return Array.isArray(value) ? value.map(formatDatetime).join(' ') : formatDatetime(value)
    case undefined:
    case 'text':
    case 'id':
    case 'number':
      return cellText(value)
  }
}

const CSV_CHUNK = 64 * 1024

export async function createListWriter<T>(
  format: OutputFormat,
  sink: Sink,
  columns: Array<OutputColumn<T>>,
  writerOptions: ListWriterOptions = {},
): Promise<ListWriter<T>> {
  switch (format) {
    case 'json':
      return jsonWriter(sink, writerOptions)
    case 'ndjson':
      return ndjsonWriter(sink, writerOptions)
    case 'csv':
      return csvWriter(sink, columns, writerOptions)
    case 'table':
      return tableWriter(sink, columns, writerOptions)
  }
}

/**
 * One JSON array (or `{"data": [...], …}` with `wrap`), streamed a page at a time. Given up
 * part-way on stdout, the array is closed there as it stands, so stdout still parses; with `wrap`
 * the object is closed without `after()`, a summary of part of the list that would pass for the
 * whole (docs/output.md).
 */
function jsonWriter<T>(sink: Sink, {project, wrap}: ListWriterOptions): ListWriter<T> {
  let first = true
  const text = project ? (item: unknown) => stringifyExact(project(item)) : (item: unknown) => stringifyExact(item)
  const open = wrap ? '{"data": [' : '['
  return {
    async write(items) {
      if (!items.length) return
      if (first) sink.endWith(wrap ? '\n]}\n' : '\n]\n')
      await sink.write((first ? `${open}\n` : ',\n') + items.map(text).join(',\n'))
      first = false
    },
    async end() {
      const close = first ? `${open}]` : '\n]'
      const after = wrap
        ? Object.entries(wrap.after())
            .map(([k, v]) => `, ${JSON.stringify(k)}: ${JSON.stringify(v)}`)
            .join('') + '}'
        : ''
      // The document's own end replaces the one kept for giving up, never follows it.
      sink.endWith('')
      await sink.write(close + after + '\n')
      await sink.end()
    },
    abort: () => sink.abort(),
  }
}

/** One JSON object a line. */
function ndjsonWriter<T>(sink: Sink, {project}: ListWriterOptions): ListWriter<T> {
  const line = project
    ? (item: unknown) => stringifyExact(project(item)) + '\n'
    : (item: unknown) => stringifyExact(item) + '\n'
  return {
    write: async (items) => {
      if (items.length) await sink.write(items.map(line).join(''))
    },
    end: () => sink.end(),
    abort: () => sink.abort(),
  }
}

/** CSV with a header row, values as the service sent them, formulas defused unless rawCsv. */
async function csvWriter<T>(
  sink: Sink,
  columns: Array<OutputColumn<T>>,
  {rawCsv}: ListWriterOptions,
): Promise<ListWriter<T>> {
  const {safeCsv} = await import('./safe-csv.js')
  const records = (rows: unknown[][]) => safeCsv(rows, {raw: rawCsv})
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

/** A table for people: rows kept until the end, for the column widths; paged when asked. */
async function tableWriter<T>(
  sink: Sink,
  columns: Array<OutputColumn<T>>,
  writerOptions: ListWriterOptions,
): Promise<ListWriter<T>> {
  // Loaded here, not at the top: flags.ts imports this module, and start-up stays light.
  const display = await import('./display.js')
  const rows: string[][] = []
  return {
    async write(items) {
      for (const item of items) rows.push(columns.map((c) => tableCell(display, c, item)))
    },
    async end() {
      const {renderTable} = await import('./table.js')
      const {colorWanted, terminalWidth} = await import('./terminal.js')
      const toTerminal = sink.isTty
      const lines = renderTable(
        columns.map((c) => ({header: c.header, kind: c.kind ?? 'text', priority: c.priority})),
        rows,
        {width: toTerminal ? terminalWidth() : Number.POSITIVE_INFINITY, color: toTerminal && colorWanted()},
      )
      await writeMaybePaged(sink, rows.length ? lines.join('\n') + '\n' : 'No results.\n', {
        pager: Boolean(writerOptions.pager) && toTerminal,
      })
      await sink.end()
    },
    abort: () => sink.abort(),
  }
}

/** Text for a terminal, through the user's pager when it is longer than the screen and paging is on. */
export async function writeMaybePaged(sink: Sink, text: string, options: {pager: boolean}): Promise<void> {
  if (options.pager) {
    const {pagerCommand, throughPager, wantsPager} = await import('./pager.js')
    const command = pagerCommand()
    if (command && wantsPager(text, true) && (await throughPager(text, command))) return
  }
  await sink.write(text)
}
