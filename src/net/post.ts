/**
 * bk's own POST of a webhook body (the listener's and replay's --forward-to): the same result
 * as src/shared/post-body.ts, which the emulator uses, but through the proxy the environment names for
 * the target and trusting BK_CA_FILE, like every request bk makes.
 */
import type {PostResult} from '../shared/post-body.js'
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
    const status = res.statusCode
    const ok = status >= 200 && status < 300
    if (ok) {
      await res.body.dump()
      return {url, status, ok}
    }
    // A refusal says why: kept short, and only for the report.
    const text = (await res.body.text().catch(() => '')).slice(0, 2000)
    const detail = refusalText(text)
    return {url, status, ok, ...(detail ? {detail} : {})}
  } catch (error) {
    const code = errorCode(error)
    return {url, status: null, ok: false, error: TIMEOUTS.has(code) ? 'ETIMEDOUT' : code || (error as Error).message}
  } finally {
    // One post per connection, as post-body.ts does: nothing is kept open between deliveries.
    await connection.dispatcher.destroy().catch(() => {})
  }
}

/** The `error` field of a JSON refusal (as bk's listener answers), else the first line of the body. */
function refusalText(text: string): string | undefined {
  try {
    const error = (JSON.parse(text) as {error?: unknown}).error
    if (typeof error === 'string' && error) return error.slice(0, 300)
  } catch {
    // Not JSON: the text itself.
  }
  const line = text.trim().split('\n')[0]?.slice(0, 300)
  return line || undefined
}
