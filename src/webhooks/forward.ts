/**
 * Posting a webhook body somewhere: the listener's and replay's --forward-to, and the emulator's
 * deliveries. The body goes byte for byte; the headers given go as they are, minus the hop-by-hop
 * ones. Like every request of bk, it follows the proxy and CA settings of the environment.
 */
import type {IncomingHttpHeaders} from 'node:http'

import {InputError} from '../errors.js'

const FORWARD_TIMEOUT_MS = 10_000
const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT'])

const HOP_BY_HOP = new Set([
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authorization',
  'proxy-connection',
  'content-length',
  'expect',
])

export interface ForwardResult {
  url: string
  /** The target's status, or null when it could not be reached or did not answer in time. */
  status: number | null
  ok: boolean
  error?: string
}

/** Checks a --forward-to value: an absolute http(s) URL. */
export function forwardUrl(value: string, flag = '--forward-to'): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new InputError(`Invalid ${flag} "${value}": expected an absolute URL such as http://localhost:3000/webhooks`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InputError(`Invalid ${flag} "${value}": only http and https URLs are supported`)
  return url.toString()
}

/** Headers worth forwarding: every end-to-end header, multi-valued ones joined. */
export function forwardableHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || HOP_BY_HOP.has(k.toLowerCase())) continue
    out[k] = Array.isArray(v) ? v.join(', ') : v
  }
  return out
}

/**
 * Posts `body` to `url` through the proxy the environment names for it (src/net), trusting
 * BK_CA_FILE; resolves with the target's status, or with the error that kept it from answering.
 */
export async function postBody(
  url: string,
  headers: Record<string, string>,
  body: Buffer,
  options: {timeoutMs?: number; signal?: AbortSignal | undefined} = {},
): Promise<ForwardResult> {
  const timeoutMs = options.timeoutMs ?? FORWARD_TIMEOUT_MS
  const target = new URL(url)
  const [{connectionFor}, {errorCode}] = await Promise.all([
    import('../net/dispatcher.js'),
    import('../net/failure.js'),
  ])
  let connection: import('../net/dispatcher.js').Connection
  try {
    connection = connectionFor(target, {connections: 1, connectTimeoutMs: timeoutMs})
  } catch (error) {
    return {url, status: null, ok: false, error: (error as Error).message}
  }
  try {
    const res = await connection.dispatcher.request({
      origin: target.origin,
      path: target.pathname + target.search,
      method: 'POST',
      headers: {...headers, 'content-length': String(body.length)},
      body,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal: options.signal ?? null,
    })
    await res.body.dump()
    const status = res.statusCode
    return {url, status, ok: status >= 200 && status < 300}
  } catch (error) {
    const code = errorCode(error)
    return {url, status: null, ok: false, error: TIMEOUTS.has(code) ? 'ETIMEDOUT' : code || (error as Error).message}
  } finally {
    // One post per connection, as before: nothing is kept open between deliveries.
    await connection.dispatcher.destroy().catch(() => {})
  }
}
