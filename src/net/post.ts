/**
 * bk's own POST of a webhook body (the listener's and replay's --forward-to): the same result
 * as src/post-body.ts, which the emulator uses, but through the proxy the environment names for
 * the target and trusting BK_CA_FILE, like every request bk makes.
 */
import type {PostResult} from '../post-body.js'
import {connectionFor, type Connection} from './dispatcher.js'
import {errorCode} from './failure.js'

const POST_TIMEOUT_MS = 10_000
const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT'])

export async function postThroughNetwork(
  url: string,
  headers: Record<string, string>,
  body: Buffer,
  options: {timeoutMs?: number; signal?: AbortSignal | undefined} = {},
): Promise<PostResult> {
  const timeoutMs = options.timeoutMs ?? POST_TIMEOUT_MS
  const target = new URL(url)
  let connection: Connection
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
    // One post per connection, as post-body.ts does: nothing is kept open between deliveries.
    await connection.dispatcher.destroy().catch(() => {})
  }
}
