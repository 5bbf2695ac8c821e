/**
 * A run stopped by a row it cannot read says exactly what was sent: exit 2 ("nothing was sent")
 * only when nothing was, and never a hint that would send the sent bills again.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {DEMO_IDS} from '../../src/emulator/seed.js'
import {runBk, tempDir} from '../helpers/bk.js'
import {BILL_HEADER, billRow, billsCsv} from '../helpers/bill-rows.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

describe('a run stopped at an unreadable row', () => {
  it('from stdin, after bills were sent: exit 6, says how many were sent, never hints at re-running', async () => {
    const rows = Array.from({length: 150}, (_, i) => billRow(`STOP-${i + 1}`))
    const csv = billsCsv([...rows, `STOP-X,${DEMO_IDS.vendors.office},"never closed,2026-03-01`])
    const cwd = tempDir('bk-stopped-')
    const result = await runBk(['bills', 'import', '-', '--batch-size', '100'], {
      env: envFor(emulator),
      input: csv,
      cwd,
    })
    const created = emulator.state.bills
      .all(DEMO_IDS.business)
      .filter((b) => String(b.number).startsWith('STOP-')).length
    expect(created).toBe(100)
    expect(result.code).toBe(6)
    expect(result.stderr).toMatch(/stdin:152: .*100 bills before it were sent \(100 created/)
    expect(result.stdout + result.stderr).not.toMatch(/run the import again|--resume/)
    expect(result.stderr).toMatch(/do not import the same rows again.*line 152/)
    // The bills read but not sent are listed, the rows as read, and the hint names the file.
    // STOP-150, the bill still open when the quote swallowed the rest, is among them.
    expect(result.stderr).toContain(
      'import only bills-import.unsent.csv (the bills read but not sent) and the rows from line 152 on',
    )
    expect(result.stdout).toContain('Bills read but not sent (the run stopped first): bills-import.unsent.csv')
    const unsent = readFileSync(join(cwd, 'bills-import.unsent.csv'), 'utf8').trim().split('\n')
    expect(unsent[0]).toBe(`${BILL_HEADER},error`)
    expect(unsent.slice(1).map((l) => l.split(',')[0])).toEqual(Array.from({length: 50}, (_, i) => `STOP-${i + 101}`))
    // Every bill read is counted: 100 created and 50 read but not sent.
    expect(result.stdout).toMatch(/150 bills/)
  })

  it('before anything was sent: exit 2, and says nothing was sent', async () => {
    const csv = billsCsv([billRow('EARLY-1'), `EARLY-2,${DEMO_IDS.vendors.office},"never closed,2026-03-01`])
    const result = await runBk(['bills', 'import', '-', '--batch-size', '100'], {
      env: envFor(emulator),
      input: csv,
      cwd: tempDir('bk-stopped-'),
    })
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/nothing was sent/)
    expect(
      emulator.state.bills.all(DEMO_IDS.business).filter((b) => String(b.number).startsWith('EARLY-')),
    ).toHaveLength(0)
  })

  it('from a file, found while batches wait for their answers: the same stop, not a crash', async () => {
    // The parser meets the unclosed quote at the end of the file while the reader waits for a
    // request slot: its error must wait for the reader too (it once ended bk with a stack trace).
    const slow = await start({latencyMs: 200})
    try {
      const rows = Array.from({length: 3_000}, (_, i) => billRow(`LATE-${i + 1}`))
      const cwd = tempDir('bk-stopped-')
      writeFileSync(
        join(cwd, 'late.csv'),
        billsCsv([...rows, `LATE-X,${DEMO_IDS.vendors.office},"never closed,2026-03-01`]),
      )
      const result = await runBk(['bills', 'import', 'late.csv'], {env: envFor(slow), cwd})
      expect(result.stderr).not.toMatch(/Emitted 'error' event|node:internal/)
      expect(result.code, result.stderr).toBe(6)
      expect(result.stderr).toContain(
        'late.csv:3002: column description: unterminated quoted field: the quote opened on line 3002',
      )
      // The bill still open when the quote swallowed the rest is read but never sent.
      expect(result.stderr).toMatch(
        /2,900 bills before it were sent \(2,900 created, 0 unconfirmed\); 100 bills were not sent/,
      )
      expect(slow.state.bills.all(DEMO_IDS.business).filter((b) => String(b.number).startsWith('LATE-'))).toHaveLength(
        2_900,
      )
    } finally {
      await slow.close()
    }
  })
})
