import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'
import {addProfileArgs, start, type RunningEmulator} from '../helpers/emulator.js'

interface Status {
  source: string
  profile: string | null
  base_url: string
  business: string | null
  origins: Record<string, string>
  token: {ok: boolean}
}

let a: RunningEmulator
let b: RunningEmulator
let c: RunningEmulator
let configDir: string

async function addProfile(name: string, emulator: RunningEmulator): Promise<void> {
  const res = await runBk(addProfileArgs(emulator, name, '--insecure-storage'), {
    configDir,
    input: emulator.clientSecret,
  })
  expect(res.code, res.stderr).toBe(0)
}

beforeAll(async () => {
  ;[a, b, c] = await Promise.all([start(), start(), start()])
  configDir = tempDir()
  await addProfile('first', a) // the first profile becomes the active one
  await addProfile('second', b)
})
afterAll(async () => {
  await Promise.all([a.close(), b.close(), c.close()])
})

const envCreds = () => ({BK_BASE_URL: c.baseUrl, BK_CLIENT_ID: c.clientId, BK_CLIENT_SECRET: c.clientSecret})

describe('credential resolution order', () => {
  it('uses the active profile when nothing else is given', async () => {
    const s = parseJsonOutput<Status>(await runBk(['auth', 'status', '--json'], {configDir}))
    expect(s.profile).toBe('first')
    expect(s.base_url).toBe(a.baseUrl)
    expect(s.token.ok).toBe(true)
  })

  it('environment variables beat the active profile', async () => {
    const s = parseJsonOutput<Status>(await runBk(['auth', 'status', '--json'], {configDir, env: envCreds()}))
    expect(s.source).toBe('environment')
    expect(s.base_url).toBe(c.baseUrl)
    expect(s.origins.client_secret).toBe('BK_CLIENT_SECRET')
  })

  it('--profile beats environment variables', async () => {
    const s = parseJsonOutput<Status>(
      await runBk(['auth', 'status', '--json', '--profile', 'second'], {configDir, env: envCreds()}),
    )
    expect(s.profile).toBe('second')
    expect(s.base_url).toBe(b.baseUrl)
    expect(s.origins.profile).toBe('--profile')
  })

  it('BK_PROFILE counts as an explicit profile', async () => {
    const s = parseJsonOutput<Status>(
      await runBk(['auth', 'status', '--json'], {configDir, env: {...envCreds(), BK_PROFILE: 'second'}}),
    )
    expect(s.base_url).toBe(b.baseUrl)
  })

  it('--business beats BK_BUSINESS_ID, which beats the profile', async () => {
    const env = {BK_BUSINESS_ID: a.businessIds[1]}
    const fromEnv = parseJsonOutput<Status>(await runBk(['auth', 'status', '--json'], {configDir, env}))
    expect(fromEnv.business).toBe(a.businessIds[1])
    const fromFlag = parseJsonOutput<Status>(
      await runBk(['auth', 'status', '--json', '--business', a.businessIds[0] as string], {configDir, env}),
    )
    expect(fromFlag.business).toBe(a.businessIds[0])
    expect(fromFlag.origins.business).toBe('--business')
  })

  it('BK_ACCESS_TOKEN works with no profile and no keychain', async () => {
    const token = (await runBk(['auth', 'token'], {env: envCreds()})).stdout.trim()
    expect(token).toMatch(/^emu_/)
    const list = await runBk(['businesses', 'list', '--json'], {
      env: {BK_BASE_URL: c.baseUrl, BK_ACCESS_TOKEN: token, DBUS_SESSION_BUS_ADDRESS: undefined},
    })
    expect(list.code).toBe(0)
    expect(parseJsonOutput<{data: unknown[]}>(list).data.length).toBe(c.businessIds.length)
  })

  it('auth status checks BK_ACCESS_TOKEN against the service, or says plainly it could not', async () => {
    const token = (await runBk(['auth', 'token'], {env: envCreds()})).stdout.trim()
    const status = (env: Record<string, string | undefined>) =>
      runBk(['auth', 'status'], {env: {DBUS_SESSION_BUS_ADDRESS: undefined, ...env}})
    const good = await status({BK_BASE_URL: c.baseUrl, BK_ACCESS_TOKEN: token})
    expect(good.code, good.stderr).toBe(0)
    expect(good.stdout).toContain('token:         ok, the service accepted the access token')
    const bad = await status({BK_BASE_URL: c.baseUrl, BK_ACCESS_TOKEN: 'emu_not_a_token'})
    expect(bad.code).toBe(3)
    expect(bad.stdout).toContain('token:         FAILED: The access token from BK_ACCESS_TOKEN was refused')
    // Nothing listens on port 9 of the loopback: the token could not be checked, and says so.
    const away = await status({BK_BASE_URL: 'http://127.0.0.1:9', BK_ACCESS_TOKEN: token})
    expect(away.code).not.toBe(0)
    expect(away.stdout).toContain('token:         FAILED: the access token was not checked: ')
  })

  it('says exactly what to do when there are no credentials at all', async () => {
    const res = await runBk(['businesses', 'list'], {configDir: tempDir()})
    expect(res.code).toBe(3)
    expect(res.stderr).toContain('bk auth login')
    expect(res.stderr).toContain('BK_CLIENT_ID')
    // One of the pair alone: the other is named, with the way out.
    const half = await runBk(['businesses', 'list'], {configDir: tempDir(), env: {BK_CLIENT_ID: 'id-only'}})
    expect(half.code).toBe(3)
    expect(half.stderr).toContain('Error: BK_CLIENT_SECRET is not set; BK_CLIENT_ID and BK_CLIENT_SECRET go together')
    expect(half.stderr).toContain('Hint: Set BK_CLIENT_SECRET as well, or BK_ACCESS_TOKEN alone')
  })

  it('infers the environment from BK_BASE_URL when BK_ENV is not set', async () => {
    const local = parseJsonOutput<Status & {environment: string}>(
      await runBk(['auth', 'status', '--json'], {env: envCreds()}),
    )
    expect(local.environment).toBe('local')
    const remote = await runBk(['auth', 'status', '--json'], {
      env: {...envCreds(), BK_BASE_URL: 'https://127.0.0.1.invalid:9'},
    })
    expect(parseJsonOutput<{environment: string}>(remote).environment).toBe('production')
    const told = await runBk(['auth', 'status', '--json'], {env: {...envCreds(), BK_ENV: 'sandbox'}})
    expect(parseJsonOutput<{environment: string}>(told).environment).toBe('sandbox')
  })

  it('auth status says once where each value came from', async () => {
    const line = (stdout: string, key: string) => stdout.split('\n').find((l) => l.startsWith(`${key}:`))
    const active = (await runBk(['auth', 'status'], {configDir})).stdout
    expect(line(active, 'profile')).toBe('profile:       first  (the active profile)')
    expect(line(active, 'environment')).toBe('environment:   local  (from profile first)')
    const named = (await runBk(['auth', 'status', '-p', 'second'], {configDir})).stdout
    expect(line(named, 'profile')).toBe('profile:       second  (from --profile)')
    const chosen = (await runBk(['auth', 'status'], {configDir, env: {BK_PROFILE: 'second'}})).stdout
    expect(line(chosen, 'profile')).toBe('profile:       second  (from BK_PROFILE)')

    const loopback = (await runBk(['auth', 'status'], {env: envCreds()})).stdout
    expect(line(loopback, 'environment')).toBe('environment:   local  (from BK_BASE_URL, a loopback address)')
    expect(line(loopback, 'base URL')).toBe(`base URL:      ${c.baseUrl}  (from BK_BASE_URL)`)
    const told = (await runBk(['auth', 'status'], {env: {...envCreds(), BK_ENV: 'local'}})).stdout
    expect(line(told, 'environment')).toBe('environment:   local  (from BK_ENV)')
    const remote = await runBk(['auth', 'status', '--json'], {
      env: {...envCreds(), BK_BASE_URL: 'https://127.0.0.1.invalid:9'},
    })
    expect(parseJsonOutput<Status>(remote).origins.environment).toBe('BK_BASE_URL, not a loopback address')
    // BK_ENV without BK_BASE_URL: the address is the environment's default, and said to be.
    const defaults = (await runBk(['auth', 'status'], {env: {BK_ACCESS_TOKEN: 'emu_not_a_token', BK_ENV: 'local'}}))
      .stdout
    expect(line(defaults, 'environment')).toBe('environment:   local  (from BK_ENV)')
    expect(line(defaults, 'base URL')).toBe('base URL:      http://127.0.0.1:4010  (the default for local)')
  })

  it('refuses a profile name it could not store, as a usage error (exit 2), saving nothing', async () => {
    const dir = tempDir()
    const res = await runBk(addProfileArgs(a, 'bad name/x', '--insecure-storage'), {
      configDir: dir,
      input: a.clientSecret,
    })
    expect(res.code).toBe(2)
    expect(res.stderr).toContain('Invalid profile name "bad name/x"')
    expect((await runBk(['profiles', 'list', '--json'], {configDir: dir})).stdout.trim()).toBe('[]')
  })

  it('profiles use switches the active profile', async () => {
    const dir = configDir
    expect((await runBk(['profiles', 'use', 'second'], {configDir: dir})).code).toBe(0)
    const s = parseJsonOutput<Status>(await runBk(['auth', 'status', '--json'], {configDir: dir}))
    expect(s.profile).toBe('second')
    await runBk(['profiles', 'use', 'first'], {configDir: dir})
  })
})

