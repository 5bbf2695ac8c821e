/**
 * The proxy rules of docs/network.md, case by case, on the function that decides them (no
 * connection is made: the end-to-end tests are in https-proxy.test.ts).
 */
import {describe, expect, it} from 'vitest'

import {routeFor} from '../../src/net/proxy.js'

const PROXY = 'http://proxy.example:3128'

function via(url: string, env: NodeJS.ProcessEnv): string {
  const route = routeFor(new URL(url), env)
  return route.proxy ? `proxy ${route.proxy.host}` : `direct: ${route.reason}`
}

describe('which proxy a URL goes through', () => {
  it('takes HTTPS_PROXY for https and HTTP_PROXY for http, lower case first, neither for the other', () => {
    expect(via('https://api.example.com', {HTTPS_PROXY: PROXY})).toBe('proxy proxy.example:3128')
    expect(via('https://api.example.com', {https_proxy: 'http://low:1', HTTPS_PROXY: PROXY})).toBe('proxy low:1')
    expect(via('https://api.example.com', {HTTP_PROXY: PROXY})).toBe('direct: no HTTPS_PROXY is set')
    expect(via('http://app.internal:3000', {HTTP_PROXY: PROXY})).toBe('proxy proxy.example:3128')
    expect(via('https://api.example.com', {HTTPS_PROXY: ''})).toBe('direct: no HTTPS_PROXY is set')
    expect(via('https://api.example.com', {HTTPS_PROXY: 'proxy.example:8080'})).toBe('proxy proxy.example:8080')
  })

  it('never proxies loopback', () => {
    for (const url of [
      'https://127.0.0.1:4010',
      'https://127.9.9.9',
      'https://[::1]:4010',
      'https://localhost',
      'https://a.localhost',
    ])
      expect(via(url, {HTTPS_PROXY: PROXY}), url).toBe('direct: loopback is always reached directly')
  })

  it('reads NO_PROXY: names and their subdomains, dots and stars, ports, IPs, CIDR ranges, *', () => {
    const cases: Array<[string, string, boolean]> = [
      ['https://api.example.com', 'example.com', true],
      ['https://api.example.com', '.example.com', true],
      ['https://example.com', '.example.com', true],
      ['https://api.example.com', '*.example.com', true],
      ['https://badexample.com', 'example.com', false],
      ['https://api.example.com', 'other.com, example.com', true],
      ['https://api.example.com', 'other.com example.com', true],
      ['https://api.example.com', 'EXAMPLE.COM', true],
      ['https://api.example.com:8443', 'example.com:8443', true],
      ['https://api.example.com', 'example.com:8443', false],
      ['https://api.example.com', 'example.com:443', true],
      ['https://10.1.2.3', '10.1.2.3', true],
      ['https://10.1.2.3', '10.0.0.0/8', true],
      ['https://11.1.2.3', '10.0.0.0/8', false],
      ['https://[fd00::5]', 'fd00::/8', true],
      ['https://[fd00::5]:8443', '[fd00::5]:8443', true],
      ['https://[fd00::5]', 'fd00::5', true],
      ['https://api.example.com', '10.0.0.0/8', false],
      ['https://anything.example', '*', true],
    ]
    for (const [url, noProxy, direct] of cases)
      expect(
        via(url, {HTTPS_PROXY: PROXY, NO_PROXY: noProxy}).startsWith('direct'),
        `${url} with NO_PROXY=${noProxy}`,
      ).toBe(direct)
    expect(via('https://api.example.com', {HTTPS_PROXY: PROXY, no_proxy: 'example.com', NO_PROXY: ''})).toBe(
      'direct: no_proxy has example.com',
    )
  })

  it('refuses a proxy URL it cannot use, naming the variable and not the password', () => {
    expect(() => routeFor(new URL('https://x.example'), {HTTPS_PROXY: 'socks5://u:pw-secret@h:1080'})).toThrow(
      /^HTTPS_PROXY uses socks5:\/\/, which bk does not support: "socks5:\/\/\[user\]:\[redacted\]@h:1080"$/,
    )
    // A value that does not parse is never printed: no part of it is surely not the password.
    expect(() => routeFor(new URL('https://x.example'), {https_proxy: 'http://u:pw-secret@[bad'})).toThrow(
      /^https_proxy is not a URL \(value hidden\)$/,
    )
  })
})
