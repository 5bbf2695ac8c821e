/**
 * With no D-Bus session, the keychain library would fall back to the kernel keyring, whose keys
 * die with the login session. bk must refuse instead, and leave nothing there: checked with
 * `keyctl show` (Debian's keyutils), inside a fresh session keyring (as an SSH login has) and
 * in the test runner's own. Where keyctl is missing these skip, except under
 * BK_REQUIRE_KEYCHAIN=1 (.ci/run), where that fails them.
 */
import {spawnSync} from 'node:child_process'
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'
import {start, type RunningEmulator} from '../helpers/emulator.js'

/** No session bus anywhere bk could find one: the variable, and the runtime folder's default socket. */
const NO_DBUS = {DBUS_SESSION_BUS_ADDRESS: undefined, XDG_RUNTIME_DIR: undefined}
/** Runs bk inside a new session keyring, then lists that keyring. */
const IN_FRESH_SESSION = [
  'keyctl',
  'session',
  '-',
  'sh',
  '-c',
  '"$@"; code=$?; echo "--- keyring"; keyctl show @s; exit $code',
  'sh',
]

/**
 * A shell line that adds a user key to the session keyring, as an older bk left one, readable by
 * its session only: with the default permissions any process of the same user lists it in
 * /proc/keys, so `bk doctor` in a test file running beside this one would see it.
 */
const plantKey = (description: string, value: string) =>
  `keyctl setperm "$(keyctl add user "${description}" ${value} @s)" 0x3f000000`

let available = false
let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
  const keyctl = spawnSync('keyctl', ['show', '@s'], {encoding: 'utf8'})
  const reason = keyctl.error
    ? 'keyctl is not installed (apt-get install keyutils)'
    : keyctl.status !== 0
      ? `keyctl cannot read the session keyring: ${keyctl.stderr.trim()}`
      : !existsSync('/proc/keys')
        ? 'this kernel has no /proc/keys'
        : undefined
  if (!reason) return void (available = true)
  if (process.env.BK_REQUIRE_KEYCHAIN === '1') throw new Error(`BK_REQUIRE_KEYCHAIN=1 but ${reason}`)
  console.warn(`Skipping kernel keyring tests: ${reason}`)
})
afterAll(() => emulator?.close())

function addArgs(name: string): string[] {
  return ['profiles', 'add', name, '--env', 'local', '--client-id', 'kr-client', '--client-secret-stdin']
}

function kernelKeysNaming(name: string): string[] {
  return readFileSync('/proc/keys', 'utf8')
    .split('\n')
    .filter((l) => l.includes(name))
}

