/**
 * The files bk writes beside an input follow one rule, which the help states: the input's name
 * without its extension, then the kind (`bills.rejects.csv`); the resume log keeps the whole name
 * (`bills.csv.bk-journal`). The repository ignores them, so that trying the README leaves the work
 * tree clean.
 */
import {execFileSync} from 'node:child_process'
import {existsSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {ROOT, runBk, tempDir} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

describe('files written beside the input', () => {
  it('are named after the input without its extension; the journal keeps the whole name', async () => {
    const dir = tempDir('bk-side-')
    writeFileSync(
      join(dir, 'export.txt'),
      'number,vendor_id,line_amount,line_ledger_id\nS-1,ven_demo_office,10.00,ldg_demo_expenses\nS-2,ven_missing,10.00,ldg_demo_expenses\n',
    )
    const result = await runBk(['bills', 'import', 'export.txt'], {env: envFor(emulator), cwd: dir})
    expect(result.code, result.stderr).toBe(6)
    expect(existsSync(join(dir, 'export.rejects.csv')), result.stdout).toBe(true)
    expect(existsSync(join(dir, 'export.txt.rejects.csv'))).toBe(false)
    expect(existsSync(join(dir, 'export.txt.bk-journal'))).toBe(true)
  })

  it('the help says both rules', async () => {
    const help = await runBk(['bills', 'import', '--help'])
    const text = help.stdout.replace(/\s+/g, ' ')
    expect(text).toContain("the input's name without its extension, then the kind")
    expect(text).toContain('bills.csv.bk-journal')
    expect(text).toContain('[default: NAME.rejects.csv for NAME.csv]')
  })

  it('the repository ignores them', () => {
    const paths = [
      'examples/bills.csv.bk-journal',
      'examples/bills.rejects.csv',
      'examples/bills.unconfirmed.csv',
      'examples/bills.unsent.csv',
    ]
    const ignored = execFileSync('git', ['check-ignore', '--no-index', ...paths], {cwd: ROOT})
      .toString()
      .split('\n')
    expect(ignored.filter(Boolean)).toEqual(paths)
  })
})
