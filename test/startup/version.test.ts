/**
 * `bk --version` is answered by bin/run.js without loading the bundle: its line must be the one
 * oclif prints when the bundle runs, and everything that is not exactly a first `--version`
 * argument must still go through oclif.
 */
import {spawn} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {cleanEnv, ROOT, runBk, tempDir} from '../helpers/bk.js'

/** The bundle run directly, as bin/run.js runs it when there is no quick answer: oclif's own output. */
function runBundle(args: string[]): Promise<{code: number | null; stdout: string; stderr: string}> {
  const script = join(tempDir(), 'bundle.cjs')
  writeFileSync(script, `require(${JSON.stringify(join(ROOT, 'dist', 'bk.cjs'))}).main(${JSON.stringify(ROOT)})\n`)
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd: ROOT,
      env: cleanEnv({BK_CONFIG_DIR: tempDir(), BK_CACHE_DIR: tempDir()}),
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({code, stdout, stderr}))
  })
}

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
