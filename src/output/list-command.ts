/**
 * The shared behaviour of every list command: one page by default, `--limit N` items, or
 * `--all` pages streamed with flat memory; `--json` returns `{data, pagination}` (or streams one
 * array with --all); otherwise items go through the chosen writer to stdout or --file.
 */
import type {Page, Pager} from '../api/pagination.js'
import {createListWriter, type Column, type OutputFormat} from './list-writer.js'
import {openSink} from './sink.js'

export interface ListFlags {
  output?: OutputFormat | undefined
  file?: string | undefined
  all?: boolean | undefined
  limit?: number | undefined
  'raw-csv'?: boolean | undefined
}

export interface ListResult<T> {
  data: T[]
  pagination: Page<T>['pagination']
}

export interface RunListOptions<T, R = T> {
  pager: Pager<T>
  columns: Array<Column<R>>
  flags: ListFlags
  json: boolean
  /** Turns one item into the rows written (e.g. one CSV row per invoice line). */
  rows?: (item: T) => R[]
  /** Told on stderr, for people, when more pages remain. */
  onMore?: (nextPageToken: string) => void
}

export async function runList<T, R = T>(options: RunListOptions<T, R>): Promise<ListResult<T> | undefined> {
  const {pager, flags} = options
  const limit = flags.limit ?? Number.POSITIVE_INFINITY
  if (options.json && !flags.all) {
    // One document with the cursors of the last page read, for manual paging.
    const data: T[] = []
    let last: Page<T> | undefined
    for await (const page of pager.pages()) {
      last = page
      data.push(...page.data.slice(0, limit - data.length))
      if (flags.limit === undefined || data.length >= limit) break
    }
    return {data, pagination: last?.pagination ?? {next_page_token: null, previous_page_token: null}}
  }
  const sink = openSink(flags.file)
  const format: OutputFormat = options.json ? 'json' : (flags.output ?? (sink.isTty ? 'table' : 'json'))
  const writer = await createListWriter<R>(format, sink, options.columns, {rawCsv: Boolean(flags['raw-csv'])})
  let count = 0
  let next: string | null = null
  outer: for await (const page of pager.pages()) {
    next = page.pagination.next_page_token
    for (const item of page.data) {
      if (count >= limit) break outer
      count++
      for (const row of options.rows ? options.rows(item) : [item as unknown as R]) await writer.write(row)
    }
    if (!flags.all && flags.limit === undefined) break
    if (count >= limit) break
  }
  await writer.end()
  if (next && !flags.all && options.onMore) options.onMore(next)
  return undefined
}
