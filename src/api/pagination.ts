/**
 * Cursor pagination as AsyncIterable: `for await (const invoice of api.invoices.list(...))`
 * streams every page, one page in memory at a time. Commands stop at --limit.
 */
import type {z} from 'zod'

import {ResponseShapeError} from './errors.js'
import type {Pagination} from './schemas/common.js'

export interface Page<T> {
  data: T[]
  pagination: Pagination
}

export type FetchPage<T> = (pageToken: string | undefined, signal?: AbortSignal) => Promise<Page<T>>

export interface PagerOptions {
  /** Start from this cursor instead of the first page. */
  pageToken?: string | undefined
  /** Fetch the next page while the caller works on the current one (for full exports). */
  prefetch?: boolean
}

/**
 * Pages are read with only their envelope checked (`{data: unknown[], pagination}`); the items
 * are checked against their schema as each page is handed out. With prefetch the next request
 * is then already on its way while this page's items are checked.
 */
export class Pager<T> implements AsyncIterable<T> {
  constructor(
    private readonly fetchPage: FetchPage<unknown>,
    private readonly item: z.ZodType<T>,
    /** `GET /path`, for error messages. */
    private readonly what: string,
    private readonly options: PagerOptions = {},
  ) {}

  /** The first page only, with its cursors (manual paging with --page-token). */
  async first(): Promise<Page<T>> {
    return this.check(await this.fetchPage(this.options.pageToken))
  }

  async *pages(): AsyncGenerator<Page<T>> {
    let pending: Promise<Page<unknown>> | undefined = this.fetchPage(this.options.pageToken)
    while (pending) {
      const raw: Page<unknown> = await pending
      const next = raw.pagination.next_page_token
      // Without prefetch the next request starts only when the caller asks for more.
      pending = next && this.options.prefetch ? this.fetchPage(next) : undefined
      pending?.catch(() => {}) // surfaced when awaited; avoids an unhandled rejection if the caller stops early
      // Let the event loop send that request before this page is worked on (synchronously).
      if (pending) await new Promise((resolve) => setImmediate(resolve))
      yield this.check(raw)
      if (next && !pending) pending = this.fetchPage(next)
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for await (const page of this.pages()) yield* page.data
  }

  /** Parses each item with its schema; a mismatch names the field path (`data.3.lines.0.amount`). */
  private check(page: Page<unknown>): Page<T> {
    const data = page.data.map((item, i) => {
      const result = this.item.safeParse(item)
      if (result.success) return result.data
      const issue = result.error.issues[0]
      const at = ['data', i, ...(issue?.path ?? [])].join('.')
      throw new ResponseShapeError(`Unexpected response from ${this.what}: field ${at}: ${issue?.message ?? 'invalid'}`, {
        issues: result.error.issues.slice(0, 5).map((x) => ({path: ['data', i, ...x.path].join('.'), message: x.message})),
      })
    })
    return {data, pagination: page.pagination}
  }
}
