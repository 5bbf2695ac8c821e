/**
 * Which proxy, if any, a request to a URL goes through, read from the environment the way curl,
 * Go and undici read it (docs/network.md):
 * - https URLs use `https_proxy` or `HTTPS_PROXY`, http URLs `http_proxy` or `HTTP_PROXY`; the
 *   lower-case name wins, an empty value is unset, and neither stands in for the other;
 * - `no_proxy` or `NO_PROXY` lists hosts reached directly, separated by commas or spaces: `*` (all),
 *   a name (itself and every subdomain; a leading `.` or `*.` is ignored), an IP address, an IP
 *   range in CIDR form (`10.0.0.0/8`), each optionally with `:port`; names are never resolved;
 * - loopback (localhost, *.localhost, 127.0.0.0/8, ::1) is always reached directly.
 * The decision is made here rather than inside undici's EnvHttpProxyAgent so that --debug and
 * `bk doctor` can say which proxy a request used and why, and so that loopback and CIDR ranges
 * follow the rules above.
 */
import {BlockList, isIP} from 'node:net'

import {InputError} from '../shared/errors.js'
import {bareHost, isLoopback} from './loopback.js'

export interface Route {
  /** The proxy to go through, or undefined for a direct connection. */
  proxy: URL | undefined
  /** The variable the proxy came from (`HTTPS_PROXY`…), when there is one. */
  variable?: string | undefined
  /** Why: for --debug and `bk doctor`. */
  reason: string
}

const DEFAULT_PORTS: Record<string, number> = {'http:': 80, 'https:': 443}

/** The proxy (or none) for requests to `target`, by the rules above. */
export function routeFor(target: URL, env: NodeJS.ProcessEnv = process.env): Route {
  const host = bareHost(target.hostname)
  if (isLoopback(host) || host.endsWith('.localhost'))
    return {proxy: undefined, reason: 'loopback is always reached directly'}
  const variable = proxyVariable(target.protocol, env)
  if (!variable) {
    const names = target.protocol === 'https:' ? 'HTTPS_PROXY' : 'HTTP_PROXY'
    return {proxy: undefined, reason: `no ${names} is set`}
  }
  const port = Number(target.port) || DEFAULT_PORTS[target.protocol] || 0
  const bypass = noProxyMatch(host, port, env)
  if (bypass) return {proxy: undefined, reason: `${bypass.variable} has ${bypass.entry}`}
  return {proxy: parseProxyUrl(variable.value, variable.name), variable: variable.name, reason: `from ${variable.name}`}
}

/** The proxy variable that applies to a scheme: lower case first, as curl and undici read them. */
export function proxyVariable(
  protocol: string,
  env: NodeJS.ProcessEnv = process.env,
): {name: string; value: string} | undefined {
  const names = protocol === 'https:' ? ['https_proxy', 'HTTPS_PROXY'] : ['http_proxy', 'HTTP_PROXY']
  for (const name of names) {
    const value = env[name]?.trim()
    if (value) return {name, value}
  }
  return undefined
}

/** A proxy URL as the variables hold it; `host:port` alone means http. Throws when it does not parse. */
function proxyUrl(value: string): URL {
  return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`)
}

/**
 * A proxy URL as the variables hold it. A value that does not parse is never printed: it may
 * hold a password (`user:pa ss@host`), and no part of it can be told apart for sure.
 */
export function parseProxyUrl(value: string, variable: string): URL {
  let url: URL
  try {
    url = proxyUrl(value)
  } catch {
    throw new InputError(`${variable} is not a URL (value hidden)`, {
      code: 'invalid_proxy',
      hint: `Set ${variable} to http://HOST:PORT (or http://USER:PASSWORD@HOST:PORT).`,
    })
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InputError(`${variable} uses ${url.protocol}//, which bk does not support: "${redactProxy(url)}"`, {
      code: 'invalid_proxy',
      hint: `Use an http:// or https:// proxy in ${variable}.`,
    })
  }
  return url
}

/** A proxy URL fit to print: the password (and the user name) replaced. */
export function redactProxy(url: URL): string {
  const credentials =
    url.username || url.password ? `${url.username ? '[user]' : ''}${url.password ? ':[redacted]' : ''}@` : ''
  return `${url.protocol}//${credentials}${url.host}`
}

/**
 * A proxy variable's value fit to print (`bk doctor`, its bundle): credentials replaced, with
 * or without a scheme; a value that does not parse hidden whole.
 */
export function printableProxyValue(value: string): string {
  if (!value.trim()) return value
  try {
    return redactProxy(proxyUrl(value.trim()))
  } catch {
    return '(not a URL; value hidden)'
  }
}

/** The NO_PROXY entry that sends `host:port` directly, if one does. */
function noProxyMatch(
  host: string,
  port: number,
  env: NodeJS.ProcessEnv,
): {variable: string; entry: string} | undefined {
  const variable = env.no_proxy !== undefined ? 'no_proxy' : 'NO_PROXY'
  const value = env.no_proxy ?? env.NO_PROXY ?? ''
  for (const raw of value.split(/[,\s]+/)) {
    const entry = raw.trim().toLowerCase()
    if (!entry) continue
    if (entry === '*') return {variable, entry}
    const parsed = parseEntry(entry)
    if (parsed.port && parsed.port !== port) continue
    if (matchesHost(host, parsed.host)) return {variable, entry: raw.trim()}
  }
  return undefined
}

function parseEntry(entry: string): {host: string; port: number} {
  // [v6]:port, [v6], v6, v4/cidr, host:port, host
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry)
  if (bracketed) return {host: bracketed[1] as string, port: Number(bracketed[2] ?? 0)}
  if (isIP(entry) === 6 || (entry.includes('/') && isIP(entry.split('/')[0] as string))) return {host: entry, port: 0}
  const withPort = /^(.+):(\d+)$/.exec(entry)
  const host = withPort ? (withPort[1] as string) : entry
  return {host: host.replace(/^\*?\./, ''), port: Number(withPort?.[2] ?? 0)}
}

function matchesHost(host: string, pattern: string): boolean {
  const slash = pattern.indexOf('/')
  if (slash > 0) {
    const family = isIP(host)
    const base = pattern.slice(0, slash)
    const baseFamily = isIP(base)
    const bits = Number(pattern.slice(slash + 1))
    if (!family || family !== baseFamily || !Number.isInteger(bits)) return false
    const range = new BlockList()
    try {
      range.addSubnet(base, bits, baseFamily === 6 ? 'ipv6' : 'ipv4')
    } catch {
      return false
    }
    return range.check(host, family === 6 ? 'ipv6' : 'ipv4')
  }
  if (isIP(pattern) || isIP(host)) return isIP(pattern) === isIP(host) && sameAddress(host, pattern)
  return host === pattern || host.endsWith(`.${pattern}`)
}

function sameAddress(a: string, b: string): boolean {
  if (isIP(a) !== 6) return a === b
  const list = new BlockList()
  list.addAddress(b, 'ipv6')
  return list.check(a, 'ipv6')
}