describe('no Secret Service: the kernel keyring is never used', () => {
  it('in a fresh session keyring, profiles add is refused and leaves nothing there', async (ctx) => {
    if (!available) return ctx.skip()
    const name = `kr-fresh-${process.pid}-${Date.now()}`
    const configDir = tempDir()
    const result = await runBk(addArgs(name), {
      configDir,
      input: 'kr-secret-value-1',
      env: NO_DBUS,
      prefix: IN_FRESH_SESSION,
    })
    expect(result.code).toBe(3)
    expect(result.stderr).toContain('No OS keychain is reachable (no Secret Service answers on D-Bus')
    expect(result.stderr).toContain('kernel keyring')
    expect(result.stderr).toContain('--insecure-storage')
    const keyring = result.stdout.split('--- keyring')[1] ?? ''
    expect(keyring).toContain('keyring: _ses')
    expect(keyring).not.toContain(name)
    expect(keyring).not.toContain('@bk')
    expect(kernelKeysNaming(name)).toEqual([])
    expect(existsSync(join(configDir, 'config.json'))).toBe(false)
  })

  it("in the runner's own keyring, profiles add is refused and leaves nothing there", async (ctx) => {
    if (!available) return ctx.skip()
    const name = `kr-own-${process.pid}-${Date.now()}`
    const result = await runBk(addArgs(name), {input: 'kr-secret-value-2', env: NO_DBUS})
    expect(result.code).toBe(3)
    expect(result.stderr).toContain('No OS keychain is reachable')
    const show = spawnSync('keyctl', ['show', '@s'], {encoding: 'utf8'})
    expect(show.status).toBe(0)
    expect(show.stdout).not.toContain(name)
    expect(kernelKeysNaming(name)).toEqual([])
  })

  it('auth status names the store in use and a bk secret found in the kernel keyring', async (ctx) => {
    if (!available) return ctx.skip()
    const profile = `kr-old-${process.pid}`
    // As an older bk would have left it, in a session keyring that ends with the command.
    const plant = [
      'keyctl',
      'session',
      '-',
      'sh',
      '-c',
      `${plantKey(`keyring:${profile}/client_secret@bk`, 'old-secret')} && exec "$@"`,
      'sh',
    ]
    const env = {...NO_DBUS, BK_BASE_URL: 'http://127.0.0.1:9', BK_ACCESS_TOKEN: 'kr-env-token'}
    const json = await runBk(['auth', 'status', '--json'], {env, prefix: plant})
    const body = parseJsonOutput<{store: string; volatile_secrets: Array<{key: string}>}>(json)
    expect(body.store).toBe('none (credentials from the environment)')
    expect(body.volatile_secrets.map((v) => v.key)).toContain(`${profile}/client_secret`)

    const text = await runBk(['auth', 'status'], {env, prefix: plant})
    expect(text.stdout).toContain('secret store:  none (credentials from the environment)')
    expect(text.stderr).toContain(`client secret of profile "${profile}"`)
    expect(text.stderr).toContain('kernel keyring (volatile')
  })

  it('auth move-secret moves a secret an older bk left there to a lasting store, and removes it', async (ctx) => {
    if (!available) return ctx.skip()
    const profile = `kr-move-${process.pid}`
    const configDir = tempDir()
    writeFileSync(
      join(configDir, 'config.json'),
      JSON.stringify({
        active: profile,
        profiles: {
          [profile]: {
            env: 'local',
            baseUrl: emulator.baseUrl,
            clientId: emulator.clientId,
            business: emulator.businessIds[0],
            storage: 'keychain',
          },
        },
      }),
      {mode: 0o600},
    )
    // The secret and a token cache, as an older bk left them in this login session's keyring.
    const session = [
      ...['keyctl', 'session', '-', 'sh', '-c'],
      [
        plantKey(`keyring:${profile}/client_secret@bk`, '"$BK_PLANTED"'),
        plantKey(`keyring:${profile}/tokens@bk`, 'old-token-cache'),
        '"$@"; code=$?; echo "--- keyring"; keyctl show @s; exit $code',
      ].join('\n'),
      'sh',
    ]
    const moved = await runBk(['auth', 'move-secret', '--insecure-storage', '--json'], {
      configDir,
      env: {...NO_DBUS, BK_PLANTED: emulator.clientSecret},
      prefix: session,
    })
    expect(moved.code, moved.stderr).toBe(0)
    const [json, keyring] = moved.stdout.split('--- keyring')
    const credentials = join(configDir, 'credentials.json')
    expect(JSON.parse(json as string)).toEqual({
      profile,
      to: credentials,
      removed: [`${profile}/client_secret`, `${profile}/tokens`],
    })
    expect(keyring).not.toContain(profile)
    expect(moved.stdout + moved.stderr).not.toContain(emulator.clientSecret)
    expect(JSON.parse(readFileSync(credentials, 'utf8'))).toEqual({[`${profile}/client_secret`]: emulator.clientSecret})
    expect(JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles[profile].storage).toBe('file')

    // The profile works from its new store, outside that session.
    const list = await runBk(['businesses', 'list', '--json'], {configDir, env: NO_DBUS})
    expect(list.code, list.stderr).toBe(0)

    // Nothing left to move: said so.
    const again = await runBk(['auth', 'move-secret', '--insecure-storage'], {configDir, env: NO_DBUS})
    expect(again.code).toBe(3)
    expect(again.stderr).toContain(`The kernel keyring holds no client secret of profile "${profile}"`)
  })
})
