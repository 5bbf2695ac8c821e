/**
 * Opaque cursor pagination in both directions over lists kept in id order. A cursor names the
 * id it continues from and the filter it was made for, so rows added between pages neither
 * repeat nor vanish, and a cursor used with other filters is refused.
 */
import {createHash} from 'node:crypto'

import {HttpError} from './http.js'

interface Cursor {
  /** Continue after this id (next) or before it (previous). */
  after?: string
  before?: string
  /** Hash of the filters the cursor belongs to. */
  f: string
}

export interface PageResult<T> {
  data: T[]
  pagination: {next_page_token: string | null; previous_page_token: string | null}
}

export function filterKey(filters: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(filters ?? null))
    .digest('base64url')
    .slice(0, 12)
}

function encode(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url')
}

function decode(token: string, f: string): Cursor {
  let cursor: Cursor
  try {
    cursor = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Cursor
  } catch {
    throw new HttpError(422, 'Invalid page_token', {field: 'page_token', value: token})
  }
  if (
    typeof cursor !== 'object' ||
    !cursor ||
    (typeof cursor.after !== 'string' && typeof cursor.before !== 'string')
  ) {
    throw new HttpError(422, 'Invalid page_token', {field: 'page_token', value: token})
  }
  if (cursor.f !== f)
    throw new HttpError(422, 'page_token belongs to a query with other filters', {field: 'page_token'})
  return cursor
}

/** Index of the first item whose id is greater than `id` (items sorted by id). */
function upperBound<T extends {id: string}>(items: readonly T[], id: string): number {
  let lo = 0
  let hi = items.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((items[mid] as T).id <= id) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * One page of `items` (sorted by id) that pass `keep`, from the cursor in `pageToken`.
 * Scans only as far as it must, so deep pages of large lists stay cheap.
 */
export function paginate<T extends {id: string}>(
  items: readonly T[],
  options: {pageSize: number; pageToken?: string | null | undefined; filters?: unknown; keep?: (item: T) => boolean},
): PageResult<T> {
  const f = filterKey(options.filters)
  const keep = options.keep ?? (() => true)
  const cursor = options.pageToken ? decode(options.pageToken, f) : undefined
  const data: T[] = []
  let hasBefore = false
  let hasAfter = false
  if (cursor?.before !== undefined) {
    // Walk backwards from just before the cursor, then restore id order.
    let i = upperBound(items, cursor.before) - 1
    if (i >= 0 && (items[i] as T).id === cursor.before) i--
    for (; i >= 0 && data.length < options.pageSize; i--) if (keep(items[i] as T)) data.push(items[i] as T)
    for (; i >= 0; i--)
      if (keep(items[i] as T)) {
        hasBefore = true
        break
      }
    data.reverse()
    hasAfter = true
  } else {
    let i = cursor?.after !== undefined ? upperBound(items, cursor.after) : 0
    if (cursor?.after !== undefined)
      for (let j = i - 1; j >= 0; j--)
        if (keep(items[j] as T)) {
          hasBefore = true
          break
        }
    for (; i < items.length && data.length < options.pageSize; i++) if (keep(items[i] as T)) data.push(items[i] as T)
    for (; i < items.length; i++)
      if (keep(items[i] as T)) {
        hasAfter = true
        break
      }
  }
  const first = data[0]
  const last = data.at(-1)
  return {
    data,
    pagination: {
      next_page_token: hasAfter && last ? encode({after: last.id, f}) : null,
      previous_page_token: hasBefore && first ? encode({before: first.id, f}) : null,
    },
  }
}
