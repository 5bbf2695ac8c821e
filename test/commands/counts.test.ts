/**
 * Counts as people read them, in every message that prints one: digits grouped by thousands
 * (`1,200`) in progress and summary alike, and the noun singular for one (`1 row`, `1 bill`), with
 * no `(s)`, `(es)` or empty "0 of 0" asides.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runBk, tempDir} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

const HEADER = 'number,vendor_id,line_amount,line_ledger_id'
const billRows = (prefix: string, n: number) =>
  Array.from({length: n}, (_, i) => `${prefix}-${i + 1},ven_demo_office,10.00,ldg_demo_expenses`)

function file(name: string, lines: string[]): {dir: string; path: string} {
  const dir = tempDir('bk-counts-')
  const path = join(dir, name)
  writeFileSync(path, lines.join('\n') + '\n')
  return {dir, path}
}

describe('counts and plurals', () => {
  it('bills import --dry-run: "1 row, 1 bill" for one, "1,200 rows" for many', async () => {
    const one = file('one.csv', [HEADER, ...billRows('ONE', 1)])
    const single = await runBk(['bills', 'import', one.path, '--dry-run'], {cwd: one.dir})
    expect(single.code, single.stderr).toBe(0)
    expect(single.stderr).toContain('one.csv: 1 row, 1 bill, 1 valid')
    const many = file('many.csv', [HEADER, ...billRows('MANY', 1200)])
    const thousands = await runBk(['bills', 'import', many.path, '--dry-run'], {cwd: many.dir})
    expect(thousands.code, thousands.stderr).toBe(0)
    expect(thousands.stderr).toContain('many.csv: 1,200 rows, 1,200 bills, 1,200 valid')
  })

  it('problems name their bills in the singular for one, and no "0 of 0"', async () => {
    const broken = file('broken.csv', [HEADER, 'B-1,ven_demo_office,10.00'])
    const result = await runBk(['bills', 'import', broken.path, '--dry-run'], {cwd: broken.dir})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('Error: 1 problem in ')
    expect(result.stderr).toContain('broken.csv (1 of 1 bill invalid); nothing was sent')
    expect(result.stderr).not.toContain('0 of 0')
  })

  it('a row of the wrong width: "has 1,001 columns", grouped as everywhere', async () => {
    const wide = file('wide.csv', [HEADER, Array.from({length: 1001}, () => 'x').join(',')])
    const result = await runBk(['bills', 'import', wide.path, '--dry-run'], {cwd: wide.dir})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('has 1,001 columns, but the header (line 1) has 4')
  })

  it('the summary of an import: "1 bill in 1 row"', async () => {
    const one = file('bills.csv', [HEADER, ...billRows('SUM', 1)])
    const result = await runBk(['bills', 'import', one.path], {env: envFor(emulator), cwd: one.dir})
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain('; 1 bill in 1 row,')
  })

  it('journal-entries validate: "1 entry, 2 lines"', async () => {
    const entry = file('entry.yaml', [
      'datetime: 2026-03-01T00:00:00Z',
      'description: one',
      'lines:',
      '  - {ledger_id: ldg_demo_expenses, debit: 5.00}',
      '  - {ledger_id: ldg_demo_cash, credit: 5.00}',
    ])
    const result = await runBk(['journal-entries', 'validate', entry.path], {cwd: entry.dir})
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain('entry.yaml: 1 entry, 2 lines, all balanced')
  })

  it('doctor counts a business and a key without "(es)" or "(s)"', async () => {
    const result = await runBk(['doctor'], {env: envFor(emulator), configDir: tempDir()})
    expect(result.stdout).toMatch(/it sees 1 business, the default /)
    expect(result.stdout).toMatch(/: 1 key, the first /)
    expect(result.stdout).not.toMatch(/\((s|es)\)/)
  })
})