describe('BK_BASE_URL and BK_ENV beside a profile', () => {
  it('refuses BK_BASE_URL with no credentials beside it while a profile says another address, writing nowhere', async () => {
    const business = a.businessIds[0] as string
    const args = ['rules', 'receipts', 'set', '--threshold', '77', '--business', business]
    const res = await runBk(args, {configDir, env: {BK_BASE_URL: c.baseUrl}})
    expect(res.code, res.stderr).toBe(2)
    expect(res.stderr).toContain(
      `Error: BK_BASE_URL is ${c.baseUrl}, but the credentials in use are those of profile first (the active profile), whose base URL is ${a.baseUrl}: bk will not guess which one you meant`,
    )
    expect(res.stderr).toContain(
      'Hint: Unset BK_BASE_URL to use profile first; to use BK_BASE_URL instead, set BK_CLIENT_ID and BK_CLIENT_SECRET (or BK_ACCESS_TOKEN) beside it.',
    )
    expect(a.state.receiptConfigs.get(business)).toBeUndefined()
    expect(c.state.receiptConfigs.get(business)).toBeUndefined()
    // A profile named on purpose is no excuse: the hint says to drop it.
    const named = await runBk(['auth', 'status', '--profile', 'second'], {configDir, env: {BK_BASE_URL: c.baseUrl}})
    expect(named.code).toBe(2)
    expect(named.stderr).toContain('profile second (--profile), whose base URL is')
    expect(named.stderr).toContain('drop --profile and set BK_CLIENT_ID and BK_CLIENT_SECRET')
  })

  it('refuses a BK_ENV the profile does not share, and takes values the profile agrees with', async () => {
    const env = await runBk(['auth', 'status'], {configDir, env: {BK_ENV: 'production'}})
    expect(env.code).toBe(2)
    expect(env.stderr).toContain(
      'Error: BK_ENV is production, but the credentials in use are those of profile first (the active profile), whose environment is local',
    )
    const agreed = parseJsonOutput<Status>(
      await runBk(['auth', 'status', '--json'], {configDir, env: {BK_BASE_URL: `${a.baseUrl}/`, BK_ENV: 'local'}}),
    )
    expect(agreed.profile).toBe('first')
    expect(agreed.token.ok).toBe(true)
  })

  it('refuses a BK_ENV that names no environment as a usage error (exit 2), naming the value and the choices', async () => {
    const res = await runBk(['auth', 'status', '--json'], {env: {...envCreds(), BK_ENV: 'prod'}})
    expect(res.code).toBe(2)
    expect(parseJsonOutput(res)).toMatchObject({
      error: 'Invalid BK_ENV "prod": expected one of sandbox, production, local',
      hint: 'Set BK_ENV to sandbox, production, local, or unset it (bk then infers it from BK_BASE_URL).',
    })
  })
})

describe('the business of auth token and auth status', () => {
  it('checks --business locally as every command does (exit 2), before any request', async () => {
    for (const command of ['token', 'status']) {
      const res = await runBk(['auth', command, '-b', 'bad'], {env: envCreds()})
      expect(res.code, `auth ${command}: ${res.stderr}`).toBe(2)
      expect(res.stderr).toContain('Error: Invalid business id "bad" (from --business): expected biz_…')
    }
  })

  it('refuses to re-scope a given BK_ACCESS_TOKEN with --business, printing no token', async () => {
    const token = (await runBk(['auth', 'token'], {env: envCreds()})).stdout.trim()
    const res = await runBk(['auth', 'token', '--business', c.businessIds[1] as string], {
      env: {BK_BASE_URL: c.baseUrl, BK_ACCESS_TOKEN: token},
    })
    expect(res.code).toBe(2)
    expect(res.stdout).toBe('')
    expect(res.stderr).toContain(
      `Error: --business ${c.businessIds[1]} cannot be applied to the access token from BK_ACCESS_TOKEN: bk prints a given token as it is and cannot re-scope it`,
    )
    expect(res.stderr).toContain('Hint: Unset BK_ACCESS_TOKEN')
  })
})
