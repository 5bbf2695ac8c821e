/**
 * The next step after a request that never got an answer (refused, no such host, no answer, a
 * certificate bk does not trust), in the words of `bk doctor`: what to check, the base URL the
 * command used and what set it (a profile, BK_BASE_URL, the default), and `bk doctor` to check
 * each step. Proxy failures keep their own hint: the base URL is not what to fix there.
 */
import {isLoopback} from '../net/loopback.js'
import {describeOrigin} from '../auth/resolve.js'
import {ApiConnectionError, ApiTimeoutError, NetworkSetupError} from '../api/errors.js'
import {errorCode} from '../net/failure.js'
import {formatTimeout} from '../net/request-timeout.js'
import type {BkError} from '../shared/errors.js'

const DOCTOR = '`bk doctor` checks each step'
const NO_HOST = new Set(['ENOTFOUND', 'EAI_AGAIN'])

/** The hint for `error` when it is a connection failure to `baseUrl` (set by `origin`), else undefined. */
export function connectionHint(error: BkError, baseUrl: string, origin: string | undefined): string | undefined {
  if (!(error instanceof ApiConnectionError)) return undefined
  const url = new URL(baseUrl)
  // A request elsewhere (a redirect's target, an import journal's service) is not this base URL's.
  if (error.origin !== url.origin) return undefined
  const from = `the base URL ${baseUrl} (${describeOrigin(origin ?? 'the profile')})`
  if (error instanceof NetworkSetupError) {
    if (error.code.startsWith('proxy')) return undefined
    return `${error.hint} This is ${from}; ${DOCTOR}.`
  }
  const code = errorCode(error.cause)
  if (code === 'ECONNREFUSED' && isLoopback(url.hostname))
    return `Nothing listens at ${url.host}: start the emulator (\`bk emulator start --port ${url.port || 80}\`) or fix ${from}; ${DOCTOR}.`
  if (NO_HOST.has(code)) return `${url.hostname} does not resolve: check ${from} and this machine's DNS; ${DOCTOR}.`
  if (error instanceof ApiTimeoutError && error.timeoutMs !== undefined)
    return `${url.host} did not answer within ${formatTimeout(error.timeoutMs)}: if it is only slow, give it longer with BK_TIMEOUT (seconds, e.g. BK_TIMEOUT=${Math.max(60, (2 * error.timeoutMs) / 1000)}); else check ${from} and your network; ${DOCTOR}.`
  if (error instanceof ApiTimeoutError || code === 'UND_ERR_CONNECT_TIMEOUT')
    return `${url.host} did not answer in time: check ${from} and your network (a firewall may need a proxy: set HTTPS_PROXY); ${DOCTOR}.`
  return `Check ${from} and your network, then run the command again; ${DOCTOR}.`
}
