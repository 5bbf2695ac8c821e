/**
 * `bk doctor` against the emulator over https: healthy (direct and through the real proxy), and
 * each way it can be broken, every failure named with its fix; and the support bundle, searched
 * for the client secret and for every token the emulator issued.
 */
import {mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'
import {start, type RunningEmulator} from '../helpers/emulator.js'
import {TEST_HOST, hostsFile, proxyStatus, startProxy, type RunningProxy} from '../helpers/network.js'

interface Check {
  id: string
  status: 'pass' | 'warn' | 'fail' | 'skip'
  detail: string
  fix?: string
}
interface Report {
  ok: boolean
  checks: Check[]
}

let emulator: RunningEmulator
let proxy: RunningProxy | undefined
let hosts: string

beforeAll(async () => {
  emulator = await start({tls: {hosts: [TEST_HOST]}, clientSecret: `doctor-secret-${process.pid}`})
  if (proxyStatus().available) {
    hosts = hostsFile()
    proxy = await startProxy(hosts)
  }
})
afterAll(async () => {
  await proxy?.close()
  await emulator?.close()
})

function env(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    BK_BASE_URL: emulator.baseUrl,
    BK_ENV: 'sandbox',
    BK_CLIENT_ID: emulator.clientId,
    BK_CLIENT_SECRET: emulator.clientSecret,
    BK_BUSINESS_ID: emulator.businessIds[0],
    BK_CA_FILE: emulator.caFile,
    ...extra,
  }
}

async function doctor(extra: Record<string, string | undefined>, args: string[] = [], configDir?: string) {
  const result = await runBk(['doctor', '--json', ...args], {env: env(extra), ...(configDir ? {configDir} : {})})
  const report = parseJsonOutput<Report>(result)
  const check = (id: string): Check => {
    const found = report.checks.find((c) => c.id === id)
    if (!found) throw new Error(`no check ${id} in ${JSON.stringify(report.checks.map((c) => c.id))}`)
    return found
  }
  return {result, report, check}
}

