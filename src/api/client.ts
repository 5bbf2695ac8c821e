/**
 * The transport: one undici Pool with keep-alive per base URL (through the proxy the environment
 * names, src/net), the bearer token, timeouts, the retry policy, redirects, response parsing with
 * zod, and redacted --debug traces.
 *
 * Retry policy (docs/reliability.md): an idempotent request (GET, PUT, PATCH, DELETE) is retried on
 * connection errors and on 429, 502, 503 and 504. A POST is retried only when the service cannot
 * have acted on it: the connection never opened, 429 or 503. Backoff is exponential with equal
 * jitter (a wait between half and all of the step), and a Retry-After header is honoured. A write
 * that ends the same however often it is carried out (`sameIfRepeated`) is retried on a 500 too.
 *
 * Redirects: a GET follows up to five (301, 302, 303, 307, 308); the bearer token goes only to the
 * base URL's own origin, never to another, and https is never redirected to http (loopback
 * aside). Any other method's redirect is an error that names where it pointed.
 */
import {setImmediate as nextTurn} from 'node:timers/promises'

import type {z} from 'zod/mini'

import {trustedCa} from '../net/ca.js'
import {connectionFor, type Connection} from '../net/dispatcher.js'
import {networkFailure} from '../net/failure.js'
import {isLoopback} from '../net/loopback.js'
import {DEFAULT_TIMEOUT_SECONDS, formatTimeout} from '../net/request-timeout.js'
import {stringifyExact} from '../shared/exact-json.js'
import {
  ApiConnectionError,
  ApiTimeoutError,
  errorFromResponse,
  markNotSent,
  NetworkSetupError,
  RequestNotBuiltError,
  RedirectError,
} from './errors.js'
import {parseAnswerJson} from './answer-json.js'
import {redactHeaders, redactJsonText, redactKnown, redactValue, registerSecret} from './redact.js'
import {checkShape} from './shape.js'

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE'
export type QueryValue = string | number | boolean | null | undefined | ReadonlyArray<string>

/** Supplies bearer tokens; `renew` is called once when the service answers 401. */
export interface TokenSource {
  get(): Promise<string>
  renew?(): Promise<string>
}

export interface ClientOptions {
  baseUrl: string
  token?: TokenSource | undefined
  timeoutMs?: number
  maxRetries?: number
  /** Base of the exponential backoff; the first retry waits up to this long. */
  retryBaseMs?: number
  /** Longest Retry-After bk will honour before giving up on the wait. */
  maxRetryAfterMs?: number
  connections?: number
  userAgent?: string
  debug?: ((line: string) => void) | undefined
  /** Extra strings never to print (the client secret). */
  secrets?: Array<string | undefined>
}

export interface RequestOptions<T> {
  method: HttpMethod
  path: string
  query?: Record<string, QueryValue> | undefined
  json?: unknown
  /**
   * A body already written as JSON text (a batch of bills built as its rows were read), sent as
   * it is with `json`'s content type; the caller vouches that it is JSON.
   */
  jsonText?: string | undefined
  form?: Record<string, string | undefined>
  headers?: Record<string, string | undefined>
  schema?: z.ZodMiniType<T>
  /** Send the bearer token (default true). */
  auth?: boolean
  signal?: AbortSignal | undefined
  timeoutMs?: number
  maxRetries?: number
  /** A POST that is safe to send twice (the token request): retried like an idempotent request. */
  retrySafe?: boolean
  /**
   * A write that ends the same however often it is carried out (a PATCH of absolute values,
   * never "add 1"; a DELETE of a record): sending it again after any lost answer does no harm,
   * so a 500 is retried too (src/api/lost-answer.ts).
   */
  sameIfRepeated?: boolean
  /**
   * Called each time an attempt the service may have carried out is sent again (its answer was
   * lost: a 500, 502 or 504, a timeout, a connection dropped after sending), with what happened.
   */
  onLostAnswer?: (what: string) => void
  /** On success, `data` is the body text as received, not parsed (exact literals, or parsing later). */
  responseText?: boolean
  /**
   * False when the caller reads no number of the answer (a batch of bills: ids and numbers only),
   * so its text is not searched for numbers a double would change (src/api/answer-json.ts).
   */
  exactNumbers?: boolean
}

export interface ApiResponse<T> {
  status: number
  headers: Record<string, string | string[] | undefined>
  data: T
}

const IDEMPOTENT: ReadonlySet<HttpMethod> = new Set(['GET', 'PUT', 'PATCH', 'DELETE'])
const RETRY_STATUS_IDEMPOTENT = new Set([429, 502, 503, 504])
const RETRY_STATUS_POST = new Set([429, 503])
const RETRY_STATUS_REPEATABLE = new Set([...RETRY_STATUS_IDEMPOTENT, 500])
/** Answers after which the service may have acted: sent again, the attempt's answer was lost. */
const ANSWER_LOST = new Set([500, 502, 504])
/** Errors raised before a byte of the request left: the service cannot have acted on it. */
const NEVER_OPENED = new Set([
  'ECONNREFUSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
])
const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'])
const REDIRECTS = new Set([301, 302, 303, 307, 308])
const MAX_REDIRECTS = 5

