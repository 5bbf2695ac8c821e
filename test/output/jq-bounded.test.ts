/**
 * --jq programs that never end or grow without bound: the program's syntax is checked without
 * running it, and a run past its time limit ends in exit 2 "the --jq program did not finish",
 * never a hang or exit 1. (`profiles list` gives a JSON result with no service to reach.)
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runBk} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

const LIMIT = {BK_JQ_TIMEOUT_MS: '3000'}

describe('--jq bounded', () => {
  for (const program of ['until(false; .)', 'def f: f; f', 'repeat(.)', '[range(1e12)]']) {
    it(`stops ${program} with exit 2`, async () => {
      const result = await runBk(['profiles', 'list', '--jq', program], {env: LIMIT, timeoutMs: 60_000})
      expect(result.signal, 'killed by the test: bk hung').toBeNull()
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain('the --jq program did not finish within 3 s')
      // Said once: the message names --jq itself, with no second prefix.
      expect(result.stderr).toMatch(/^Error: the --jq program did not finish within 3 s/m)
      expect(result.stderr).toMatch(/\nHint: Check the program for a loop that never ends/)
    })
  }

  it('still runs ordinary programs and names syntax errors at their own line and column', async () => {
    const ok = await runBk(['profiles', 'list', '--jq', 'length'], {env: LIMIT})
    expect(ok.code, ok.stderr).toBe(0)
    expect(ok.stdout).toBe('0\n')
    const bad = await runBk(['profiles', 'list', '--jq', 'length |'], {env: LIMIT})
    expect(bad.code, bad.stderr).toBe(2)
    expect(bad.stderr).toContain('--jq: syntax error')
    expect(bad.stderr).toContain('line 1')
  })
})

describe('BK_JQ_TIMEOUT_MS', () => {
  let emulator: RunningEmulator
  beforeAll(async () => {
    emulator = await start()
  })
  afterAll(() => emulator.close())

  it.each(['abc', '-1', '0', '1e3', '5s'])(
    'BK_JQ_TIMEOUT_MS=%s: refused before any request (exit 2), naming it, rather than the default taken',
    async (value) => {
      const tokens = emulator.state.tokens.size
      const result = await runBk(['invoices', 'list', '--limit', '1', '--jq', '.[0].id'], {
        env: {...envFor(emulator), BK_JQ_TIMEOUT_MS: value},
      })
      expect(result.code).toBe(2)
      expect(result.stdout).toBe('')
      expect(result.stderr).toBe(
        `Error: Invalid BK_JQ_TIMEOUT_MS "${value}": expected a number of milliseconds greater than 0 and at most 86400000\n` +
          'Hint: Set BK_JQ_TIMEOUT_MS to milliseconds, e.g. BK_JQ_TIMEOUT_MS=60000, or unset it for the default (30000).\n',
      )
      expect(emulator.state.tokens.size).toBe(tokens)
    },
  )

  it('an empty BK_JQ_TIMEOUT_MS is unset: the default limit', async () => {
    const result = await runBk(['invoices', 'list', '--limit', '1', '--jq', 'length'], {
      env: {...envFor(emulator), BK_JQ_TIMEOUT_MS: ''},
    })
    expect(result.code, result.stderr).toBe(0)
  })
})
