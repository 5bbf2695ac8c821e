/**
 * --jq programs that never end or grow without bound: the program's syntax is checked without
 * running it, and a run past its time limit ends in exit 2 "the --jq program did not finish",
 * never a hang or exit 1. (`profiles list` gives a JSON result with no service to reach.)
 */
import {describe, expect, it} from 'vitest'

import {runBk} from '../helpers/bk.js'

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
