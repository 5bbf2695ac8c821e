/**
 * `bk --version` is answered by bin/run.js without loading the bundle: its line must be the one
 * oclif prints when the bundle runs, and everything that is not exactly a first `--version`
 * argument must still go through oclif.
 */
import {describe, expect, it} from 'vitest'

import {runBk, runBundle, tempDir} from '../helpers/bk.js'

describe('bk --version', () => {
  it("prints exactly oclif's line, without loading the bundle", async () => {
    const cache = tempDir()
    const quick = await runBk(['--version'], {env: {BK_CACHE_DIR: cache}})
    const oclif = await runBundle(['--version'])
    expect(oclif.code).toBe(0)
    expect(oclif.stdout).toMatch(/^bk\/\S+ \S+-\S+ node-v\S+\n$/)
    expect(quick).toMatchObject({code: 0, stderr: '', stdout: oclif.stdout})
    // Nothing of the bundle ran: not even a code cache was noted.
    expect(await runBk(['--version', 'extra'], {env: {BK_CACHE_DIR: cache}})).toMatchObject({stdout: oclif.stdout})
    expect((await import('node:fs')).readdirSync(cache)).toEqual([])
  })

  it('is oclif\'s answer for what is not a first --version: "-v" is no command of bk', async () => {
    for (const args of [['-v'], ['businesses', '--version']]) {
      const viaBin = await runBk(args)
      const oclif = await runBundle(args)
      expect(viaBin.code).toBe(oclif.code)
      expect(viaBin.stdout).toBe(oclif.stdout)
      expect(viaBin.stderr).toBe(oclif.stderr)
    }
  })
})
