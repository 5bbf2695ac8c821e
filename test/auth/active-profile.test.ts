/**
 * The active profile after `profiles use` and `profiles remove`, and what bk says when none is
 * (docs/decisions.md); a profile name that is none of them is a usage error naming them.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'
import {addProfileArgs, start, type RunningEmulator} from '../helpers/emulator.js'

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

/** A config folder holding these profiles of the emulator, added in this order. */
async function withProfiles(...names: string[]): Promise<string> {
  const configDir = tempDir()
  for (const name of names) {
    const res = await runBk(addProfileArgs(emulator, name, '--insecure-storage'), {
      configDir,
      input: emulator.clientSecret,
    })
    expect(res.code, res.stderr).toBe(0)
  }
  return configDir
}

async function listed(configDir: string): Promise<Array<{name: string; active: boolean}>> {
  const profiles = parseJsonOutput<Array<{name: string; active: boolean}>>(
    await runBk(['profiles', 'list', '--json'], {configDir}),
  )
  return profiles.map(({name, active}) => ({name, active}))
}

describe('removing the active profile', () => {
  it('leaves none active, says so, and every command names the profile to make active', async () => {
    const configDir = await withProfiles('local', 'g2')
    expect((await runBk(['profiles', 'use', 'g2'], {configDir})).code).toBe(0)
    const removed = await runBk(['profiles', 'remove', 'g2', '--yes'], {configDir})
    expect(removed.code, removed.stderr).toBe(0)
    expect(removed.stderr).toBe(
      'Removed profile g2, the active one: no profile is active now. Run `bk profiles use local` to make it the active profile, or pass --profile local.\n',
    )
    expect(await listed(configDir)).toEqual([{name: 'local', active: false}])
    for (const command of [
      ['auth', 'status'],
      ['businesses', 'list'],
      ['profiles', 'show'],
    ]) {
      const res = await runBk(command, {configDir})
      expect(res.code, command.join(' ')).toBe(3)
      expect(res.stderr, command.join(' ')).toContain(
        'Hint: Run `bk profiles use local` to make it the active profile, or pass --profile local.',
      )
      expect(res.stderr).not.toContain('no profile is set up')
    }
    expect((await runBk(['auth', 'status'], {configDir})).stderr).toBe(
      'Error: No credentials: no profile is active and no BK_CLIENT_ID/BK_CLIENT_SECRET or BK_ACCESS_TOKEN is in the environment\n' +
        'Hint: Run `bk profiles use local` to make it the active profile, or pass --profile local.\n',
    )
    // The way out the hint gives works.
    expect((await runBk(['profiles', 'use', 'local'], {configDir})).code).toBe(0)
    const status = parseJsonOutput<{profile: string; token: {ok: boolean}}>(
      await runBk(['auth', 'status', '--json'], {configDir}),
    )
    expect(status).toMatchObject({profile: 'local', token: {ok: true}})
  })

  it('with several left, names them all; with none left, says no profile is set up', async () => {
    const configDir = await withProfiles('a', 'b', 'c')
    expect((await runBk(['profiles', 'remove', 'a', '--yes'], {configDir})).stderr).toContain(
      'Run `bk profiles use NAME` with one of b, c to make it the active profile, or pass --profile NAME.',
    )
    const json = await runBk(['businesses', 'list', '--json'], {configDir})
    expect(json.code).toBe(3)
    expect(parseJsonOutput(json)).toMatchObject({code: 'no_active_profile', details: {profiles: ['b', 'c']}})
    for (const name of ['b', 'c']) {
      const res = await runBk(['profiles', 'remove', name, '--yes'], {configDir})
      expect(res.stderr).toBe(`Removed profile ${name}.\n`)
    }
    const none = await runBk(['auth', 'status'], {configDir})
    expect(none.code).toBe(3)
    expect(none.stderr).toContain('Error: No credentials: no profile is set up and no BK_CLIENT_ID')
  })

  it('a profile added while none is active becomes the active one, as the first one does', async () => {
    const configDir = await withProfiles('local', 'g2')
    await runBk(['profiles', 'remove', 'local', '--yes'], {configDir})
    const added = await runBk(addProfileArgs(emulator, 'g3', '--insecure-storage'), {
      configDir,
      input: emulator.clientSecret,
    })
    expect(added.stderr).toContain('It is the active profile.')
    expect(await listed(configDir)).toEqual([
      {name: 'g2', active: false},
      {name: 'g3', active: true},
    ])
  })

  it('removing another profile leaves the active one as it was, and says nothing of it', async () => {
    const configDir = await withProfiles('local', 'g2')
    const removed = await runBk(['profiles', 'remove', 'g2', '--yes'], {configDir})
    expect(removed.stderr).toBe('Removed profile g2.\n')
    expect(await listed(configDir)).toEqual([{name: 'local', active: true}])
  })
})

describe('a profile name that is none of them', () => {
  it('profiles use: a usage error (exit 2) naming the profiles, the active one unchanged', async () => {
    const configDir = await withProfiles('local', 'g2')
    const res = await runBk(['profiles', 'use', 'nope'], {configDir})
    expect(res.code).toBe(2)
    expect(res.stderr).toBe(
      'Error: No profile named "nope"; the profiles are local, g2\n' +
        'Hint: Give one of them; `bk profiles list` shows each one.\n',
    )
    expect(await listed(configDir)).toEqual([
      {name: 'local', active: true},
      {name: 'g2', active: false},
    ])
  })

  it('a close one is suggested, wherever the name was given', async () => {
    const configDir = await withProfiles('local', 'staging')
    const use = await runBk(['profiles', 'use', 'stagign'], {configDir})
    expect(use.code).toBe(2)
    expect(use.stderr).toContain('Hint: Did you mean staging?')
    const flag = await runBk(['businesses', 'list', '--profile', 'lokal'], {configDir})
    expect(flag.code).toBe(2)
    expect(flag.stderr).toBe(
      'Error: No profile named "lokal" (from --profile); the profiles are local, staging\n' +
        'Hint: Did you mean local? `bk profiles list` shows each one.\n',
    )
    const variable = await runBk(['businesses', 'list'], {configDir, env: {BK_PROFILE: 'stagin'}})
    expect(variable.code).toBe(2)
    expect(variable.stderr).toContain('No profile named "stagin" (from BK_PROFILE)')
  })

  it('with no profiles at all, says so and how to add one', async () => {
    const res = await runBk(['profiles', 'use', 'sandbox'], {configDir: tempDir()})
    expect(res.code).toBe(2)
    expect(res.stderr).toBe(
      'Error: No profile named "sandbox": there are no profiles yet\n' +
        'Hint: Add a profile with `bk profiles add NAME --env sandbox --client-id ID --base-url URL`.\n',
    )
  })
})
