/**
 * `bk auth logout`: the profile's client secret and cached tokens are forgotten, the profile kept.
 */
import {AsyncEntry} from '@napi-rs/keyring'
import {readFileSync} from 'node:fs'
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

const business = () => ['--business', emulator.businessIds[0] as string]

describe('bk auth logout', () => {
  it('removes the secret and cached tokens from credentials.json, keeps the profile, and is idempotent', async () => {
    const configDir = tempDir()
    const noKeychain = {DBUS_SESSION_BUS_ADDRESS: undefined}
    const add = await runBk(addProfileArgs(emulator, 'plain', '--insecure-storage', ...business()), {
      configDir,
      input: emulator.clientSecret,
      env: noKeychain,
    })
    expect(add.code, add.stderr).toBe(0)
    expect((await runBk(['businesses', 'list', '--json'], {configDir, env: noKeychain})).code).toBe(0)
    const credentials = join(configDir, 'credentials.json')
    expect(Object.keys(JSON.parse(readFileSync(credentials, 'utf8')) as object).sort()).toEqual([
      'plain/client_secret',
      'plain/tokens',
    ])

    const logout = await runBk(['auth', 'logout', '--json'], {configDir, env: noKeychain})
    expect(logout.code, logout.stderr).toBe(0)
    expect(parseJsonOutput(logout)).toEqual({
      profile: 'plain',
      store: credentials,
      removed: {client_secret: true, tokens: true},
    })
    expect(readFileSync(credentials, 'utf8')).not.toContain(emulator.clientSecret)
    expect(JSON.parse(readFileSync(credentials, 'utf8'))).toEqual({})
    // The profile stays, and says what is missing.
    expect(readFileSync(join(configDir, 'config.json'), 'utf8')).toContain('"plain"')
    const after = await runBk(['businesses', 'list'], {configDir, env: noKeychain})
    expect(after.code).toBe(3)
    expect(after.stderr).toContain('The client secret of profile "plain" is missing')
    // Its hint stores the secret again as the profile is: in the file, its business kept.
    const hinted = /Run `bk (profiles add [^`]+)` again/.exec(after.stderr)?.[1]
    expect(hinted, after.stderr).toContain('--insecure-storage')
    const readd = await runBk([...hinted!.split(' '), '--client-secret-stdin'], {
      configDir,
      input: emulator.clientSecret,
      env: noKeychain,
    })
    expect(readd.code, readd.stderr).toBe(0)
    const listed = await runBk(['businesses', 'list', '--json'], {configDir, env: noKeychain})
    expect(listed.code, listed.stderr).toBe(0)
    expect(readFileSync(join(configDir, 'config.json'), 'utf8')).toContain(business()[1])
    expect((await runBk(['auth', 'logout', '-p', 'plain'], {configDir, env: noKeychain})).code).toBe(0)
    // auth status says the same, on every line.
    const status = await runBk(['auth', 'status'], {configDir, env: noKeychain})
    expect(status.stdout).toContain(`client secret: missing from the file ${credentials}`)
    expect(status.stdout).not.toMatch(/client secret: set/)
    expect(status.stdout).toContain('token:         FAILED: The client secret of profile "plain" is missing')

    const again = await runBk(['auth', 'logout', '-p', 'plain'], {configDir, env: noKeychain})
    expect(again.code).toBe(0)
    expect(again.stderr).toContain(`had no stored secret or tokens in the file ${credentials};`)
  })

  it('removes both from the OS keychain', async (ctx) => {
    if (!keychain) return ctx.skip()
    const configDir = tempDir()
    const name = `logout-${process.pid}-${Date.now()}`
    expect(
      (await runBk(addProfileArgs(emulator, name, ...business()), {configDir, input: emulator.clientSecret})).code,
    ).toBe(0)
    expect((await runBk(['businesses', 'list', '--json'], {configDir})).code).toBe(0)
    expect(await new AsyncEntry('bk', keychainKey(configDir, name, 'tokens')).getPassword()).toBeTruthy()

    const logout = await runBk(['auth', 'logout', '-p', name], {configDir})
    expect(logout.code, logout.stderr).toBe(0)
    expect(logout.stderr).toContain(`Logged out of profile ${name}: removed its client secret and cached tokens`)
    expect(await new AsyncEntry('bk', keychainKey(configDir, name, 'client_secret')).getPassword()).toBeFalsy()
    expect(await new AsyncEntry('bk', keychainKey(configDir, name, 'tokens')).getPassword()).toBeFalsy()
    const list = await runBk(['profiles', 'list', '--json'], {configDir})
    expect(list.stdout).toContain(name)
    await runBk(['profiles', 'remove', name, '--yes'], {configDir})
  })

  it('with no profile at all, says that environment credentials are not stored', async () => {
    const result = await runBk(['auth', 'logout'], {env: {BK_CLIENT_SECRET: 'whatever-secret'}})
    expect(result.code).toBe(3)
    expect(result.stderr).toContain('No profile to log out of')
    expect(result.stderr).toContain('unset them')
  })
})
