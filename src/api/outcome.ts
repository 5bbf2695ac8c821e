/**
 * The one rule for the outcome of a write that did not come back with a success, shared by every
 * write pipeline (bills import, journal-entries create). A request the service may have acted on
 * is never re-sent by bk: it is reported as unconfirmed (a write that sets values as given, the
 * one exception, is sent again: lost-answer.ts).
 * - not-acted: the service certainly did nothing (429, 503, a connection that never opened,
 *   401/403/404 answered before any work, or no token to send it with); `retry` when waiting may
 *   help (429, 503, connection, a token request that failed for the moment);
 * - refused: any other 4xx, an answer about this request; nothing was created;
 * - unknown: any other 5xx (500, 502, 504: a gateway may answer so after the service acted), a
 *   timeout, a connection dropped after sending, an unreadable answer, anything else.
 */
import {BkError} from '../shared/errors.js'
import {ApiConnectionError, ApiError, wasNotSent} from './errors.js'

export type WriteOutcome =
  | {kind: 'not-acted'; retry: boolean; error: BkError}
  | {kind: 'refused'; error: ApiError}
  | {kind: 'unknown'; reason: string}

/** Answers that mean the request was turned away before anything was done. */
const TURNED_AWAY = new Set([401, 403, 404])

export function classifyWriteFailure(error: unknown): WriteOutcome {
  // The token request failed, so the write never left: waiting may help unless the credentials
  // themselves were refused.
  if (wasNotSent(error)) {
    const retry =
      error instanceof ApiConnectionError ||
      (error instanceof ApiError && (error.status === 429 || error.status >= 500))
    const bk = error instanceof BkError ? error : new BkError((error as Error).message, {cause: error})
    return {kind: 'not-acted', retry, error: bk}
  }
  if (error instanceof ApiError) {
    if (error.status === 429 || error.status === 503) return {kind: 'not-acted', retry: true, error}
    if (TURNED_AWAY.has(error.status)) return {kind: 'not-acted', retry: false, error}
    if (error.status >= 400 && error.status < 500) return {kind: 'refused', error}
    return {kind: 'unknown', reason: `outcome unknown: ${error.message}`}
  }
  if (error instanceof ApiConnectionError && !error.maybeSent) return {kind: 'not-acted', retry: true, error}
  const message = error instanceof Error ? error.message : String(error)
  return {kind: 'unknown', reason: `outcome unknown: ${message}`}
}
