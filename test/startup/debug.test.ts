/**
 * DEBUG still shows oclif's debug log: the bundle stands in for the debug package only while
 * DEBUG is unset (scripts/bundle.js), and bin/run.js answers --version itself only then.
 */
import {describe, expect, it} from 'vitest'

import {runBk, tempDir} from '../helpers/bk.js'

describe('DEBUG', () => {
  it("shows oclif's debug log, for a command's help and for --version", async () => {
    for (const args of [['businesses', 'list', '--help'], ['--version']]) {
      const result = await runBk(args, {env: {DEBUG: 'oclif:main', BK_CACHE_DIR: tempDir()}})
      expect(result.code).toBe(0)
      expect(result.stderr).toContain('oclif:main process.argv')
    }
  })

  it('without it, nothing is logged', async () => {
    const result = await runBk(['businesses', 'list', '--help'], {env: {BK_CACHE_DIR: tempDir()}})
    expect(result).toMatchObject({code: 0, stderr: ''})
  })
})
