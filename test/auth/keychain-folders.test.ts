/**
 * Keychain entries are keyed by the config folder as well as the profile: two folders with a
 * profile of one name keep two secrets, and an entry an older bk wrote under the profile name
 * alone is moved to the folder's key on first use. Against the real Secret Service.
 */
import {AsyncEntry} from '@napi-rs/keyring'
import {mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
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

const folderKey = keychainKey
const entry = (key: string) => new AsyncEntry('bk', key)

async function forget(...keys: string[]): Promise<void> {
  for (const key of keys)
    await entry(key)
      .deleteCredential()
      .catch(() => {})
}

describe('keychain entries per config folder', () => {
  it('two config folders with a profile of one name keep separate secrets', async (ctx) => {
    if (!keychain) return ctx.skip()
    const [a, b] = [tempDir(), tempDir()]
    const name = `twin-${process.pid}-${Date.now()}`
    ctx.onTestFinished(() =>
      forget(
        `${name}/client_secret`,
        `${name}/tokens`,
        ...[a, b].flatMap((d) => [folderKey(d, name, 'client_secret'), folderKey(d, name, 'tokens')]),
      ),
    )

    expect((await runBk(addProfileArgs(emulator, name), {configDir: a, input: emulator.clientSecret})).code).toBe(0)
    // The same name in another folder, with another secret: it must not replace the first.
    const addB = await runBk(addProfileArgs(emulator, name, '--no-verify'), {
      configDir: b,
      input: 'the-other-folders-secret',
    })
    expect(addB.code, addB.stderr).toBe(0)

    const listA = await runBk(['businesses', 'list', '--json'], {configDir: a})
    expect(listA.code, listA.stderr).toBe(0)
    expect(parseJsonOutput<{data: unknown[]}>(listA).data.length).toBe(emulator.businessIds.length)
    expect(await entry(folderKey(a, name, 'client_secret')).getPassword()).toBe(emulator.clientSecret)
    expect(await entry(folderKey(b, name, 'client_secret')).getPassword()).toBe('the-other-folders-secret')
    // B's secret is wrong for the emulator: B fails, and A's token cache is not B's either.
    expect((await runBk(['businesses', 'list'], {configDir: b})).code).not.toBe(0)

    // Removing the profile in B leaves A's secret in place.
    expect((await runBk(['profiles', 'remove', name, '--yes'], {configDir: b})).code).toBe(0)
    expect(await entry(folderKey(b, name, 'client_secret')).getPassword()).toBeFalsy()
    expect(await entry(folderKey(a, name, 'client_secret')).getPassword()).toBe(emulator.clientSecret)
    expect((await runBk(['businesses', 'list'], {configDir: a})).code).toBe(0)
  })

  it("moves an older bk's entry to the folder's key on first use, and it still works", async (ctx) => {
    if (!keychain) return ctx.skip()
    const configDir = tempDir()
    const name = `legacy-${process.pid}-${Date.now()}`
    const newKey = folderKey(configDir, name, 'client_secret')
    ctx.onTestFinished(() =>
      forget(`${name}/client_secret`, `${name}/tokens`, newKey, folderKey(configDir, name, 'tokens')),
    )
    // What an older bk left: the profile in config.json, its secret under the profile name alone.
    writeFileSync(
      join(configDir, 'config.json'),
      JSON.stringify({
        active: name,
        profiles: {
          [name]: {env: 'local', baseUrl: emulator.baseUrl, clientId: emulator.clientId, storage: 'keychain'},
        },
      }),
      {mode: 0o600},
    )
    await entry(`${name}/client_secret`).setPassword(emulator.clientSecret)
    await entry(`${name}/tokens`).setPassword('{}')

    const list = await runBk(['businesses', 'list', '--json'], {configDir})
    expect(list.code, list.stderr).toBe(0)
    expect(parseJsonOutput<{data: unknown[]}>(list).data.length).toBe(emulator.businessIds.length)
    expect(await entry(newKey).getPassword()).toBe(emulator.clientSecret)
    expect(await entry(`${name}/client_secret`).getPassword()).toBeFalsy()
    expect(await entry(`${name}/tokens`).getPassword()).toBeFalsy()
    // The folder records that its entries are keyed by it; the secret is not in the file.
    const config = readFileSync(join(configDir, 'config.json'), 'utf8')
    expect(JSON.parse(config)).toMatchObject({keychainFolder: newKey.split('/')[0]})
    expect(config).not.toContain(emulator.clientSecret)

    // A second run finds the secret where the first put it.
    expect((await runBk(['auth', 'token'], {configDir})).code).toBe(0)
  })

  it('a moved config folder finds its secrets at its new path, and its old keys are kept', async (ctx) => {
    if (!keychain) return ctx.skip()
    const parent = tempDir()
    const [before, after] = [join(parent, 'before'), join(parent, 'after')]
    mkdirSync(before, {mode: 0o700})
    const name = `moved-${process.pid}-${Date.now()}`
    const oldKey = folderKey(before, name, 'client_secret')
    const oldTokens = folderKey(before, name, 'tokens')
    ctx.onTestFinished(() => forget(oldKey, oldTokens))
    expect((await runBk(addProfileArgs(emulator, name), {configDir: before, input: emulator.clientSecret})).code).toBe(
      0,
    )
    renameSync(before, after)
    ctx.onTestFinished(() => forget(folderKey(after, name, 'client_secret'), folderKey(after, name, 'tokens')))

    const list = await runBk(['businesses', 'list', '--json'], {configDir: after})
    expect(list.code, list.stderr).toBe(0)
    expect(await entry(folderKey(after, name, 'client_secret')).getPassword()).toBe(emulator.clientSecret)
    // The folder it came from may have been copied rather than moved: its entry stays.
    expect(await entry(oldKey).getPassword()).toBe(emulator.clientSecret)
  })
})
