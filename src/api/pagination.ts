/**
 * Cursor pagination as AsyncIterable: `for await (const invoice of api.invoices.list(...))`
 * streams every page, one page in memory at a time. Commands stop at --limit.
 */
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
  constructor(private readonly fetchPage: FetchPage<T>, private readonly options: PagerOptions = {}) {}

  /** The first page only, with its cursors (manual paging with --page-token). */
  first(): Promise<Page<T>> {
    return this.fetchPage(this.options.pageToken)
  }

  async *pages(): AsyncGenerator<Page<T>> {
    let pending: Promise<Page<T>> | undefined = this.fetchPage(this.options.pageToken)
    while (pending) {
      const page: Page<T> = await pending
      const next = page.pagination.next_page_token
      // Without prefetch the next request starts only when the caller asks for more.
      pending = next && this.options.prefetch ? this.fetchPage(next) : undefined
      pending?.catch(() => {}) // surfaced when awaited; avoids an unhandled rejection if the caller stops early
      yield page
      if (next && !pending) pending = this.fetchPage(next)
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for await (const page of this.pages()) yield* page.data
  }
}
