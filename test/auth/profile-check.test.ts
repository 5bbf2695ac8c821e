/**
 * `bk profiles add --client-secret-stdin` checks the secret as `bk auth login` does, with a token
 * request: a secret the service refuses is not saved (exit 3); one that could not be checked (no
 * service there) is saved and said to be unchecked; --no-verify skips the check.
 */
import {createServer} from 'node:net'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'
import {start, type RunningEmulator} from '../helpers/emulator.js'

let emulator: RunningEmulator
let closedPort: number
beforeAll(async () => {
  emulator = await start()
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closedPort = (server.address() as {port: number}).port
  await new Promise((resolve) => server.close(resolve))
})
afterAll(() => emulator.close())

function add(configDir: string, baseUrl: string, secret: string, ...extra: string[]) {
  return runBk(
    [
      ...['profiles', 'add', 'p', '--env', 'local', '--base-url', baseUrl, '--client-id', emulator.clientId],
      ...['--client-secret-stdin', '--insecure-storage', ...extra],
    ],
    {configDir, input: secret},
  )
}

async function profiles(configDir: string): Promise<string[]> {
  const res = await runBk(['profiles', 'list', '--json'], {configDir})
  expect(res.code, res.stderr).toBe(0)
  return parseJsonOutput<Array<{name: string}>>(res).map((p) => p.name)
}

describe('profiles add checks the secret', () => {
  it('a secret the service refuses: not saved, exit 3, one Error and one Hint line', async () => {
    const configDir = tempDir('bk-check-')
    const res = await add(configDir, emulator.baseUrl, 'not-the-secret')
    expect(res.code).toBe(3)
    const lines = res.stderr.split('\n').filter(Boolean)
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(/^Error: The service refused the client id and secret of profile p/)
    expect(lines[1]).toMatch(/^Hint: .*--no-verify/)
    expect(res.stderr).not.toContain('not-the-secret')
    expect(await profiles(configDir)).toEqual([])
  })

  it('a secret the service accepts: saved, and said to be checked', async () => {
    const configDir = tempDir('bk-check-')
    const res = await add(configDir, emulator.baseUrl, emulator.clientSecret)
    expect(res.code, res.stderr).toBe(0)
    expect(res.stderr).toContain('Checked: the service issued a token')
    expect(await profiles(configDir)).toEqual(['p'])
  })

  it('no service answering: saved, and said plainly that it was not checked', async () => {
    const configDir = tempDir('bk-check-')
    const res = await add(configDir, `http://127.0.0.1:${closedPort}`, 'anything')
    expect(res.code, res.stderr).toBe(0)
    expect(res.stderr).toMatch(/^Warning: The secret was not checked: Could not connect to /m)
    expect(await profiles(configDir)).toEqual(['p'])
    const json = await add(tempDir('bk-check-'), `http://127.0.0.1:${closedPort}`, 'anything', '--json')
    expect(json.code, json.stderr).toBe(0)
    expect(parseJsonOutput<{check: string}>(json).check).toBe('not_checked')
  })

  it('no service answering and no keychain to save to: says the save failed, never that it was saved', async () => {
    const configDir = tempDir('bk-check-')
    const res = await runBk(
      [
        ...['profiles', 'add', 'p', '--env', 'local', '--base-url', `http://127.0.0.1:${closedPort}`],
        ...['--client-id', emulator.clientId, '--client-secret-stdin'],
      ],
      {configDir, input: 'anything', env: {DBUS_SESSION_BUS_ADDRESS: undefined}},
    )
    expect(res.code).toBe(3)
    expect(res.stderr).toContain('No OS keychain is reachable')
    expect(res.stderr).not.toContain('saved')
    expect(await profiles(configDir)).toEqual([])
  })

  it('--no-verify: saved without a request, even a wrong secret', async () => {
    const configDir = tempDir('bk-check-')
    const tokens = emulator.state.tokens.size
    const res = await add(configDir, emulator.baseUrl, 'not-the-secret', '--no-verify')
    expect(res.code, res.stderr).toBe(0)
    expect(res.stderr).toContain('not checked (--no-verify)')
    expect(emulator.state.tokens.size).toBe(tokens)
    expect(await profiles(configDir)).toEqual(['p'])
  })
})
