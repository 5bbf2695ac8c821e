/**
 * `bk COMMAND --help` read by a program is printed by bin/run.js from dist/help.json, without
 * loading the bundle: every text there must be the one oclif prints for it, and whatever could
 * make oclif print another (a terminal, colour asked for, another width, an unknown command) must
 * still go through oclif.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {ROOT, runBk, runBundle, spawnBk, tempDir} from '../helpers/bk.js'
import {runBkTty} from '../helpers/tty.js'

const {texts} = JSON.parse(readFileSync(join(ROOT, 'dist', 'help.json'), 'utf8')) as {texts: Record<string, string>}

describe('help for a program', () => {
  // One run of oclif per text, fifty of them: the time limit guards against a hang, sized for a
  // busy machine.
  it("holds every command and topic, each exactly oclif's text", async () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, unknown>
    }
    // Every command but `help`, whose own help is the root's, which names the Node version.
    for (const id of Object.keys(manifest.commands).filter((c) => c !== 'help'))
      expect(Object.keys(texts)).toContain(id.split(':').join(' '))
    expect(Object.keys(texts)).not.toContain('help')
    for (const [id, text] of Object.entries(texts)) {
      const oclif = await runBundle([...id.split(' '), '--help'])
      expect(oclif.code, id).toBe(0)
      expect(text, id).toBe(oclif.stdout)
    }
  }, 600_000)

  it('is printed without loading the bundle, for --help and for `bk help`', async () => {
    const cache = tempDir()
    for (const args of [
      ['businesses', 'list', '--help'],
      ['help', 'businesses', 'list'],
      ['bills', '--help'],
    ]) {
      const result = await runBk(args, {env: {BK_CACHE_DIR: cache}})
      expect(result).toMatchObject({code: 0, stderr: ''})
      expect(result.stdout).toBe(texts[args.filter((a) => a !== 'help' && a !== '--help').join(' ')])
    }
    // Nothing of the bundle ran: not even a code cache was noted.
    expect(readdirSync(cache)).toEqual([])
  })

  it("is oclif's, for a width or colour asked for, for what is no command and for the root", async () => {
    for (const [args, env] of [
      [['help', '--help'], {}],
      [['invoices', 'list', '--help'], {OCLIF_COLUMNS: '60'}],
      [['invoices', 'list', '--help'], {FORCE_COLOR: '1'}],
      [['transactions', 'get', 'txn_1', '--help'], {}],
      [['nosuch', '--help'], {}],
    ] as const) {
      const cache = tempDir()
      const viaBin = await runBk([...args], {env: {...env, BK_CACHE_DIR: cache}})
      const oclif = await runBundle([...args], env)
      expect(viaBin.code).toBe(oclif.code)
      expect(viaBin.stdout).toBe(oclif.stdout)
      expect(viaBin.stderr).toBe(oclif.stderr)
      expect(readdirSync(cache)).not.toEqual([])
    }
    // The width and the colour do change what oclif prints: the stored text would be wrong there.
    expect((await runBk(['invoices', 'list', '--help'], {env: {OCLIF_COLUMNS: '60'}})).stdout).not.toBe(
      texts['invoices list'],
    )
    expect((await runBk(['invoices', 'list', '--help'], {env: {FORCE_COLOR: '1'}})).stdout).toContain('\u001b[')
  })

  it("is oclif's on a terminal, at the terminal's width", async () => {
    const cache = tempDir()
    const result = await runBkTty(['invoices', 'list', '--help'], {env: {BK_CACHE_DIR: cache}, columns: 100})
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('USAGE')
    expect(readdirSync(cache)).not.toEqual([])
  })

  it('and the version exit 0 without a word when stdout is closed before they are written', async () => {
    for (const args of [['bills', 'import', '--help'], ['help', '--help'], ['--version']]) {
      const child = spawnBk(args)
      child.stdin.end()
      // Closed as bk starts: its one write finds no reader (`bk … --help | true`).
      child.stdout.destroy()
      let stderr = ''
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
      expect({args, code, stderr}).toEqual({args, code: 0, stderr: ''})
    }
  })
})
