import {AsyncEntry} from '@napi-rs/keyring'
import {readFileSync, existsSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'
import {addProfileArgs, start, type RunningEmulator} from '../helpers/emulator.js'
import {keychainKey, requireKeychainOrSkip} from '../helpers/keychain.js'

let emulator: RunningEmulator
let keychain = false
beforeAll(async () => {
  keychain = await requireKeychainOrSkip()
  emulator = await start()
})
afterAll(() => emulator?.close())

describe('secrets in the real Secret Service', () => {
  it('stores the secret in the keychain, reads it back, and removes it with the profile', async (ctx) => {
    if (!keychain) return ctx.skip()
    const configDir = tempDir()
    const name = `kc-${process.pid}-${Date.now()}`
    const add = await runBk(addProfileArgs(emulator, name), {configDir, input: emulator.clientSecret})
    expect(add.stderr).not.toContain('Error')
    expect(add.code).toBe(0)
    // The secret is in the Secret Service under service "bk", and nowhere in the config folder.
    expect(await new AsyncEntry('bk', keychainKey(configDir, name, 'client_secret')).getPassword()).toBe(
      emulator.clientSecret,
    )
    expect(readFileSync(join(configDir, 'config.json'), 'utf8')).not.toContain(emulator.clientSecret)
    expect(existsSync(join(configDir, 'credentials.json'))).toBe(false)

    const status = await runBk(['auth', 'status', '--json'], {configDir})
    const body = parseJsonOutput<{token: {ok: boolean}; origins: Record<string, string>}>(status)
    expect(body.token.ok).toBe(true)
    expect(body.origins.client_secret).toBe('OS keychain')
    // The token cache lives in the keychain too.
    expect(await new AsyncEntry('bk', keychainKey(configDir, name, 'tokens')).getPassword()).toContain('accessToken')

    // The same profile where no keychain is reachable: it says so, rather than "secret missing".
    const unreachable = await runBk(['businesses', 'list'], {configDir, env: {DBUS_SESSION_BUS_ADDRESS: undefined}})
    expect(unreachable.code).toBe(3)
    expect(unreachable.stderr).toContain('No OS keychain is reachable')

    const remove = await runBk(['profiles', 'remove', name, '--yes'], {configDir})
    expect(remove.code).toBe(0)
    expect(await new AsyncEntry('bk', keychainKey(configDir, name, 'client_secret')).getPassword()).toBeFalsy()
    expect(await new AsyncEntry('bk', keychainKey(configDir, name, 'tokens')).getPassword()).toBeFalsy()
  })
})

describe('no keychain reachable', () => {
  it('profiles add fails fast naming the environment variables and --insecure-storage, and writes nothing', async () => {
    const configDir = tempDir()
    const result = await runBk(
      ['profiles', 'add', 'nokc', '--env', 'local', '--client-id', 'abc', '--client-secret-stdin'],
      {
        configDir,
        input: 'sekrit-value',
        env: {DBUS_SESSION_BUS_ADDRESS: undefined},
        timeoutMs: 100_000,
      },
    )
    expect(result.code).toBe(3)
    expect(result.stderr).toContain('No OS keychain is reachable')
    expect(result.stderr).toContain('BK_CLIENT_ID')
    expect(result.stderr).toContain('BK_CLIENT_SECRET')
    expect(result.stderr).toContain('--insecure-storage')
    expect(result.stderr + result.stdout).not.toContain('sekrit-value')
    expect(existsSync(join(configDir, 'config.json'))).toBe(false)
  })

  it('--insecure-storage keeps the secret in a 0600 file, with a warning', async () => {
    const configDir = tempDir()
    const result = await runBk(addProfileArgs(emulator, 'plain', '--insecure-storage'), {
      configDir,
      input: emulator.clientSecret,
      env: {DBUS_SESSION_BUS_ADDRESS: undefined},
    })
    expect(result.code).toBe(0)
    expect(result.stderr).toContain('plain text')
    const {statSync} = await import('node:fs')
    expect(statSync(join(configDir, 'credentials.json')).mode & 0o777).toBe(0o600)
    expect(statSync(join(configDir, 'config.json')).mode & 0o777).toBe(0o600)
    expect(statSync(configDir).mode & 0o077).toBe(0)
    const list = await runBk(['businesses', 'list', '--json'], {configDir, env: {DBUS_SESSION_BUS_ADDRESS: undefined}})
    expect(list.code).toBe(0)
    expect(parseJsonOutput<{data: unknown[]}>(list).data.length).toBe(emulator.businessIds.length)
  })
})

describe('BK_KEYCHAIN_TIMEOUT_MS', () => {
  it.each(['abc', '-1', '0'])(
    'BK_KEYCHAIN_TIMEOUT_MS=%s: refused (exit 2) naming it, rather than the default taken, and nothing written',
    async (value) => {
      const configDir = tempDir()
      const result = await runBk(addProfileArgs(emulator, 'kc', '--no-verify'), {
        configDir,
        input: emulator.clientSecret,
        env: {BK_KEYCHAIN_TIMEOUT_MS: value},
      })
      expect(result.code).toBe(2)
      expect(result.stderr).toBe(
        `Error: Invalid BK_KEYCHAIN_TIMEOUT_MS "${value}": expected a number of milliseconds greater than 0 and at most 86400000\n` +
          'Hint: Set BK_KEYCHAIN_TIMEOUT_MS to milliseconds, e.g. BK_KEYCHAIN_TIMEOUT_MS=20000, or unset it for the default (5000).\n',
      )
      expect(existsSync(join(configDir, 'config.json'))).toBe(false)
    },
  )
})
