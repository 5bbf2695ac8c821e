/**
 * Typed errors of the API client, all made in one factory (`errorFromResponse`), each carrying
 * its exit code. Exit codes follow what happened to the request, never the service's own codes.
 */
import {BkError, ExitCode} from '../shared/errors.js'

export interface ApiErrorInit {
  status: number
  body: unknown
  method: string
  path: string
  requestId?: string | undefined
}

export class ApiError extends BkError {
  readonly status: number
  readonly body: unknown
  readonly method: string
  readonly path: string
  readonly requestId: string | undefined

  constructor(message: string, init: ApiErrorInit, exitCode: ExitCode, code: string, hint?: string) {
    super(message, {exitCode, code, details: {status: init.status, body: init.body}, ...(hint ? {hint} : {})})
    this.status = init.status
    this.body = init.body
    this.method = init.method
    this.path = init.path
    this.requestId = init.requestId
  }
}

export class AuthenticationError extends ApiError {}
export class PermissionDeniedError extends ApiError {}
export class NotFoundError extends ApiError {}
export class UnprocessableError extends ApiError {}
export class RateLimitError extends ApiError {}
export class ServiceUnavailableError extends ApiError {}

/** The request may never have reached the service, or its answer never came back. */
export class ApiConnectionError extends BkError {
  /** False when the connection never opened: the service cannot have acted on the request. */
  readonly maybeSent: boolean
  /** The origin the request went to, to word the hint with (src/cli/connection-hint.ts). */
  origin: string | undefined
  constructor(message: string, maybeSent: boolean, cause?: unknown) {
    super(message, {
      exitCode: ExitCode.unavailable,
      code: maybeSent ? 'connection_lost' : 'connection_failed',
      hint: 'Check the base URL and your network, then run the command again.',
      cause,
    })
    this.maybeSent = maybeSent
  }
}

export class ApiTimeoutError extends ApiConnectionError {
  /** How long bk waited (BK_TIMEOUT), for the hint to say. */
  timeoutMs: number | undefined
}

/**
 * The connection failed for a reason of the network's setup, not of the moment: a certificate
 * bk does not trust, a proxy that cannot be reached or refuses. Never retried; nothing was sent.
 */
export class NetworkSetupError extends ApiConnectionError {
  override readonly code: string
  override readonly hint: string
  constructor(message: string, code: string, hint: string, cause?: unknown) {
    super(message, false, cause)
    this.code = code
    this.hint = hint
  }
}

/**
 * The HTTP client refused a request as bk built it (a header value it cannot send): raised before
 * a byte left, so nothing was sent, and sending it again would be refused the same way.
 */
export class RequestNotBuiltError extends BkError {
  constructor(what: string, cause: unknown) {
    super(`bk could not send ${what}: the HTTP client refused the request as built (${(cause as Error).message})`, {
      exitCode: ExitCode.unexpected,
      code: 'request_not_built',
      hint: "Nothing was sent. This is a fault of bk's: run the command again with --debug and report what it prints.",
      cause,
    })
    markNotSent(this)
  }
}

/** A redirect bk does not follow (any but a GET's), or a redirect chain it gave up on. */
export class RedirectError extends BkError {
  constructor(message: string, hint: string) {
    super(message, {exitCode: ExitCode.rejected, code: 'redirect_not_followed', hint})
  }
}

/** A response that does not have the shape the spec gives it; names the field path. */
export class ResponseShapeError extends BkError {
  constructor(message: string, details?: unknown, hint = UNEXPECTED_RESPONSE_HINT) {
    super(message, {exitCode: ExitCode.unexpected, code: 'unexpected_response', details, hint})
  }
}

/** What to do about an answer bk cannot read: it may come from something other than the service. */
export const UNEXPECTED_RESPONSE_HINT =
  "The service answered in a shape bk does not know: check that the base URL is the service's (bk doctor), run again with --debug to see the answer, and report it if it persists."

/** Reads the service's message from either error body of the spec: {error, data} or {message, data}. */
export function serviceMessage(body: unknown): string | undefined {
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>
    if (typeof b.error === 'string' && b.error) return b.error
    if (typeof b.message === 'string' && b.message) return b.message
  }
  if (typeof body === 'string' && body.trim()) return body.trim().slice(0, 300)
  return undefined
}

export function errorFromResponse(init: ApiErrorInit): ApiError {
  const said = serviceMessage(init.body)
  const what = `${init.method} ${init.path}`
  const msg = (fallback: string) => `${said ?? fallback} (${init.status} from ${what})`
  switch (init.status) {
    case 401:
      return new AuthenticationError(
        msg('Unauthorized'),
        init,
        ExitCode.auth,
        'unauthorized',
        'Check the client id and secret: `bk auth status` shows where they come from.',
      )
    case 403:
      return new PermissionDeniedError(
        msg('Forbidden'),
        init,
        ExitCode.auth,
        'forbidden',
        'The token lacks the scope or business for this action: `bk auth status` shows the scope and business it is asked for, and where each comes from (a profile, BK_SCOPES, --business).',
      )
    case 404:
      return new NotFoundError(msg('Not found'), init, ExitCode.notFound, 'not_found')
    case 422:
      return new UnprocessableError(msg('Rejected by the service'), init, ExitCode.rejected, 'rejected')
    case 429:
      return new RateLimitError(
        msg('Too many requests'),
        init,
        ExitCode.unavailable,
        'rate_limited',
        'The service kept limiting requests; wait a little and run the command again.',
      )
    default:
      if (init.status >= 500) {
        return new ServiceUnavailableError(
          msg('Service unavailable'),
          init,
          ExitCode.unavailable,
          'unavailable',
          'The service is unavailable; run the command again later.',
        )
      }
      return new ApiError(msg('Request rejected'), init, ExitCode.rejected, 'rejected')
  }
}

const NOT_SENT = Symbol('bk.notSent')

/**
 * Marks `error` as met before its request left (the token for it could not be had): whatever the
 * error says, the service cannot have acted on that request. Marked, not wrapped, so the error
 * keeps its class, message and hint (a connection error's hint names the base URL).
 */
export function markNotSent(error: unknown): unknown {
  if (error instanceof Error) Object.defineProperty(error, NOT_SENT, {value: true})
  return error
}

export function wasNotSent(error: unknown): boolean {
  return error instanceof Error && (error as unknown as Record<symbol, unknown>)[NOT_SENT] === true
}
