/**
 * The undici dispatchers every request of bk goes through: a Pool to the origin when the route
 * is direct, undici's ProxyAgent when a proxy applies (CONNECT for https, an absolute-form request
 * for http), both with the trusted authorities of src/net/ca.ts.
 */
import type {Dispatcher} from 'undici'

import {trustedCa} from './ca.js'
import {redactProxy, routeFor, type Route} from './proxy.js'
import {Agent, Pool, ProxyAgent} from './undici.js'

/** 16 KiB, Node's default `--max-http-header-size`. */
const MAX_HEADER_SIZE = 16 * 1024

export interface DispatcherOptions {
  connections?: number
  keepAliveTimeout?: number
  /** Longest wait for a TCP (and TLS) connection, and for a proxy's answer to CONNECT. */
  connectTimeoutMs?: number
  /** Also serve origins other than the target's (a fetch that may follow redirects). */
  anyOrigin?: boolean
  env?: NodeJS.ProcessEnv
}

export interface Connection {
  dispatcher: Dispatcher
  route: Route
  /** The pool that carries the requests (once one is made), for its queue statistics. */
  pool(): Pool | undefined
  /** `direct` or `via proxy http://…` (credentials redacted), for --debug. */
  describe(): string
}

/** A dispatcher for requests to `target`'s origin, direct or through the proxy its route names. */
export function connectionFor(target: URL, options: DispatcherOptions = {}): Connection {
  const env = options.env ?? process.env
  const route = routeFor(target, env)
  const {ca} = trustedCa(env)
  const timeout = options.connectTimeoutMs ?? 10_000
  const tls = {timeout, ...(ca ? {ca} : {})}
  const common = {
    connections: options.connections ?? 8,
    keepAliveTimeout: options.keepAliveTimeout ?? 10_000,
    // Node's default limit on a response's headers, given so that undici does not load node:http
    // to ask for it (a few milliseconds of every API command).
    maxHeaderSize: MAX_HEADER_SIZE,
  }
  const describe = () =>
    route.proxy ? `via proxy ${redactProxy(route.proxy)} (${route.reason})` : `direct (${route.reason})`
  if (!route.proxy && options.anyOrigin) {
    let pool: Pool | undefined
    const agent = new Agent({...common, connect: tls, factory: (origin, opts) => (pool = new Pool(origin, opts))})
    return {dispatcher: agent, route, pool: () => pool, describe}
  }
  if (!route.proxy) {
    const pool = new Pool(target.origin, {...common, connect: tls})
    return {dispatcher: pool, route, pool: () => pool, describe}
  }
  let pool: Pool | undefined
  const agent = new ProxyAgent({
    ...common,
    uri: route.proxy.href,
    // https goes through a CONNECT tunnel, TLS end to end; plain http is sent to the proxy as is.
    proxyTunnel: target.protocol === 'https:',
    requestTls: tls,
    proxyTls: tls,
    // A proxy that never answers CONNECT must not hold a command for undici's default 5 minutes.
    clientFactory: (origin, opts) => new Pool(origin, {...opts, headersTimeout: timeout}),
    factory: (origin, opts) => (pool = new Pool(origin, opts)),
  })
  return {dispatcher: agent, route, pool: () => pool, describe}
}
