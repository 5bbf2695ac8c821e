/**
 * Forwarding a webhook delivery (the listener's and replay's --forward-to): the target URL
 * checked, and the headers worth passing on (every end-to-end header, minus the hop-by-hop
 * ones). The POST itself is `postThroughNetwork` (src/net/post.ts): src/shared/post-body.ts's, through
 * the proxy and CA settings of the environment.
 */
import type {IncomingHttpHeaders} from 'node:http'

import {InputError} from '../shared/errors.js'

/** The header that marks a post as replayed by bk (unsigned), not delivered by the service. */
export const REPLAY_HEADER = 'bk-replay'

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
