/**
 * What a failed connection means for the user, when it is about the network rather than the
 * service: a certificate bk does not trust (names BK_CA_FILE), a certificate for another name or
 * out of date, a proxy that cannot be reached or refuses the tunnel. None of these is worth a
 * retry, and none let a byte of the request reach the service.
 */
import {redactProxy, type Route} from './proxy.js'

export interface NetworkFailure {
  kind: 'tls' | 'proxy'
  code: string
  message: string
  hint: string
}

/** Certificate errors that mean "signed by an authority bk does not know". */
const UNTRUSTED = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_CHAIN_TOO_LONG',
])
const OUT_OF_DATE = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID'])
const WRONG_NAME = new Set(['ERR_TLS_CERT_ALTNAME_INVALID', 'HOSTNAME_MISMATCH'])
/** Through a proxy, bk opens connections only to the proxy: these are about the proxy. */
const NO_CONNECTION = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
])

/** The code of an error or of the error it wraps (undici wraps some). */
export function errorCode(error: unknown): string {
  const e = error as {code?: unknown; cause?: {code?: unknown}} | undefined
  if (typeof e?.cause?.code === 'string' && (e.code === 'UND_ERR_SOCKET' || e.code === undefined)) return e.cause.code
  return typeof e?.code === 'string' ? e.code : ''
}

/** A certificate or proxy failure described for people, or undefined for any other error. */
export function networkFailure(error: unknown, target: URL, route: Route, caFile?: string): NetworkFailure | undefined {
  const code = errorCode(error)
  const message = String((error as Error)?.message ?? error)
  const host = target.host
  if (UNTRUSTED.has(code)) {
    return {
      kind: 'tls',
      code: 'tls_untrusted',
      message: caFile
        ? `The certificate of ${host} is not trusted (${code}), not even with BK_CA_FILE=${caFile}`
        : `The certificate of ${host} is not trusted (${code}): set BK_CA_FILE to the PEM file of the authority that signed it`,
      hint: caFile
        ? `BK_CA_FILE (${caFile}) does not hold the authority that signed ${host}'s certificate: ask whoever runs the service or your network for that CA bundle. \`bk doctor\` shows the chain.`
        : `If your company's network or the service uses its own certificate authority, export BK_CA_FILE=/path/to/ca.pem (PEM, one or more certificates). \`bk doctor\` shows the chain.`,
    }
  }
  if (OUT_OF_DATE.has(code)) {
    return {
      kind: 'tls',
      code: 'tls_expired',
      message: `The certificate of ${host} is ${code === 'CERT_HAS_EXPIRED' ? 'expired' : 'not valid yet'} (${code})`,
      hint: "Check this machine's clock (`bk doctor` compares it with the service's); if the clock is right, the service's certificate is out of date.",
    }
  }
  if (WRONG_NAME.has(code) || /altnames|Hostname\/IP does not match/i.test(message)) {
    return {
      kind: 'tls',
      code: 'tls_wrong_host',
      message: `The certificate of ${host} is for another name (${code || 'ERR_TLS_CERT_ALTNAME_INVALID'})`,
      hint: 'Check the base URL: it must use a name the certificate is issued for.',
    }
  }
  if (!route.proxy) return undefined
  const proxy = redactProxy(route.proxy)
  const status = /Proxy response \((\d+)\)/.exec(message)?.[1] ?? (/\(407\)/.test(message) ? '407' : undefined)
  if (status === '407') {
    return {
      kind: 'proxy',
      code: 'proxy_auth',
      message: `The proxy ${proxy} (from ${route.variable}) asked for credentials (407) before connecting to ${host}`,
      hint: `Put the proxy's user and password in ${route.variable}: http://USER:PASSWORD@HOST:PORT (percent-encode special characters).`,
    }
  }
  if (status) {
    return {
      kind: 'proxy',
      code: 'proxy_refused',
      message: `The proxy ${proxy} (from ${route.variable}) refused to connect to ${host} (${status})`,
      hint: `Ask whoever runs the proxy to allow ${host}, or add it to NO_PROXY if it can be reached directly.`,
    }
  }
  if (NO_CONNECTION.has(code)) {
    return {
      kind: 'proxy',
      code: 'proxy_unreachable',
      message: `Could not connect to the proxy ${proxy} (from ${route.variable}) for ${host} (${code})`,
      hint: `Check ${route.variable}, or unset it (or add ${target.hostname} to NO_PROXY) if ${host} can be reached directly.`,
    }
  }
  return undefined
}
