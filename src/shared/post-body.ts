/**
 * One POST of a body, byte for byte, answered by a result rather than an exception: the
 * webhook listener's and replay's --forward-to, and the emulator's webhook deliveries. Every
 * network failure and a target that does not answer in time become `{status: null, error}`.
 */
import {request as httpRequest} from 'node:http'
import {request as httpsRequest} from 'node:https'

const POST_TIMEOUT_MS = 10_000

export interface PostResult {
  url: string
  /** The target's status, or null when it could not be reached or did not answer in time. */
  status: number | null
  /** A 2xx answer. */
  ok: boolean
  error?: string
  /** What a target that refused it said (its `error` field, or the start of its body). */
  detail?: string
}

export function postBody(
  url: string,
  headers: Record<string, string>,
  body: Buffer,
  options: {timeoutMs?: number; signal?: AbortSignal | undefined} = {},
): Promise<PostResult> {
  const timeoutMs = options.timeoutMs ?? POST_TIMEOUT_MS
  return new Promise((resolve) => {
    const target = new URL(url)
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest
    let settled = false
    const done = (r: PostResult) => {
      if (!settled) {
        settled = true
        resolve(r)
      }
    }
    const req = send(
      target,
      {
        method: 'POST',
        agent: false,
        ...(options.signal ? {signal: options.signal} : {}),
        headers: {...headers, 'content-length': String(body.length)},
      },
      (res) => {
        res.resume()
        const status = res.statusCode ?? null
        const result = {url, status, ok: status !== null && status >= 200 && status < 300}
        res.on('end', () => done(result))
        res.on('error', () => done(result))
      },
    )
    req.setTimeout(timeoutMs, () =>
      req.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), {code: 'ETIMEDOUT'})),
    )
    req.on('error', (error: NodeJS.ErrnoException) =>
      done({url, status: null, ok: false, error: error.code ?? error.message}),
    )
    req.end(body)
  })
}
