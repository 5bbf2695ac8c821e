/**
 * BK_DEBUG, the environment's --debug (src/cli/debug-variable.ts): the spellings of "on" trace as
 * --debug does, those of "off" do not, and any other value is refused before a request is made.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runBk} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

const list = (value: string) => runBk(['businesses', 'list', '--json'], {env: {...envFor(emulator), BK_DEBUG: value}})

describe('BK_DEBUG', () => {
  it.each(['1', 'true', 'YES', 'on'])('%s traces the requests on stderr, as --debug does', async (value) => {
    const result = await list(value)
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toMatch(/^\[debug\] .*\/v0\/business/m)
  })

  it.each(['0', 'false', 'no', ''])('"%s" traces nothing', async (value) => {
    const result = await list(value)
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).not.toContain('[debug]')
  })

  it('any other value is refused (exit 2), naming it, before the command runs', async () => {
    const result = await runBk(['businesses', 'list'], {env: {...envFor(emulator), BK_DEBUG: 'verbose'}})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('Invalid BK_DEBUG "verbose": expected 1 (trace HTTP requests) or 0')
    expect(result.stderr).toContain('Hint: Set BK_DEBUG=1')
    // The list the command prints, or its request's trace, would be here.
    expect(result.stdout).toBe('')
    expect(result.stderr).not.toContain('[debug]')
  })
})
