/**
 * Loopback, decided in one place (src/net/loopback.ts) for the base URL, a redirect from https,
 * the proxy rules and `bk doctor`: localhost, 127.0.0.0/8 and ::1, IPv4-mapped too; a
 * `*.localhost` name is reached without a proxy but gets no plain http (docs/network.md).
 */
import {describe, expect, it} from 'vitest'

import {validateBaseUrl} from '../../src/auth/base-url.js'
import {isLoopback} from '../../src/net/loopback.js'
import {routeFor} from '../../src/net/proxy.js'

describe('loopback', () => {
  it('is localhost, 127.0.0.0/8 and ::1, as written in a URL or typed, IPv4-mapped too', () => {
    for (const host of ['localhost', 'LOCALHOST', '127.0.0.1', '127.255.0.9', '::1', '[::1]', '[::ffff:7f00:1]'])
      expect(isLoopback(host), host).toBe(true)
    expect(isLoopback(new URL('http://[::ffff:127.0.0.1]:4010').hostname)).toBe(true)
    for (const host of ['a.localhost', 'localhost.example.com', '128.0.0.1', '10.0.0.1', '::2', '[::ffff:a00:1]', ''])
      expect(isLoopback(host), host).toBe(false)
  })

  it('is the only host a base URL may name over plain http: not a *.localhost name', () => {
    expect(validateBaseUrl('http://127.0.0.1:4010')).toBe('http://127.0.0.1:4010')
    expect(validateBaseUrl('http://[::ffff:127.0.0.1]:4010')).toBe('http://[::ffff:7f00:1]:4010')
    expect(() => validateBaseUrl('http://api.localhost:4010')).toThrow(/only https is allowed/)
  })

  it('and a *.localhost name is still reached without the proxy', () => {
    const proxy = {HTTPS_PROXY: 'http://proxy.example:3128'}
    for (const url of ['https://api.localhost', 'https://[::ffff:127.0.0.1]'])
      expect(routeFor(new URL(url), proxy).proxy, url).toBeUndefined()
  })
})