export class BkClient {
  readonly baseUrl: URL
  /** The base URL's origin, direct or through its proxy. */
  private readonly connection: Connection
  /** Other origins a GET was redirected to (never sent the token). */
  private readonly elsewhere = new Map<string, Connection>()
  private readonly basePath: string
  private readonly opts: Required<Pick<ClientOptions, 'timeoutMs' | 'maxRetries' | 'retryBaseMs' | 'maxRetryAfterMs'>> &
    ClientOptions
  /** Requests begun but not yet handed to the pool (waiting for a token). */
  private starting = 0

  constructor(options: ClientOptions) {
    this.baseUrl = new URL(options.baseUrl)
    this.basePath = this.baseUrl.pathname.replace(/\/+$/, '')
    this.opts = {
      timeoutMs: DEFAULT_TIMEOUT_SECONDS * 1000,
      maxRetries: 3,
      retryBaseMs: 500,
      maxRetryAfterMs: 60_000,
      ...options,
    }
    this.connection = connectionFor(this.baseUrl, {
      connections: options.connections ?? 8,
      keepAliveTimeout: 10_000,
      connectTimeoutMs: Math.min(this.opts.timeoutMs, 10_000),
    })
    registerSecret(...(options.secrets ?? []))
  }

  /** Adds a string that must never be printed (a token once it is known). */
  addSecret(secret: string): void {
    registerSecret(secret)
  }

