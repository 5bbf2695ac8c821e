/**
 * The shared behaviour of every list command: one page by default, `--limit N` items, or
 * `--all` pages streamed with flat memory; `--json` returns `{data, pagination}` (or streams one
 * array with --all); otherwise items go through the chosen writer to stdout or --file.
 */
import type {z} from 'zod'

import type {Page, Pager} from '../api/pagination.js'
import {createListWriter, type OutputColumn, type OutputFormat} from './list-writer.js'
import {openSink} from './sink.js'

export interface ListFlags {
  output?: OutputFormat | undefined
  file?: string | undefined
  all?: boolean | undefined
  limit?: number | undefined
  'page-size'?: number | undefined
  'page-token'?: string | undefined
  'raw-csv'?: boolean | undefined
}

/** The format a list is written in: --json, else --output, else a table on a terminal and JSON otherwise. */
export function listFormat(flags: ListFlags, json: boolean): OutputFormat {
  if (json) return 'json'
  const toTerminal = (!flags.file || flags.file === '-') && Boolean(process.stdout.isTTY)
  return flags.output ?? (toTerminal ? 'table' : 'json')
}

/**
 * Whether every page is read: with --all, and for an export (--file, --output csv or ndjson)
 * unless --limit or --page-token asks for part of the list; a file of one page among many
 * would pass for the whole list.
 */
export function readsEveryPage(flags: ListFlags): boolean {
  if (flags.all) return true
  if (flags.limit !== undefined || flags['page-token'] !== undefined) return false
  const toFile = flags.file !== undefined && flags.file !== '-'
  return toFile || flags.output === 'csv' || flags.output === 'ndjson'
}

/**
 * What the list flags ask of a Pager: --page-size, else pages no larger than --limit, else the
 * largest page the service allows when every page is read (the service's default otherwise);
 * prefetch then. The Pager stops at --limit with a cursor at the first item not shown.
 */
export function pagingOptions(flags: ListFlags): {
  pageSize: number | undefined
  pageToken: string | undefined
  prefetch: boolean
  limit: number | undefined
} {
  const every = readsEveryPage(flags)
  const pageSize = flags['page-size'] ?? (every ? 100 : undefined)
  return {pageSize, pageToken: flags['page-token'], prefetch: every, limit: flags.limit}
}

export interface ListResult<T> {
  data: T[]
  pagination: Page<T>['pagination']
}

export interface RunListOptions<T, V = T, R = V> {
  pager: Pager<T>
  /**
   * What csv and table output read of an item (a schema picked from the item's): they check
   * only that, instead of the whole item, which json output prints and so checks.
   */
  view?: z.ZodType<V>
  /** The columns of csv and table output; a function when they depend on the format (a narrower table). */
  columns: Array<OutputColumn<R>> | ((format: OutputFormat) => Array<OutputColumn<R>>)
  flags: ListFlags
  json: boolean
  /** Turns one item into the rows of csv and table output (e.g. one row per invoice line); json and ndjson write the items. */
  rows?: (item: V) => R[]
  /** Told on stderr, for people, when more pages remain. */
  onMore?: (nextPageToken: string) => void
}

export async function runList<T, V = T, R = V>(options: RunListOptions<T, V, R>): Promise<ListResult<T> | undefined> {
  // The Pager stops at --limit itself (pagingOptions), with a cursor at the first item not shown.
  const {pager, flags} = options
  const every = readsEveryPage(flags)
  if (options.json && !every) {
    // One document with the cursors of the last page read, for manual paging.
    const data: T[] = []
    let last: Page<T> | undefined
    for await (const page of pager.pages()) {
      last = page
      data.push(...page.data)
      if (flags.limit === undefined) break
    }
    return {data, pagination: last?.pagination ?? {next_page_token: null, previous_page_token: null}}
  }
  const format = listFormat(flags, options.json)
  const columns = typeof options.columns === 'function' ? options.columns(format) : options.columns
  const writer = await createListWriter<R>(format, await openSink(flags.file), columns, {
    rawCsv: Boolean(flags['raw-csv']),
  })
  const tabular = format === 'csv' || format === 'table'
  const pages: Pager<unknown> = tabular && options.view ? pager.checking(options.view) : pager
  const toRows = tabular ? options.rows : undefined
  let next: string | null = null
  try {
    for await (const page of pages.pages()) {
      next = page.pagination.next_page_token
      const items = page.data
      // Items are V in csv and table output when a view is given, T otherwise (and then V = T).
      await writer.write(toRows ? (items as V[]).flatMap(toRows) : (items as R[]))
      if (!every && flags.limit === undefined) break
    }
    await writer.end()
  } catch (error) {
    await writer.abort()
    throw error
  }
  if (next && !every && options.onMore) options.onMore(next)
  return undefined
}
