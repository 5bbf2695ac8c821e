/**
 * Posting a webhook body somewhere: the listener's and replay's --forward-to, and the emulator's
 * deliveries. The body goes byte for byte; the headers given go as they are, minus the hop-by-hop
 * ones.
 */
import {request as httpRequest, type IncomingHttpHeaders} from 'node:http'
import {request as httpsRequest} from 'node:https'

import {InputError} from '../errors.js'

const FORWARD_TIMEOUT_MS = 10_000

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

export function postBody(
  url: string,
  headers: Record<string, string>,
  body: Buffer,
  options: {timeoutMs?: number; signal?: AbortSignal | undefined} = {},
): Promise<ForwardResult> {
  const timeoutMs = options.timeoutMs ?? FORWARD_TIMEOUT_MS
  return new Promise((resolve) => {
    const target = new URL(url)
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest
    let settled = false
    const done = (r: ForwardResult) => {
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
