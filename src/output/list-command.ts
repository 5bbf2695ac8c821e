/**
 * The shared behaviour of every list command: one page by default, `--limit N` items, or
 * `--all` pages streamed with flat memory; `--json` returns `{data, pagination}` (or streams one
 * array with --all, gathered instead for --jq); otherwise items go through the chosen writer to
 * stdout or --file. --fields chooses the columns and cuts the JSON objects; --summary counts.
 */
import type {z} from 'zod/mini'

import type {Page, Pager} from '../api/pagination.js'
import {ApiError} from '../api/errors.js'
import {InputError, withHint} from '../shared/errors.js'
import type {ListSummary, SummaryBuilder} from '../records/summary.js'
import {kindOfPath, projector, valueAt, type FieldInfo} from './field-paths.js'
import {createListWriter, OUTPUT_FORMATS, type OutputColumn, type OutputFormat} from './list-writer.js'
import {chooseFormat, FORMAT_NAMES, writesFile} from './output-format.js'
import {counted} from '../shared/counts.js'
import {openSink} from './sink.js'
import {terminalWidth} from './terminal.js'

export interface ListFlags {
  output?: OutputFormat | undefined
  file?: string | undefined
  all?: boolean | undefined
  limit?: number | undefined
  'page-size'?: number | undefined
  'page-token'?: string | undefined
  'raw-csv'?: boolean | undefined
  'no-pager'?: boolean | undefined
}

/**
 * The format a list is written in: --json, else --output, else the --file name's extension,
 * else a table on a terminal and JSON otherwise (src/output/output-format.ts).
 */
export function listFormat(flags: ListFlags, json: boolean): OutputFormat {
  return chooseFormat(flags, json, OUTPUT_FORMATS)
}

/**
 * Whether every page is read: with --all, and for an export (--file, --output csv or ndjson)
 * unless --limit or --page-token asks for part of the list; a file of one page among many
 * would pass for the whole list.
 */
export function readsEveryPage(flags: ListFlags): boolean {
  if (flags.all) return true
  if (flags.limit !== undefined || flags['page-token'] !== undefined) return false
  return writesFile(flags) || flags.output === 'csv' || flags.output === 'ndjson'
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
  /** With --summary. */
  summary?: ListSummary
}

/** What a list command's --json prints when it is not streamed: one page, or with --jq every item. */
export type ListJson<T> = ListResult<T> | T[] | {data: T[]; summary: ListSummary}

/** --fields, already checked against the record's fields (src/output/field-paths.ts). */
export interface ChosenFields<R> {
  paths: string[]
  catalog: readonly FieldInfo[]
  /** The value of a path in an output row, when rows are not the items (one row per invoice line). */
  get?: ((row: R, path: string) => unknown) | undefined
  /** The currency of a row's amounts, for a table. */
  currency?: ((row: R) => string | null | undefined) | undefined
}

export interface RunListOptions<T, V = T, R = V> {
  pager: Pager<T>
  /**
   * What csv and table output read of an item (a schema picked from the item's): they check
   * only that, instead of the whole item, which json output prints and so checks.
   */
  view?: z.ZodMiniType<V>
  /** The columns of csv and table output; a function when they depend on the format (a narrower table). */
  columns: Array<OutputColumn<R>> | ((format: OutputFormat) => Array<OutputColumn<R>>)
  flags: ListFlags
  json: boolean
  /** Turns one item into the rows of csv and table output (e.g. one row per invoice line); json and ndjson write the items. */
  rows?: (item: V) => R[]
  /** Told on stderr, for people, when more pages remain. */
  onMore?: (nextPageToken: string) => void
  /** --fields: the columns of csv and table output, and what json and ndjson keep of each item. */
  fields?: ChosenFields<R> | undefined
  /** --summary: fed every item listed; on stderr for people, inside the JSON result. */
  summary?: SummaryBuilder | undefined
  /**
   * --jq: the whole JSON result is gathered and returned, never streamed, so that the expression
   * runs once over every item (with --all too), not once a page.
   */
  collect?: boolean | undefined
  /** What the items are, one and several (`invoice`, `invoices`), for the line saying what was written to --file. */
  noun?: readonly [string, string]
}

