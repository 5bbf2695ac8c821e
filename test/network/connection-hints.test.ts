/**
 * A command whose request never got an answer (nothing listening, no such host, a certificate bk
 * does not trust) or whose base URL is unusable says how to fix it as `bk doctor` would: one
 * `Error:` line, one `Hint:` line naming the base URL, what set it, and `bk doctor`.
 */
import {createServer} from 'node:net'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runBk, tempDir} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

let tls: RunningEmulator
/** Answers every request 1.5 s late: later than BK_TIMEOUT=0.5, sooner than BK_TIMEOUT=10. */
let slow: RunningEmulator
let closedPort: number
beforeAll(async () => {
  tls = await start({tls: {}})
  slow = await start({latencyMs: 1500})
  // A port that was free a moment ago: nothing listens there.
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closedPort = (server.address() as {port: number}).port
  await new Promise((resolve) => server.close(resolve))
})
afterAll(() => Promise.all([tls.close(), slow.close()]))

const TOKEN = {BK_ACCESS_TOKEN: 'tok_hint', BK_BUSINESS_ID: 'biz_demo_acme'}

/** The two lines on stderr: the error and its hint. */
function lines(stderr: string): {error: string; hint: string} {
  const all = stderr.split('\n').filter(Boolean)
  expect(all, stderr).toHaveLength(2)
  expect(all[0]).toMatch(/^Error: /)
  expect(all[1]).toMatch(/^Hint: /)
  return {error: all[0] as string, hint: all[1] as string}
}

describe('connection errors name the fix', () => {
  it('nothing listening at the BK_BASE_URL: start the emulator, or fix BK_BASE_URL; bk doctor', async () => {
    const url = `http://127.0.0.1:${closedPort}`
    const res = await runBk(['invoices', 'list'], {env: {BK_BASE_URL: url, ...TOKEN}})
    expect(res.code).toBe(7)
    const {hint} = lines(res.stderr)
    expect(hint).toContain(`Nothing listens at 127.0.0.1:${closedPort}`)
    expect(hint).toContain(`bk emulator start --port ${closedPort}`)
    expect(hint).toContain(`the base URL ${url} (from BK_BASE_URL)`)
    expect(hint).toContain('`bk doctor`')
  })

  it("a profile's base URL: names the profile", async () => {
    const configDir = tempDir('bk-hint-')
    const url = `http://127.0.0.1:${closedPort}`
    const add = await runBk(
      [
        'profiles',
        'add',
        'gone',
        '--env',
        'local',
        '--base-url',
        url,
        '--client-id',
        'c',
        '--client-secret-stdin',
        '--insecure-storage',
      ],
      {configDir, input: 's3cret'},
    )
    expect(add.code, add.stderr).toBe(0)
    const res = await runBk(['businesses', 'list'], {configDir})
    expect(res.code).toBe(7)
    expect(lines(res.stderr).hint).toContain(`the base URL ${url} (from profile gone)`)
  })

  it('a host that does not resolve: check the base URL and DNS; bk doctor', async () => {
    const url = 'https://bk-no-such-host.invalid'
    const res = await runBk(['invoices', 'list'], {env: {BK_BASE_URL: url, ...TOKEN}})
    expect(res.code).toBe(7)
    const {hint} = lines(res.stderr)
    expect(hint).toContain('bk-no-such-host.invalid does not resolve')
    expect(hint).toContain(`the base URL ${url} (from BK_BASE_URL)`)
    expect(hint).toContain('`bk doctor`')
  })

  it('a certificate bk does not trust: BK_CA_FILE, the base URL, bk doctor', async () => {
    const res = await runBk(['invoices', 'list'], {env: {BK_BASE_URL: tls.baseUrl, ...TOKEN}})
    expect(res.code).toBe(7)
    const {hint} = lines(res.stderr)
    expect(hint).toContain('BK_CA_FILE')
    expect(hint).toContain(`This is the base URL ${tls.baseUrl} (from BK_BASE_URL)`)
    expect(hint).toContain('`bk doctor`')
  })

  it('a base URL that is not one: names BK_BASE_URL and bk doctor', async () => {
    const res = await runBk(['invoices', 'list'], {env: {BK_BASE_URL: 'localhost:4010', ...TOKEN}})
    expect(res.code).toBe(2)
    const {error, hint} = lines(res.stderr)
    expect(error).toContain('BK_BASE_URL')
    expect(hint).toContain('BK_BASE_URL')
    expect(hint).toContain('`bk doctor`')
  })
})

describe('BK_TIMEOUT: how long a request waits for its answer, in seconds', () => {
  it('an answer later than BK_TIMEOUT: exit 7, the wait named, the hint says BK_TIMEOUT', async () => {
    const res = await runBk(['businesses', 'list'], {env: {...envFor(slow), BK_TIMEOUT: '0.5'}})
    expect(res.code, res.stderr).toBe(7)
    const {error, hint} = lines(res.stderr)
    expect(error).toMatch(/^Error: No answer from http:\/\/127\.0\.0\.1:\d+ within 0\.5 s for POST \/v0\/auth\/token$/)
    expect(hint).toContain(`127.0.0.1:${new URL(slow.baseUrl).port} did not answer within 0.5 s`)
    expect(hint).toContain('give it longer with BK_TIMEOUT (seconds, e.g. BK_TIMEOUT=60)')
    expect(hint).toContain(`the base URL ${slow.baseUrl} (from BK_BASE_URL)`)
    expect(hint).toContain('`bk doctor`')
  })

  it('a BK_TIMEOUT longer than the answer takes: the same command succeeds', async () => {
    const res = await runBk(['businesses', 'list', '--json'], {env: {...envFor(slow), BK_TIMEOUT: '10'}})
    expect(res.stderr).toBe('')
    expect(res.code).toBe(0)
  })

  it.each(['abc', '0', '-5', '1e3', '90000'])(
    'BK_TIMEOUT=%s: refused before any request, naming the value',
    async (value) => {
      const res = await runBk(['businesses', 'list'], {env: {...envFor(slow), BK_TIMEOUT: value}})
      expect(res.code).toBe(2)
      const {error, hint} = lines(res.stderr)
      expect(error).toBe(
        `Error: Invalid BK_TIMEOUT "${value}": expected a number of seconds greater than 0 and at most 86400`,
      )
      expect(hint).toBe('Hint: Set BK_TIMEOUT to seconds, e.g. BK_TIMEOUT=60, or unset it for the default (30).')
    },
  )
})
