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
import {BkError} from '../shared/errors.js'
import type {BkClient, RequestOptions} from './client.js'
import {ApiConnectionError, ApiError, NotFoundError} from './errors.js'
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

/** Times a write that sets values is sent again after a lost answer before bk gives up. */
const RESENDS = 3

export interface SetResult<T> {
  data: T
  /** What became of each earlier attempt whose answer was lost ("the service answered 500"). */
  lost: string[]
}

/**
 * A write that sets fields to the values given (a PATCH of absolute values, never "add 1") ends
 * the same however often it is carried out. The client repeats it on 502, 504 and a dropped
 * connection; a 500 or a timeout after sending it leaves to the caller, since for most writes the
 * service may have acted. Here that is harmless: it goes again, and the answer to the attempt
 * that gets one is the outcome. When none does, the error says the outcome is unknown.
 */
export async function setValues<T>(client: BkClient, request: RequestOptions<T>, doing: string): Promise<SetResult<T>> {
  const lost: string[] = []
  for (;;) {
    try {
      return {data: (await client.request(request)).data, lost}
    } catch (error) {
      const answerLost =
        classifyWriteFailure(error).kind === 'unknown' &&
        (error instanceof ApiError || error instanceof ApiConnectionError)
      if (!answerLost) throw error
      lost.push(error instanceof ApiError ? `the service answered ${error.status}` : error.message)
      if (lost.length > RESENDS)
        throw new BkError(
          `Could not tell whether the service did ${doing}: the answers to all ${lost.length} attempts were lost (${[...new Set(lost)].join('; ')})`,
          {
            code: 'outcome_unknown',
            exitCode: error.exitCode,
            hint: 'It sets the values given, so running the same command again is safe; it prints the rule once it gets an answer.',
            details: {lost},
            cause: error,
          },
        )
    }
  }
}
