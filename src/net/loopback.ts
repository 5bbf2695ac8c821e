/**
 * Loopback, in one place: the hosts bk reaches without leaving this machine, and so the only ones
 * it talks plain http to (a base URL, a redirect from https) and never sends through a proxy.
 * `*.localhost` names are not among them here: RFC 6761 reserves them for loopback, but a
 * resolver may still map one elsewhere (/etc/hosts), and bk does not send a secret over plain
 * http on that bet. The proxy rules reach them directly all the same (proxy.ts).
 */
import {BlockList, isIP} from 'node:net'

let addresses: BlockList | undefined

/** A URL's hostname as compared: IPv6 without its brackets, in lower case. */
export function bareHost(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, '').toLowerCase()
}

/** localhost, 127.0.0.0/8, ::1, and 127.0.0.0/8 as IPv4-mapped IPv6 (a URL writes `[::ffff:7f00:1]`). */
export function isLoopback(hostname: string): boolean {
  const host = bareHost(hostname)
  if (host === 'localhost') return true
  const family = isIP(host)
  if (family === 0) return false
  if (!addresses) {
    addresses = new BlockList()
    addresses.addSubnet('127.0.0.0', 8, 'ipv4')
    addresses.addAddress('::1', 'ipv6')
  }
  return addresses.check(host, family === 6 ? 'ipv6' : 'ipv4')
}