describe('bk doctor', () => {
  it('on a healthy https setup every check passes, and the text report says so', async () => {
    const {result, report, check} = await doctor({})
    expect(result.code, JSON.stringify(report.checks, null, 1)).toBe(0)
    expect(report.ok).toBe(true)
    for (const id of ['versions', 'config', 'profile', 'proxy', 'ca', 'dns', 'tcp', 'tls', 'clock', 'token', 'jwks'])
      expect(check(id).status, `${id}: ${check(id).detail}`).toBe('pass')
    expect(check('profile').detail).toContain('(from BK_BASE_URL)')
    expect(check('ca').detail).toContain(`BK_CA_FILE=${emulator.caFile} (1 certificate`)
    expect(check('tls').detail).toContain('presents a trusted certificate')
    expect(check('token').detail).toContain(`the default ${emulator.businessIds[0]} among them`)

    const text = await runBk(['doctor'], {env: env()})
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/^pass {2}tls +127\.0\.0\.1:\d+ presents a trusted certificate/m)
    // (A machine where an older bk left keys in the kernel keyring gets a warning about them; the
    // keys test/auth/kernel-keyring.test.ts plants are readable by their own session only.)
    expect(text.stdout).toMatch(/^(Everything bk needs works\.|No failures; (1 warning|\d+ warnings)\.)$/m)
  })

  it('with the emulator stopped, TCP fails and says to start it', async () => {
    const stopped = await start()
    const url = stopped.baseUrl
    await stopped.close()
    const {result, check} = await doctor({BK_BASE_URL: url, BK_CA_FILE: undefined})
    expect(result.code).toBe(7)
    expect(check('tcp').status).toBe('fail')
    expect(check('tcp').detail).toMatch(/cannot connect to 127\.0\.0\.1 port \d+ \(ECONNREFUSED\)/)
    expect(check('tcp').fix).toContain('bk emulator start')
    expect(check('token').status).toBe('skip')
  })

  it('with no keychain reachable, the keychain check fails naming the ways out', async () => {
    const configDir = tempDir()
    mkdirSync(configDir, {recursive: true, mode: 0o700})
    writeFileSync(
      join(configDir, 'config.json'),
      JSON.stringify({
        active: 'kc',
        profiles: {kc: {env: 'local', baseUrl: emulator.baseUrl, clientId: emulator.clientId, storage: 'keychain'}},
      }),
      {mode: 0o600},
    )
    // The profile alone: a BK_ENV beside it that names another environment is refused.
    const noEnvCredentials = {
      BK_CLIENT_ID: undefined,
      BK_CLIENT_SECRET: undefined,
      BK_BASE_URL: undefined,
      BK_ENV: undefined,
    }
    const {result, check} = await doctor(
      {...noEnvCredentials, DBUS_SESSION_BUS_ADDRESS: undefined, XDG_RUNTIME_DIR: undefined},
      [],
      configDir,
    )
    expect(result.code).toBe(3)
    expect(check('profile').status).toBe('pass')
    expect(check('keychain').status).toBe('fail')
    expect(check('keychain').detail).toContain('No OS keychain is reachable')
    expect(check('keychain').fix).toContain('--insecure-storage')
    expect(check('keychain').fix).toContain('BK_CLIENT_SECRET')
    // The network is still checked, so one run tells everything.
    expect(check('tls').status).toBe('pass')
    expect(check('token').status).toBe('skip')
  })

  it('with the wrong CA, TLS fails naming BK_CA_FILE', async () => {
    const {result, check} = await doctor({BK_CA_FILE: undefined})
    expect(result.code).toBe(7)
    expect(check('tls').status).toBe('fail')
    expect(check('tls').detail).toMatch(/^The certificate of 127\.0\.0\.1:\d+ is not trusted .*BK_CA_FILE/)
    expect(check('tls').fix).toContain('export BK_CA_FILE=')
  })

  it('through the proxy: passes, and a proxy that refuses is named with the fix', async (ctx) => {
    if (!proxy) return ctx.skip()
    const serviceUrl = emulator.baseUrl.replace('127.0.0.1', TEST_HOST)
    const via = await doctor({BK_BASE_URL: serviceUrl, HTTPS_PROXY: proxy.url})
    expect(via.result.code, JSON.stringify(via.report.checks, null, 1)).toBe(0)
    expect(via.check('proxy').detail).toBe(`via http://127.0.0.1:${proxy.port} (from HTTPS_PROXY)`)
    expect(via.check('tls').detail).toContain('(through the proxy tunnel)')
    expect(proxy.tunnels()).toContain(TEST_HOST)

    const strict = await startProxy(hosts, {connectPorts: [443]})
    try {
      const refused = await doctor({BK_BASE_URL: serviceUrl, HTTPS_PROXY: strict.url})
      expect(refused.result.code).toBe(7)
      expect(refused.check('tcp').status).toBe('pass') // the proxy itself answers
      expect(refused.check('tls').status).toBe('fail')
      expect(refused.check('tls').detail).toMatch(
        /^The proxy http:\/\/127\.0\.0\.1:\d+ \(from HTTPS_PROXY\) refused to connect/,
      )
      expect(refused.check('tls').fix).toContain('NO_PROXY')
    } finally {
      await strict.close()
    }
  })

  it('the support bundle holds the report and a --debug trace, and neither the secret nor any token', async () => {
    const dir = join(tempDir(), 'bundle')
    const result = await runBk(['doctor', '--bundle', dir, '--command', 'businesses list --limit 2'], {env: env()})
    expect(result.code, result.stderr).toBe(0)
    expect(readdirSync(dir).sort()).toEqual([
      'command.txt',
      'environment.json',
      'report.json',
      'report.txt',
      'versions.json',
    ])
    const trace = readFileSync(join(dir, 'command.txt'), 'utf8')
    expect(trace).toContain('$ bk businesses list --limit 2 --debug')
    expect(trace).toContain('[debug] → POST https://127.0.0.1:')
    expect(trace).toContain('(exit 0)')
    expect(JSON.parse(readFileSync(join(dir, 'environment.json'), 'utf8'))).toMatchObject({
      BK_CLIENT_SECRET: '[set]',
      BK_CA_FILE: emulator.caFile,
    })

    const tokens = [...emulator.state.tokens.keys()]
    expect(tokens.length).toBeGreaterThanOrEqual(2) // doctor's own, and the traced command's
    const everything = readdirSync(dir)
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('\n')
    expect(everything).not.toContain(emulator.clientSecret)
    for (const token of tokens) expect(everything).not.toContain(token)
    expect(result.stdout + result.stderr).not.toContain(emulator.clientSecret)
  })
})
