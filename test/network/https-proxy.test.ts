/**
 * bk where users are: the emulator over https (its own CA, trusted through BK_CA_FILE) behind a
 * real forward proxy (tinyproxy) that tunnels with CONNECT. The service is named
 * bk-emulator.test, which bk itself cannot resolve: a command that works reached it through the
 * proxy. Where bk must reach that name directly (NO_PROXY), it runs with the test's hosts file.
 */
import {copyFileSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {rootCertificates} from 'node:tls'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {ROOT, parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'
import {start, type RunningEmulator} from '../helpers/emulator.js'
import {reply, scriptedServer} from '../helpers/scripted-server.js'
import {TEST_HOST, hostsFile, requireProxyOrSkip, startProxy, withHosts, type RunningProxy} from '../helpers/network.js'

let available = false
let emulator: RunningEmulator
let proxy: RunningProxy
let hosts: string
let serviceUrl: string

beforeAll(async () => {
  available = requireProxyOrSkip()
  emulator = await start({tls: {hosts: [TEST_HOST]}})
  if (!available) return
  hosts = hostsFile()
  proxy = await startProxy(hosts)
  serviceUrl = emulator.baseUrl.replace('127.0.0.1', TEST_HOST)
})
afterAll(async () => {
  await proxy?.close()
  await emulator?.close()
})

/** Environment-only credentials for the emulator by its test name, trusting its CA. */
function env(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    BK_BASE_URL: serviceUrl,
    BK_ENV: 'sandbox',
    BK_CLIENT_ID: emulator.clientId,
    BK_CLIENT_SECRET: emulator.clientSecret,
    BK_BUSINESS_ID: emulator.businessIds[0],
    BK_CA_FILE: emulator.caFile,
    HTTPS_PROXY: proxy.url,
    ...extra,
  }
}

function tunnelsTo(host: string): number {
  return proxy.tunnels().filter((t) => t === host).length
}

describe('over https, through a forward proxy', () => {
  it('serves every request on its own https, and names where its CA is', () => {
    expect(emulator.baseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
    expect(readFileSync(emulator.caFile as string, 'utf8')).toContain('-----BEGIN CERTIFICATE-----')
  })

  it('runs the main commands through the proxy with CONNECT, the token and API alike', async (ctx) => {
    if (!available) return ctx.skip()
    const before = tunnelsTo(TEST_HOST)
    const list = await runBk(['businesses', 'list', '--json'], {env: env()})
    expect(list.stderr).toBe('')
    expect(list.code).toBe(0)
    expect(parseJsonOutput<{data: Array<{id: string}>}>(list).data.map((b) => b.id)).toContain(emulator.businessIds[0])

    // Copies: each run keeps a journal beside its input file.
    const dir = tempDir()
    copyFileSync(join(ROOT, 'examples', 'bills.csv'), join(dir, 'bills.csv'))
    copyFileSync(join(ROOT, 'examples', 'journal-entries.yaml'), join(dir, 'journal-entries.yaml'))
    const imported = await runBk(['bills', 'import', join(dir, 'bills.csv'), '--json'], {env: env(), cwd: dir})
    expect(imported.code, imported.stderr).toBe(0)
    expect(emulator.state.bills.all(emulator.businessIds[0] as string).length).toBeGreaterThan(0)

    const journal = await runBk(['journal-entries', 'create', join(dir, 'journal-entries.yaml')], {
      env: env(),
      cwd: dir,
    })
    expect(journal.code, journal.stderr).toBe(0)

    const file = join(dir, 'invoices.csv')
    const exported = await runBk(['invoices', 'list', '--file', file, '--output', 'csv'], {env: env()})
    expect(exported.code, exported.stderr).toBe(0)
    expect(readFileSync(file, 'utf8').split('\n').length).toBeGreaterThan(10)

    const jwks = await runBk(['webhooks', 'jwks', '--json'], {env: env()})
    expect(jwks.code, jwks.stderr).toBe(0)
    expect(parseJsonOutput<{keys: unknown[]}>(jwks).keys.length).toBeGreaterThan(0)

    // Each command opened at least one tunnel to the service through the proxy.
    expect(tunnelsTo(TEST_HOST) - before).toBeGreaterThanOrEqual(5)
  })

  it('--debug names the proxy each request went through, never its password', async (ctx) => {
    if (!available) return ctx.skip()
    const authProxy = await startProxy(hosts, {basicAuth: {user: 'proxyuser', password: 'proxy-pass-9137'}})
    try {
      const result = await runBk(['businesses', 'list', '--json', '--debug'], {env: env({HTTPS_PROXY: authProxy.url})})
      expect(result.code, result.stderr).toBe(0)
      expect(result.stderr).toContain(
        `via proxy http://[user]:[redacted]@127.0.0.1:${authProxy.port} (from HTTPS_PROXY)`,
      )
      expect(result.stderr + result.stdout).not.toContain('proxy-pass-9137')
      expect(authProxy.tunnels()).toContain(TEST_HOST)

      // Without the credentials, the proxy's 407 is one line naming the variable to fix.
      const refused = await runBk(['businesses', 'list'], {
        env: env({HTTPS_PROXY: `http://127.0.0.1:${authProxy.port}`}),
      })
      expect(refused.code).toBe(7)
      expect(refused.stderr).toMatch(
        /^Error: The proxy http:\/\/127\.0\.0\.1:\d+ \(from HTTPS_PROXY\) asked for credentials \(407\)/,
      )
      expect(refused.stderr).toContain('http://USER:PASSWORD@HOST:PORT')
    } finally {
      await authProxy.close()
    }
  })

  it('NO_PROXY and loopback go direct, without the proxy', async (ctx) => {
    if (!available) return ctx.skip()
    const before = proxy.tunnels().length
    // bk resolves bk-emulator.test itself here, so it runs with the test's hosts file.
    for (const noProxy of [TEST_HOST, '.test', `${TEST_HOST}:${new URL(serviceUrl).port}`, '*']) {
      const direct = await runBk(['businesses', 'list', '--json', '--debug'], {
        env: env({NO_PROXY: noProxy}),
        prefix: withHosts(hosts, []),
      })
      expect(direct.code, direct.stderr).toBe(0)
      expect(direct.stderr).toContain(`direct (NO_PROXY has ${noProxy})`)
    }
    expect(proxy.tunnels().length).toBe(before)
    // A NO_PROXY entry for another port does not apply.
    const otherPort = await runBk(['businesses', 'list', '--json', '--debug'], {env: env({NO_PROXY: `${TEST_HOST}:1`})})
    expect(otherPort.code, otherPort.stderr).toBe(0)
    expect(otherPort.stderr).toContain('via proxy')
    expect(proxy.tunnels().length).toBeGreaterThan(before)
    const afterOtherPort = proxy.tunnels().length

    // The emulator's own loopback address never goes through a proxy, even a dead one.
    const loopback = await runBk(['businesses', 'list', '--json', '--debug'], {
      env: env({BK_BASE_URL: emulator.baseUrl, HTTPS_PROXY: 'http://127.0.0.1:9', NO_PROXY: undefined}),
    })
    expect(loopback.code, loopback.stderr).toBe(0)
    expect(loopback.stderr).toContain('direct (loopback is always reached directly)')
    expect(proxy.tunnels().length).toBe(afterOtherPort)
  })

  it('without BK_CA_FILE the certificate fails in one line naming the host and BK_CA_FILE; with it, passes', async (ctx) => {
    if (!available) return ctx.skip()
    const untrusted = await runBk(['businesses', 'list'], {env: env({BK_CA_FILE: undefined})})
    expect(untrusted.code).toBe(7)
    const [first] = untrusted.stderr.split('\n')
    expect(first).toMatch(/^Error: The certificate of bk-emulator\.test:\d+ is not trusted \([A-Z_]+\): set BK_CA_FILE/)
    expect(untrusted.stderr).toMatch(/^Hint: .*export BK_CA_FILE=/m)

    // A CA bundle that does not hold the authority that signed it: said so, naming the file.
    const otherCa = join(tempDir(), 'other-ca.pem')
    writeFileSync(otherCa, rootCertificates[0] as string)
    const wrongCa = await runBk(['businesses', 'list'], {env: env({BK_CA_FILE: otherCa})})
    expect(wrongCa.code).toBe(7)
    expect(wrongCa.stderr.split('\n')[0]).toMatch(
      new RegExp(
        `^Error: The certificate of bk-emulator\\.test:\\d+ is not trusted \\([A-Z_]+\\), not even with BK_CA_FILE=${otherCa}$`,
      ),
    )
    // A file that is no CA bundle at all is refused before anything is sent.
    const notPem = join(ROOT, 'test', 'fixtures', 'webhooks', 'key.pub.pem')
    const wrongFile = await runBk(['businesses', 'list'], {env: env({BK_CA_FILE: notPem})})
    expect(wrongFile.code).toBe(2)
    expect(wrongFile.stderr).toContain(`BK_CA_FILE=${notPem}: holds no PEM certificate`)

    const trusted = await runBk(['businesses', 'list', '--json'], {env: env()})
    expect(trusted.code, trusted.stderr).toBe(0)
  })

  it('a proxy that refuses the tunnel, or is not there, is named with the fix', async (ctx) => {
    if (!available) return ctx.skip()
    const strict = await startProxy(hosts, {connectPorts: [443]})
    try {
      const refused = await runBk(['businesses', 'list'], {env: env({HTTPS_PROXY: strict.url})})
      expect(refused.code).toBe(7)
      expect(refused.stderr).toMatch(
        /^Error: The proxy http:\/\/127\.0\.0\.1:\d+ \(from HTTPS_PROXY\) refused to connect to bk-emulator\.test:\d+ \(403\)/,
      )
      expect(refused.stderr).toContain('NO_PROXY')
    } finally {
      await strict.close()
    }
    const gone = await runBk(['businesses', 'list'], {env: env({HTTPS_PROXY: 'http://127.0.0.1:9'})})
    expect(gone.code).toBe(7)
    expect(gone.stderr).toMatch(/^Error: Could not connect to the proxy http:\/\/127\.0\.0\.1:9 \(from HTTPS_PROXY\)/)
  })

  it('replay fetches over https through the proxy and re-posts through it to an http app', async (ctx) => {
    if (!available) return ctx.skip()
    const app = await scriptedServer([reply(200, {})])
    try {
      // One notification in the log (the trigger talks to the emulator's loopback address).
      const triggered = await runBk(['emulator', 'trigger', 'TASK_REQUEST'], {
        env: env({BK_BASE_URL: emulator.baseUrl}),
      })
      expect(triggered.code, triggered.stderr).toBe(0)
      // The app by a name only the proxy resolves: the post can only arrive through HTTP_PROXY.
      const hook = `http://${TEST_HOST}:${new URL(app.url).port}/hook`
      const replayed = await runBk(['webhooks', 'replay', '--forward-to', hook, '--limit', '1', '--json'], {
        env: env({HTTP_PROXY: proxy.url}),
      })
      expect(replayed.code, replayed.stderr + replayed.stdout).toBe(0)
      expect(app.requests).toHaveLength(1)
      expect(app.requests[0]?.url).toBe('/hook')
      expect(app.requests[0]?.headers['bk-replay']).toBe('1')
      // Plain http is sent to the proxy as an absolute-form request, not tunnelled.
      expect(proxy.log()).toContain(`POST ${hook} HTTP/1.1`)
    } finally {
      await app.close()
    }
  })
})
