import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'
import {addProfileArgs, envFor, start, type RunningEmulator} from '../helpers/emulator.js'

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start({clientSecret: 'very-secret-client-value'})
})
afterAll(() => emulator.close())

describe('secrets never appear in output', () => {
  it('not in --debug traces, status, lists, raw api calls or errors', async () => {
    const configDir = tempDir()
    const env = envFor(emulator)
    const runs = [
      await runBk(['businesses', 'list', '--debug'], {env, configDir}),
      await runBk(['auth', 'status', '--debug'], {env, configDir}),
      await runBk(['auth', 'status', '--json', '--debug'], {env, configDir}),
      await runBk(['api', 'GET', '/v0/business', '--paginate', '--debug'], {env, configDir}),
      await runBk(['api', 'GET', '/v0/business/biz_nope/invoice', '--debug'], {env, configDir}),
      await runBk(['api', 'GET', '/v0/business', '--debug'], {
        env: {...env, BK_CLIENT_SECRET: 'wrong-secret-value'},
        configDir,
      }),
    ]
    const tokens = [...emulator.state.tokens.keys()]
    expect(tokens.length).toBeGreaterThan(0)
    const everything = runs.map((r) => r.stdout + r.stderr).join('\n')
    expect(everything).toContain('[redacted]') // the traces ran and redacted the header
    expect(everything).not.toContain('very-secret-client-value')
    expect(everything).not.toContain('wrong-secret-value')
    for (const token of tokens) expect(everything).not.toContain(token)
  })

  it('profiles show never prints the secret', async () => {
    const configDir = tempDir()
    await runBk(addProfileArgs(emulator, 'p', '--insecure-storage'), {configDir, input: emulator.clientSecret})
    const show = await runBk(['profiles', 'show'], {configDir})
    const json = await runBk(['profiles', 'show', '--json'], {configDir})
    expect(show.code).toBe(0)
    expect(show.stdout).toContain('client id')
    expect(show.stdout + json.stdout).not.toContain(emulator.clientSecret)
  })
})

describe('--json prints exactly one JSON document', () => {
  it.each([
    [['businesses', 'list', '--json']],
    [['auth', 'status', '--json']],
    [['profiles', 'list', '--json']],
    [['api', 'GET', '/v0/business', '--json']],
  ])('%s', async (args) => {
    const res = await runBk(args, {env: envFor(emulator)})
    expect(res.code, res.stderr).toBe(0)
    expect(() => parseJsonOutput(res)).not.toThrow()
  })

  it('errors too, as {error, code, details}, with the exit code', async () => {
    const res = await runBk(['api', 'GET', '/v0/business/biz_missing/invoice', '--json'], {env: envFor(emulator, null)})
    expect(res.code).toBe(4)
    const body = parseJsonOutput<{error: string; code: string; details: {status: number}}>(res)
    expect(body.code).toBe('not_found')
    expect(body.error).toContain('biz_missing')
    expect(body.details.status).toBe(404)
  })
})

describe('with no TTY nothing prompts', () => {
  it('profiles add without a secret source names --client-secret-stdin', async () => {
    const res = await runBk(['profiles', 'add', 'x', '--env', 'local', '--client-id', 'abc'], {timeoutMs: 100_000})
    expect(res.code).toBe(2)
    expect(res.stderr).toContain('--client-secret-stdin')
  })

  it('a destructive command without --yes names --yes', async () => {
    const configDir = tempDir()
    await runBk(
      ['profiles', 'add', 'p', '--env', 'local', '--client-id', 'abc', '--client-secret-stdin', '--insecure-storage'],
      {configDir, input: 's3cret'},
    )
    const res = await runBk(['profiles', 'remove', 'p'], {configDir, timeoutMs: 100_000})
    expect(res.code).toBe(2)
    expect(res.stderr).toContain('--yes')
    expect((await runBk(['profiles', 'list', '--json'], {configDir})).stdout).toContain('"p"')
  })

  it('auth login refuses and points to profiles add', async () => {
    const res = await runBk(['auth', 'login'], {timeoutMs: 100_000})
    expect(res.code).toBe(2)
    expect(res.stderr).toContain('bk profiles add')
  })

  it('a mistyped command does not ask "did you mean"', async () => {
    const res = await runBk(['businesss', 'list'], {timeoutMs: 100_000, env: {CI: '1'}})
    expect(res.signal).toBeNull()
    expect(res.code).not.toBe(0)
    expect(res.stderr).toContain('not a bk command')
  })
})

describe('base URL safety', () => {
  it('refuses http:// for a non-loopback address in a profile', async () => {
    const res = await runBk(
      [
        'profiles',
        'add',
        'x',
        '--env',
        'sandbox',
        '--base-url',
        'http://api.example.com',
        '--client-id',
        'abc',
        '--client-secret-stdin',
      ],
      {input: 's'},
    )
    expect(res.code).toBe(2)
    expect(res.stderr).toContain('only https')
  })

  it('refuses http:// for a non-loopback BK_BASE_URL', async () => {
    const res = await runBk(['businesses', 'list'], {
      env: {BK_BASE_URL: 'http://10.1.2.3:8080', BK_CLIENT_ID: 'a', BK_CLIENT_SECRET: 'b'},
    })
    expect(res.code).toBe(2)
    expect(res.stderr).toContain('only https')
  })

  it('accepts http:// on loopback (the emulator)', async () => {
    const res = await runBk(['businesses', 'list', '--json'], {
      env: {...envFor(emulator, null), BK_BASE_URL: emulator.baseUrl.replace('127.0.0.1', 'localhost')},
    })
    expect(res.code, res.stderr).toBe(0)
  })

  it('sandbox with no base URL says to pass --base-url', async () => {
    const res = await runBk(
      ['profiles', 'add', 'x', '--env', 'sandbox', '--client-id', 'abc', '--client-secret-stdin'],
      {input: 's'},
    )
    expect(res.code).toBe(2)
    expect(res.stderr).toContain('--base-url')
  })
})

describe('production writes are announced', () => {
  it('prints a one-line banner naming the environment and business before a write, and none for reads or sandbox', async () => {
    const configDir = tempDir()
    for (const env of ['production', 'sandbox']) {
      const add = await runBk(
        [
          'profiles',
          'add',
          env,
          '--env',
          env,
          '--base-url',
          emulator.baseUrl,
          '--client-id',
          emulator.clientId,
          '--business',
          emulator.businessIds[0] as string,
          '--client-secret-stdin',
          '--insecure-storage',
        ],
        {configDir, input: emulator.clientSecret},
      )
      expect(add.code, add.stderr).toBe(0)
    }
    const write = await runBk(['rules', 'receipts', 'set', '--enabled', '--profile', 'production'], {configDir})
    expect(write.code, write.stderr).toBe(0)
    const banner = write.stderr.split('\n').filter((l) => l.includes('PRODUCTION'))
    expect(banner).toHaveLength(1)
    expect(banner[0]).toContain(emulator.businessIds[0])
    const read = await runBk(['invoices', 'list', '--limit', '1', '--profile', 'production'], {configDir})
    expect(read.stderr).not.toContain('PRODUCTION')
    const sandbox = await runBk(['rules', 'receipts', 'set', '--enabled', '--profile', 'sandbox'], {configDir})
    expect(sandbox.code).toBe(0)
    expect(sandbox.stderr).not.toContain('PRODUCTION')
  })
})
