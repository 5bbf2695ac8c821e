/**
 * Files that hold business data (exports, rejects, results, journals) are created 0600 and never
 * written through a symbolic link planted at their path, dangling or not.
 */
import {existsSync, lstatSync, readFileSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, beforeEach, describe, expect, it, vi} from 'vitest'

import {runBk, tempDir} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

vi.setConfig({testTimeout: 240_000})

const BIZ = 'biz_demo_acme'
let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())
beforeEach(() => emulator.state.bills.clear())

const MIXED =
  [
    'number,vendor_id,description,line_amount,line_ledger_id',
    'P-1,ven_demo_office,ok,10,ldg_demo_expenses',
    'P-2,ven_unknown,unknown vendor,7.5,ldg_demo_expenses',
  ].join('\n') + '\n'

const mode = (path: string) => statSync(path).mode & 0o777

describe('files bk writes', () => {
  it('an export, the rejects, the results and the journal are 0600', async () => {
    const dir = tempDir('bk-private-')
    const file = join(dir, 'invoices.csv')
    const list = await runBk(['invoices', 'list', '--output', 'csv', '--file', file, '--limit', '2'], {
      env: envFor(emulator),
    })
    expect(list.code, list.stderr).toBe(0)
    expect(mode(file)).toBe(0o600)
    writeFileSync(join(dir, 'mixed.csv'), MIXED)
    // An earlier rejects file readable by others is rewritten private.
    writeFileSync(join(dir, 'mixed.rejects.csv'), 'old\n', {mode: 0o644})
    const result = await runBk(['bills', 'import', 'mixed.csv', '--results', 'created.csv'], {
      env: envFor(emulator),
      cwd: dir,
    })
    expect(result.code, result.stderr).toBe(6)
    for (const name of ['mixed.rejects.csv', 'created.csv', 'mixed.csv.bk-journal'])
      expect([name, mode(join(dir, name))]).toEqual([name, 0o600])
  })

  it('--file through a link to another file is refused before any request, the target untouched', async () => {
    const dir = tempDir('bk-private-')
    const victim = join(dir, 'victim.txt')
    writeFileSync(victim, 'keep me\n')
    symlinkSync(victim, join(dir, 'export.csv'))
    const result = await runBk(['invoices', 'list', '--output', 'csv', '--file', join(dir, 'export.csv')], {
      env: envFor(emulator),
    })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('symbolic link')
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n')
  })

  it('--results through a link, and a dangling link at the rejects or journal path, are refused; nothing is sent or created', async () => {
    for (const [flags, link] of [
      [['--results', 'created.csv'], 'created.csv'],
      [[], 'mixed.rejects.csv'],
      [[], 'mixed.csv.bk-journal'],
    ] as const) {
      const dir = tempDir('bk-private-')
      writeFileSync(join(dir, 'mixed.csv'), MIXED)
      const target = join(dir, 'planted.txt')
      symlinkSync(target, join(dir, link))
      const result = await runBk(['bills', 'import', 'mixed.csv', ...flags], {env: envFor(emulator), cwd: dir})
      expect([link, result.code]).toEqual([link, 2])
      expect(result.stderr).toContain(`${link}: is a symbolic link`)
      expect(existsSync(join(dir, 'planted.txt'))).toBe(false)
      expect(lstatSync(join(dir, link)).isSymbolicLink()).toBe(true)
      expect(emulator.state.bills.all(BIZ)).toEqual([])
    }
  })
})