  /**
   * Resolves once every request begun so far is written to its connection. undici writes a
   * request on a reused keep-alive connection only after a turn or two of the event loop (it
   * first checks that the server has not closed it), so a caller that begins a request and then
   * works synchronously would hold it back until the work is done: prefetch would not overlap.
   */
  async written(): Promise<void> {
    // Bounded: a new connection may take longer to open, and then there is nothing to gain.
    for (let turn = 0; turn < 10; turn++) {
      const {queued, pending} = this.connection.pool()?.stats ?? {queued: 0, pending: 0}
      if (this.starting === 0 && queued === 0 && pending === 0) return
      await nextTurn()
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.connection, ...this.elsewhere.values()].map((c) => c.dispatcher.close()))
  }

  async request<T = unknown>(options: RequestOptions<T>): Promise<ApiResponse<T>> {
    const maxRetries = options.maxRetries ?? this.opts.maxRetries
    const idempotent = IDEMPOTENT.has(options.method) || options.retrySafe === true
    const retryStatus = options.sameIfRepeated
      ? RETRY_STATUS_REPEATABLE
      : idempotent
        ? RETRY_STATUS_IDEMPOTENT
        : RETRY_STATUS_POST
    let renewed = false
    // Where a GET was redirected to, once it was.
    let target: URL | undefined
    let redirects = 0
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.attempt(options, attempt, target)
      if (outcome.kind === 'connection-error') {
        const {error} = outcome
        if (error instanceof NetworkSetupError) throw error
        const canRetry = idempotent || !error.maybeSent
        if (canRetry && attempt < maxRetries) {
          if (error.maybeSent) options.onLostAnswer?.(error.message)
          await this.sleep(this.backoff(attempt), options.signal)
          continue
        }
        throw error
      }
      const {status, headers, body, text} = outcome
      const location = headerValue(headers.location)
      if (REDIRECTS.has(status) && location !== undefined) {
        target = this.redirectTarget(options, target, location, status, ++redirects)
        attempt--
        continue
      }
      if (status === 401 && options.auth !== false && !renewed && this.opts.token?.renew) {
        renewed = true
        this.trace('  401: renewing the access token once')
        // A token that cannot be renewed: this request (turned away by the 401) is not sent again.
        this.addSecret(await this.opts.token.renew().catch((error: unknown) => Promise.reject(markNotSent(error))))
        attempt--
        continue
      }
      if (retryStatus.has(status) && attempt < maxRetries) {
        const wait = retryAfterMs(headers['retry-after']) ?? this.backoff(attempt)
        if (wait <= this.opts.maxRetryAfterMs) {
          if (ANSWER_LOST.has(status)) options.onLostAnswer?.(`the service answered ${status}`)
          await this.sleep(wait, options.signal)
          continue
        }
      }
      if (status >= 400) {
        throw errorFromResponse({
          status,
          body,
          method: options.method,
          path: options.path,
          requestId: headerValue(headers['x-request-id']),
        })
      }
      return {status, headers, data: options.responseText ? (text as T) : this.parse(options, body)}
    }
  }

  /** Where a redirect leads, or the error that says why bk does not follow it. */
  private redirectTarget(
    options: RequestOptions<unknown>,
    from: URL | undefined,
    location: string,
    status: number,
    count: number,
  ): URL {
    const what = `${options.method} ${options.path}`
    const current = from ?? new URL(this.basePath + options.path + queryString(options.query), this.baseUrl.origin)
    let next: URL
    try {
      next = new URL(location, current)
    } catch {
      throw new RedirectError(`${what} was redirected (${status}) to an invalid address`, 'Check the base URL.')
    }
    const shown = `${next.origin}${next.pathname}`
    const hint = 'Check the base URL (`bk auth status` shows it and where it came from).'
    if (options.method !== 'GET')
      throw new RedirectError(
        `${what} was redirected (${status}) to ${shown}; bk follows redirects only for reads, so nothing was sent there`,
        hint,
      )
    if (count > MAX_REDIRECTS) throw new RedirectError(`${what} was redirected more than ${MAX_REDIRECTS} times`, hint)
    if (current.protocol === 'https:' && next.protocol !== 'https:' && !isLoopback(next.hostname))
      throw new RedirectError(
        `${what} was redirected (${status}) from https to ${shown}; bk does not follow that`,
        hint,
      )
    if (next.protocol !== 'https:' && next.protocol !== 'http:')
      throw new RedirectError(`${what} was redirected (${status}) to ${shown}, which is not http(s)`, hint)
    this.trace(`  ${status}: following the redirect to ${shown}`)
    return next
  }

  /** The connection to an origin: the base URL's own, or one made for a redirect's target. */
  private connectionTo(origin: string): Connection {
    if (origin === this.baseUrl.origin) return this.connection
    let connection = this.elsewhere.get(origin)
    if (!connection) {
      connection = connectionFor(new URL(origin), {
        connections: 2,
        connectTimeoutMs: Math.min(this.opts.timeoutMs, 10_000),
      })
      this.elsewhere.set(origin, connection)
    }
    return connection
  }

  /** The headers (the bearer token only for the base URL's origin) and the body of a request. */
  private async prepare(
    options: RequestOptions<unknown>,
    origin: string,
  ): Promise<{headers: Record<string, string>; body: string | undefined}> {
    const headers: Record<string, string> = {accept: 'application/json', 'user-agent': this.opts.userAgent ?? 'bk'}
    for (const [k, v] of Object.entries(options.headers ?? {})) if (v !== undefined) headers[k.toLowerCase()] = v
    let body: string | undefined
    if (options.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded'
      const form = new URLSearchParams()
      for (const [k, v] of Object.entries(options.form)) if (v !== undefined) form.set(k, v)
      body = form.toString()
    } else if (options.jsonText !== undefined) {
      headers['content-type'] = 'application/json'
      body = options.jsonText
    } else if (options.json !== undefined) {
      headers['content-type'] = 'application/json'
      body = JSON.stringify(options.json)
    }
    // The token is the base URL's: a redirect to any other origin never carries it.
    if (options.auth !== false && this.opts.token && origin === this.baseUrl.origin) {
      // The request has not left yet: a token that cannot be had means it never will.
      const token = await this.opts.token.get().catch((error: unknown) => Promise.reject(markNotSent(error)))
      this.addSecret(token)
      headers.authorization = `Bearer ${token}`
    }
    return {headers, body}
  }

  private async attempt<T>(
    options: RequestOptions<T>,
    attempt: number,
    redirected: URL | undefined,
  ): Promise<
    | {
        kind: 'response'
        status: number
        headers: Record<string, string | string[] | undefined>
        body: unknown
        text: string
      }
    | {kind: 'connection-error'; error: ApiConnectionError}
  > {
    // Counted until the request is handed to the pool, which happens in the same turn as the decrement.
    this.starting++
    const origin = redirected?.origin ?? this.baseUrl.origin
    const connection = this.connectionTo(origin)
    let prepared: {headers: Record<string, string>; body: string | undefined}
    try {
      prepared = await this.prepare(options, origin)
    } finally {
      this.starting--
    }
    const {headers, body} = prepared
    const fullPath = redirected
      ? redirected.pathname + redirected.search
      : this.basePath + options.path + queryString(options.query)
    // Timed for --debug only: the first read of `performance` loads node:perf_hooks.
    const started = this.opts.debug ? performance.now() : 0
    if (this.opts.debug) {
      this.trace(`→ ${options.method} ${origin}${fullPath}${attempt ? ` (retry ${attempt})` : ''}`)
      this.trace(`  ${connection.describe()}`)
      this.trace(`  headers ${JSON.stringify(redactHeaders(headers))}`)
      if (options.form) this.trace(`  form ${JSON.stringify(redactValue(options.form))}`)
      else if (options.jsonText !== undefined) this.trace(`  body ${truncate(redactJsonText(options.jsonText))}`)
      else if (options.json !== undefined) this.trace(`  body ${truncate(JSON.stringify(redactValue(options.json)))}`)
    }
    const timeout = options.timeoutMs ?? this.opts.timeoutMs
    try {
      const res = await connection.dispatcher.request({
        origin,
        method: options.method,
        path: fullPath,
        headers,
        body: body ?? null,
        headersTimeout: timeout,
        bodyTimeout: timeout,
        signal: options.signal ?? null,
      })
      const text = await res.body.text()
      // undici's pool counts the connection free a turn of the event loop after its answer is
      // read: a request sent sooner (the API's after the token's, a list's next page) would
      // open another connection, and against the service another TLS handshake.
      await nextTurn()
      // A body asked for as text is parsed only to report an error (or to trace it with --debug).
      const parsed =
        options.responseText && res.statusCode < 400 && !this.opts.debug
          ? undefined
          : parseBody(text, headerValue(res.headers['content-type']), options.exactNumbers ?? true)
      if (this.opts.debug) {
        this.trace(
          `← ${res.statusCode} ${options.method} ${options.path} (${Math.round(performance.now() - started)} ms)`,
        )
        // An empty body (a 204, a redirect) has no JSON to show.
        if (parsed !== undefined)
          this.trace(`  body ${truncate(typeof parsed === 'string' ? parsed : stringifyExact(redactValue(parsed)))}`)
      }
      return {kind: 'response', status: res.statusCode, headers: res.headers, body: parsed, text}
    } catch (error) {
      if (options.signal?.aborted) throw error
      const code = (error as {code?: string}).code ?? ''
      const neverOpened = NEVER_OPENED.has(code)
      const what = `${options.method} ${options.path}`
      this.trace(`✗ ${what}: ${code || (error as Error).message}`)
      const failure = networkFailure(
        error,
        new URL(origin),
        connection.route,
        trustedCa().files.find((f) => f.variable === 'BK_CA_FILE')?.file,
      )
      if (failure) {
        const setup = new NetworkSetupError(failure.message, failure.code, failure.hint, error)
        setup.origin = origin
        return {kind: 'connection-error', error: setup}
      }
      if (code === 'UND_ERR_INVALID_ARG') throw new RequestNotBuiltError(what, error)
      const message = neverOpened
        ? `Could not connect to ${origin} (${code}) for ${what}`
        : TIMEOUTS.has(code)
          ? `No answer from ${origin} within ${formatTimeout(timeout)} for ${what}`
          : `The connection to ${origin} broke during ${what} (${code || (error as Error).message})`
      const Err = TIMEOUTS.has(code) ? ApiTimeoutError : ApiConnectionError
      const failed = new Err(message, !neverOpened, error)
      failed.origin = origin
      if (failed instanceof ApiTimeoutError) failed.timeoutMs = timeout
      return {kind: 'connection-error', error: failed}
    }
  }

  private parse<T>(options: RequestOptions<T>, body: unknown): T {
    return options.schema ? checkShape(options.schema, body, `${options.method} ${options.path}`) : (body as T)
  }

  private backoff(attempt: number): number {
    const cap = Math.min(this.opts.retryBaseMs * 2 ** attempt, 8_000)
    return cap / 2 + Math.random() * (cap / 2)
  }

  private sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.trace(`  waiting ${Math.round(ms)} ms before retrying`)
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason)
      const onAbort = () => {
        clearTimeout(timer)
        reject(signal?.reason)
      }
      // The listener goes when the wait ends, so one signal can serve many requests.
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      }, ms)
      signal?.addEventListener('abort', onAbort, {once: true})
    })
  }

  private trace(line: string): void {
    this.opts.debug?.(redactKnown(line))
  }
}

function queryString(query: Record<string, QueryValue> | undefined): string {
  if (!query) return ''
  const params = new URLSearchParams()
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null || v === '') continue
    params.set(k, Array.isArray(v) ? v.join(',') : String(v))
  }
  const s = params.toString()
  return s ? `?${s}` : ''
}

function parseBody(text: string, contentType: string | undefined, exactNumbers: boolean): unknown {
  if (text === '') return undefined
  if (contentType?.includes('json') || /^[[{]/.test(text.trimStart())) {
    try {
      return parseAnswerJson(text, exactNumbers)
    } catch {
      return text
    }
  }
  return text
}

export function retryAfterMs(value: string | string[] | undefined): number | undefined {
  const v = headerValue(value)
  if (v === undefined) return undefined
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Number(v) * 1000
  const date = Date.parse(v)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

function truncate(text: string, max = 2000): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text
}
