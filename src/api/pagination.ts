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

export class Pager<T> implements AsyncIterable<T> {
  private readonly fetchPage: FetchPage<unknown>
  private readonly finish: (page: Page<unknown>) => Page<T>

  /**
   * `finish`, when given, checks the items of a page fetched with only its envelope checked:
   * with prefetch the next request is then sent before the items are checked, so checking
   * overlaps the wait for the next page.
   */
  constructor(fetchPage: FetchPage<T>, options?: PagerOptions)
  constructor(fetchPage: FetchPage<unknown>, options: PagerOptions, finish: (page: Page<unknown>) => Page<T>)
  constructor(fetchPage: FetchPage<unknown>, private readonly options: PagerOptions = {}, finish?: (page: Page<unknown>) => Page<T>) {
    this.fetchPage = fetchPage
    this.finish = finish ?? ((page) => page as Page<T>)
  }

  /** The first page only, with its cursors (manual paging with --page-token). */
  async first(): Promise<Page<T>> {
    return this.finish(await this.fetchPage(this.options.pageToken))
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
      yield this.finish(raw)
      if (next && !pending) pending = this.fetchPage(next)
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for await (const page of this.pages()) yield* page.data
  }
}

/**
 * A `finish` for Pager: parses each item of a page with its schema; a mismatch names the
 * field path (`data.3.lines.0.amount`) like the client's own response check.
 */
export function checkItems<T>(schema: z.ZodType<T>, what: string): (page: Page<unknown>) => Page<T> {
  return (page) => {
    const data = page.data.map((item, i) => {
      const result = schema.safeParse(item)
      if (result.success) return result.data
      const issue = result.error.issues[0]
      const at = ['data', i, ...(issue?.path ?? [])].join('.')
      throw new ResponseShapeError(`Unexpected response from ${what}: field ${at}: ${issue?.message ?? 'invalid'}`, {
        issues: result.error.issues.slice(0, 5).map((x) => ({path: ['data', i, ...x.path].join('.'), message: x.message})),
      })
    })
    return {data, pagination: page.pagination}
  }
}
