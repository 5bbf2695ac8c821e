/**
 * Cursor pagination as AsyncIterable: `for await (const invoice of api.invoices.list(...))`
 * streams every page, one page in memory at a time. Commands stop at --limit.
 */
import type {BkClient, QueryValue} from './client.js'
import {CursorTrail} from './cursor-trail.js'
import {pageEnvelope, type Pagination} from './schemas/common.js'
import {z} from './schemas/zod.js'
import {checkShape, parseResponseJson} from './shape.js'
import {MAX_PAGE_SIZE} from '../shared/spec.js'

/**
 * Items checked before the rest are checked with a parser zod generates for the item schema
 * (`z.compile`): a few ms to make, then several times faster per item than zod/mini's own parse,
 * which compiles nothing. An item the generated parser does not pass goes through zod's parse,
 * so a mismatch reports the same issues. A list of a few pages never pays for it; an export does.
 */
const COMPILE_AFTER = 1000

/** A schema, or one still loading: resources load theirs on first use (src/api/api.ts). */
export type SchemaSource<T> = z.ZodMiniType<T> | Promise<z.ZodMiniType<T>>

export interface Page<T> {
  data: T[]
  pagination: Pagination
}

/** Where pages come from: their bodies as text, so that the next can be asked for before one is parsed. */
export interface PageSource {
  /** `pageSize`, when given, replaces the query's page size for this one request. */
  fetchText(pageToken: string | undefined, pageSize?: number): Promise<string>
  /** Resolves once the requests begun so far are on the wire (BkClient.written). */
  written(): Promise<void>
}

export interface PagerOptions {
  /** Start from this cursor instead of the first page. */
  pageToken?: string | undefined
  /** Ask for the next page while the caller works on the current one (for full exports). */
  prefetch?: boolean
  /** Items per request (the query's page size). */
  pageSize?: number | undefined
  /**
   * Hand out at most this many items. The last request asks for exactly the items still wanted,
   * so no page is cut and its next cursor continues at the first item not handed out.
   */
  limit?: number | undefined
}

/**
 * A page's envelope (`{data: unknown[], pagination}`) is checked when it arrives, its items as it
 * is handed out. With prefetch, the next request is on the wire before this page is even parsed:
 * its cursor is read from the text first (`nextPageTokenIn`), and then confirmed by the parse.
 */
export class Pager<T> implements AsyncIterable<T> {
  constructor(
    private readonly source: PageSource,
    private readonly item: SchemaSource<T>,
    /** `GET /path`, for error messages. */
    private readonly what: string,
    private readonly options: PagerOptions = {},
  ) {}

  /** The same pages with their items checked against another schema (one picked from this one). */
  checking<U>(item: z.ZodMiniType<U>): Pager<U> {
    return new Pager(this.source, item, this.what, this.options)
  }

  /** The first page only, with its cursors (manual paging with --page-token). */
  async first(): Promise<Page<T>> {
    const text = this.fetch(this.options.pageToken, this.sizeFor(0))
    const item = await this.item
    return this.checkItems(this.cut(this.parse(await text), 0), item)
  }

  async *pages(): AsyncGenerator<Page<T>> {
    const limit = this.options.limit ?? Number.POSITIVE_INFINITY
    let handed = 0
    // An early request would ask for a page size before the limit's remainder is known.
    const prefetch = this.options.prefetch && this.options.limit === undefined
    let pending: Promise<string> | undefined = this.fetch(this.options.pageToken, this.sizeFor(0))
    let item = await this.item
    let compiled = false
    const trail = new CursorTrail(this.what, this.options.pageToken)
    while (pending) {
      const text: string = await pending
      let early: {token: string; text: Promise<string>} | undefined
      const guess = prefetch ? nextPageTokenIn(text) : undefined
      if (guess) {
        early = {token: guess, text: this.fetch(guess)}
        // This page is parsed and worked on synchronously: the request must leave first.
        await this.source.written()
      }
      const page = this.cut(this.parse(text), handed)
      handed += page.data.length
      const next = handed < limit ? page.pagination.next_page_token : null
      if (next) trail.follow(next)
      pending = undefined
      if (next && early?.token === next) pending = early.text
      else if (next && prefetch) {
        pending = this.fetch(next)
        await this.source.written()
      }
      if (!compiled && handed - page.data.length >= COMPILE_AFTER) {
        item = z.compile(item)
        compiled = true
      }
      yield this.checkItems(page, item)
      // Without prefetch the next request starts only when the caller asks for more.
      if (next && !pending) pending = this.fetch(next, this.sizeFor(handed))
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for await (const page of this.pages()) yield* page.data
  }

  /** The page size to ask for once `handed` items are out: never more than the limit still wants. */
  private sizeFor(handed: number): number | undefined {
    const {limit, pageSize} = this.options
    if (limit === undefined) return pageSize
    return Math.max(1, Math.min(pageSize ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE, limit - handed))
  }

  /**
   * A page holding more than the limit still wants (a service that served more than was asked):
   * cut to the limit, and without a next cursor, since the service's would skip the cut items.
   */
  private cut(page: Page<unknown>, handed: number): Page<unknown> {
    const wanted = (this.options.limit ?? Number.POSITIVE_INFINITY) - handed
    if (page.data.length <= wanted) return page
    return {data: page.data.slice(0, wanted), pagination: {...page.pagination, next_page_token: null}}
  }

  private fetch(pageToken: string | undefined, pageSize?: number): Promise<string> {
    const text = this.source.fetchText(pageToken, pageSize)
    text.catch(() => {}) // surfaced when awaited; a request made early may never be
    return text
  }

  private parse(text: string): Page<unknown> {
    return checkShape(pageEnvelope, parseResponseJson(text, this.what), this.what)
  }

  private checkItems(page: Page<unknown>, schema: z.ZodMiniType<T>): Page<T> {
    return {
      data: page.data.map((item, i) => checkShape(schema, item, this.what, ['data', i])),
      pagination: page.pagination,
    }
  }
}

/**
 * The next-page cursor read from a page's text before it is parsed: the service writes
 * `pagination` after `data`, so it is the last `"next_page_token"` key of the body. A guess only,
 * used to ask early; a guess the parsed page does not confirm costs one unused GET.
 */
export function nextPageTokenIn(text: string): string | undefined {
  const at = text.lastIndexOf('"next_page_token"')
  if (at === -1) return undefined
  const literal = /^"next_page_token"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(text.slice(at, at + 4096))?.[1]
  if (!literal) return undefined
  try {
    return JSON.parse(literal) as string
  } catch {
    return undefined
  }
}

/** A Pager over a list endpoint: `GET path` with `query`, plus each page's `page_token`. */
export function listPager<T>(
  client: BkClient,
  path: string,
  query: Record<string, QueryValue>,
  item: SchemaSource<T>,
  options: PagerOptions = {},
): Pager<T> {
  const source: PageSource = {
    fetchText: async (pageToken, pageSize) => {
      const pageQuery = {...query, page_token: pageToken, ...(pageSize === undefined ? {} : {page_size: pageSize})}
      return (await client.request<string>({method: 'GET', path, query: pageQuery, responseText: true})).data
    },
    written: () => client.written(),
  }
  return new Pager(source, item, `GET ${path}`, options)
}
