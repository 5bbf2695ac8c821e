/**
 * A DELETE that removes a record, whose answer was lost (a gateway's 502 or 504 after the service
 * acted, a connection dropped after sending), may have been carried out all the same: sent again,
 * it finds nothing and answers 404. That 404 is the first attempt's success, not "not found".
 *
 * The client retries an idempotent request without telling which attempt answered what, so the
 * first attempt goes alone here. When the service may have acted on it (outcome.ts: "unknown",
 * a 500 included) or certainly did not but may later (429, 503, no connection), the DELETE goes
 * again with the client's usual retries, and a 404 to it after a lost answer means the record was
 * removed by the lost attempt. A 404 to the first attempt is "not found", as ever.
 *
 * Not for a DELETE that removes a link (documents unlink): its 404 names a missing document,
 * which no earlier attempt can have removed.
 */
import type {BkClient} from './client.js'
import {ApiError, NotFoundError} from './errors.js'
import {classifyWriteFailure} from './outcome.js'

export type RemovalResult =
  | {removed: 'now'; data: unknown}
  /** `lost` says what became of the attempt that removed it ("the service answered 502", a dropped connection). */
  | {removed: 'by a lost attempt'; lost: string}

export async function deleteRecord(client: BkClient, path: string): Promise<RemovalResult> {
  const request = {method: 'DELETE' as const, path}
  let lost: string | undefined
  try {
    return {removed: 'now', data: (await client.request({...request, maxRetries: 0})).data}
  } catch (error) {
    const outcome = classifyWriteFailure(error)
    if (outcome.kind === 'unknown')
      lost = error instanceof ApiError ? `the service answered ${error.status}` : (error as Error).message
    else if (outcome.kind !== 'not-acted' || !outcome.retry) throw error
  }
  try {
    return {removed: 'now', data: (await client.request(request)).data}
  } catch (error) {
    if (lost !== undefined && error instanceof NotFoundError) return {removed: 'by a lost attempt', lost}
    throw error
  }
}
