import {isIP} from 'node:net'

/** 0.0.0.0, `::` (any spelling of it): a server listening there listens on every address of the machine. */
export function isEveryAddress(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '')
  return h === '0.0.0.0' || (isIP(h) === 6 && /^[0:]+$/.test(h))
}

/**
 * The host, as a URL writes it, that a client on this machine connects to for a server listening
 * on `host`: loopback for every address (0.0.0.0 is no address to connect to, and bk talks plain
 * http to loopback only), else `host` itself.
 */
export function hostToConnect(host: string): string {
  const h = host.replace(/^\[|\]$/g, '')
  if (isEveryAddress(h)) return isIP(h) === 6 ? '[::1]' : '127.0.0.1'
  return h.includes(':') ? `[${h}]` : h
}
