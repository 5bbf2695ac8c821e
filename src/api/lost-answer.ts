/**
 * Writes that end the same however often they are carried out, so that the client sends them
 * again after an answer that was lost (a 500, 502 or 504 after the service acted, a timeout, a
 * connection dropped after sending): `sameIfRepeated`, with the client's usual backoff. What
 * became of the lost attempts is then part of the outcome.
 *
 * A DELETE that removes a record, sent again after its answer was lost, finds nothing and is
 * answered 404: that 404 is the lost attempt's success, not "not found". A 404 with no lost
 * answer before it (a 429 or 503 certainly did nothing) is "not found", as ever. Not for a
 * DELETE that removes a link (documents unlink): its 404 names a missing document, which no
 * earlier attempt can have removed.
 */
import {BkError} from '../shared/errors.js'
import type {BkClient, RequestOptions} from './client.js'
import {ApiConnectionError, ApiError, NotFoundError} from './errors.js'
import {classifyWriteFailure} from './outcome.js'

export type RemovalResult =
  | {removed: 'now'; data: unknown}
  /** `lost` says what became of the first attempt that may have removed it ("the service answered 502"). */
  | {removed: 'by a lost attempt'; lost: string}

export async function deleteRecord(client: BkClient, path: string): Promise<RemovalResult> {
  const lost: string[] = []
  try {
    const request = {method: 'DELETE' as const, path, sameIfRepeated: true}
    return {removed: 'now', data: (await client.request({...request, onLostAnswer: (what) => lost.push(what)})).data}
  } catch (error) {
    const [first] = lost
    if (first !== undefined && error instanceof NotFoundError) return {removed: 'by a lost attempt', lost: first}
    throw error
  }
}

export interface SetResult<T> {
  data: T
  /** What became of each earlier attempt whose answer was lost ("the service answered 500"). */
  lost: string[]
}

/**
 * A write that sets fields to the values given: the answer to the attempt that gets one is the
 * outcome. When none does, the error says the outcome is unknown and that running the command
 * again is safe.
 */
export async function setValues<T>(client: BkClient, request: RequestOptions<T>, doing: string): Promise<SetResult<T>> {
  const lost: string[] = []
  try {
    const {data} = await client.request({...request, sameIfRepeated: true, onLostAnswer: (what) => lost.push(what)})
    return {data, lost}
  } catch (error) {
    const answerLost =
      classifyWriteFailure(error).kind === 'unknown' &&
      (error instanceof ApiError || error instanceof ApiConnectionError)
    if (!answerLost) throw error
    lost.push(error instanceof ApiError ? `the service answered ${error.status}` : error.message)
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