/** The JSON result (its items cut to the --fields paths when given), or undefined once streamed. */
export async function runList<T, V = T, R = V>(options: RunListOptions<T, V, R>): Promise<ListJson<T> | undefined> {
  // The Pager stops at --limit itself (pagingOptions), with a cursor at the first item not shown.
  const {pager, flags, summary, fields} = options
  const every = readsEveryPage(flags)
  const project = fields ? projector(fields.paths) : undefined
  // With --fields the items are cut to the chosen paths: still T's fields, just fewer of them.
  const cut = (items: T[]): T[] => (project ? (items.map(project) as T[]) : items)
  if (options.json && (!every || options.collect)) {
    // One document: with cursors for manual paging, or every item (--jq --all).
    const data: T[] = []
    let first: Page<T> | undefined
    let last: Page<T> | undefined
    for await (const page of pager.pages()) {
      first ??= page
      last = page
      summary?.add(page.data)
      data.push(...cut(page.data))
      if (!every && flags.limit === undefined) break
    }
    if (every) return summary ? {data, summary: summary.result()} : data
    // The cursors around the items shown, read over several pages with --limit: the last page's
    // next, and the first page's previous; the last page's previous would point into them.
    return {
      data,
      pagination:
        first && last
          ? {...last.pagination, previous_page_token: first.pagination.previous_page_token}
          : {next_page_token: null, previous_page_token: null},
      ...(summary ? {summary: summary.result()} : {}),
    }
  }
  const format = listFormat(flags, options.json)
  const columns = fields
    ? fields.paths.map((path): OutputColumn<R> => ({
        header: path,
        get: fields.get ? (row) => fields.get?.(row, path) : (row) => valueAt(row, path),
        kind: kindOfPath(path, fields.catalog),
        currency: fields.currency,
      }))
    : typeof options.columns === 'function'
      ? options.columns(format)
      : options.columns
  const writer = await createListWriter<R>(format, await openSink(flags.file), columns, {
    rawCsv: Boolean(flags['raw-csv']),
    pager: !flags['no-pager'],
    project: project as ((item: unknown) => unknown) | undefined,
    wrap: summary ? {after: () => ({summary: summary.result()})} : undefined,
  })
  const tabular = format === 'csv' || format === 'table'
  // With --fields any field may be printed: the whole item is checked.
  const pages: Pager<unknown> = tabular && options.view && !fields ? pager.checking(options.view) : pager
  const toRows = tabular ? options.rows : undefined
  let next: string | null = null
  let written = 0
  try {
    for await (const page of pages.pages()) {
      next = page.pagination.next_page_token
      const items = page.data
      written += items.length
      summary?.add(items)
      // Items are V in csv and table output when a view is given, T otherwise (and then V = T).
      await writer.write(toRows ? (items as V[]).flatMap(toRows) : (items as R[]))
      if (!every && flags.limit === undefined) break
    }
    await writer.end()
  } catch (error) {
    await writer.abort()
    throw flags['page-token'] === undefined ? error : withPageTokenHint(error)
  }
  if (summary && !options.json) process.stderr.write(summary.text(terminalWidth(process.stderr)))
  if (writesFile(flags) && !options.json) {
    const [one, several] = options.noun ?? ['item', 'items']
    process.stderr.write(`Wrote ${counted(written, one, several)} as ${FORMAT_NAMES[format]} to ${flags.file}.\n`)
  }
  if (next && !every && options.onMore) options.onMore(next)
  return undefined
}

/**
 * The service refusing the cursor the user gave (422, naming `page_token`): the hint names the
 * flag it came from, and what makes a cursor fit (it belongs to the query that printed it).
 */
function withPageTokenHint(error: unknown): unknown {
  if (!(error instanceof ApiError) || error.status !== 422) return error
  if (!JSON.stringify(error.body ?? null).includes('page_token')) return error
  return withHint(
    error,
    'The --page-token given does not fit this listing: pass it with the same filters as the listing that printed it, or leave it out to start from the first page.',
  )
}

/**
 * The output flags, checked before any request: --jq filters the JSON result on stdout, so it is
 * refused with another --output or a --file, which it would silently override; --json with
 * another --output, and a --file whose name gives no format, are refused too (listFormat).
 */
export function checkOutputFlags(flags: ListFlags, jq: boolean, json: boolean): void {
  if (jq) {
    if (flags.output !== undefined && flags.output !== 'json')
      throw new InputError(`--jq filters JSON output, not --output ${flags.output}`, {
        hint: 'Drop --output (or give --output json).',
        details: {flag: '--output', value: flags.output},
      })
    if (flags.file !== undefined && flags.file !== '-')
      throw new InputError('--jq writes to stdout, not to --file', {
        hint: 'Redirect stdout to the file instead: > FILE.',
        details: {flag: '--file', value: flags.file},
      })
  }
  listFormat(flags, json)
}
