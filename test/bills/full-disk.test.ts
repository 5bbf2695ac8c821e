/**
 * A journal write that the disk cuts short (here a file-size limit: the kernel writes part of the
 * record, then refuses with EFBIG, as a full disk does) stops the run before the batch it
 * announces is sent. Resumed twice afterwards, every bill exists exactly once.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {DEMO_IDS} from '../../src/emulator/seed.js'
import {parseJsonOutput, runBk, tempDir, type BkResult} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

const COUNT = 400

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

/** Runs bk with every file it writes limited to `kib` KiB (bash's ulimit -f). */
function runLimited(kib: number, args: string[], cwd: string): Promise<BkResult> {
  return runBk(args, {cwd, env: envFor(emulator), prefix: ['bash', '-c', `ulimit -f ${kib}; exec "$0" "$@"`]})
}

describe('a full disk', () => {
  it('ends the run with exit 9 and an exact summary of what was created, wherever the write fails', async () => {
    // Each limit cuts the journal at another record: before a batch, or after the service created it.
    for (const kib of [3, 4, 5, 6]) {
      const prefix = `DISK${kib}`
      const dir = tempDir('bk-full-disk-')
      const rows = Array.from(
        {length: COUNT},
        (_, i) =>
          `${prefix}-${String(i + 1).padStart(4, '0')},${DEMO_IDS.vendors.office},1.00,${DEMO_IDS.ledgers.expenses}`,
      )
      writeFileSync(join(dir, 'bills.csv'), ['number,vendor_id,line_amount,line_ledger_id', ...rows].join('\n') + '\n')
      const args = ['bills', 'import', 'bills.csv', '--batch-size', '20', '--concurrency', '2', '--json']
      const run = await runLimited(kib, args, dir)
      const created = emulator.state.bills
        .all(DEMO_IDS.business)
        .filter((b) => String(b.number).startsWith(`${prefix}-`)).length
      expect(run.code, `${kib} KiB: ${run.stdout}`).toBe(9)
      const error = JSON.parse(run.stdout) as {
        code: string
        details: {summary: {[k in 'bills' | 'created' | 'not_sent' | 'unconfirmed' | 'failed']: number}}
      }
      expect(error.code).toBe('disk_full')
      const summary = error.details.summary
      expect(summary.created, `${kib} KiB: ${run.stdout}`).toBe(created)
      expect(summary.created + summary.not_sent + summary.unconfirmed + summary.failed, 'every bill read').toBe(
        summary.bills,
      )
    }
  })
})

describe('a journal write cut short', () => {
  it('stops before sending; two resumes later every bill exists once', async () => {
    const dir = tempDir('bk-full-disk-')
    const rows = Array.from(
      {length: COUNT},
      (_, i) => `FULL-${String(i + 1).padStart(4, '0')},${DEMO_IDS.vendors.office},1.00,${DEMO_IDS.ledgers.expenses}`,
    )
    writeFileSync(join(dir, 'bills.csv'), ['number,vendor_id,line_amount,line_ledger_id', ...rows].join('\n') + '\n')
    const args = ['bills', 'import', 'bills.csv', '--batch-size', '20', '--concurrency', '1']
    const stopped = await runLimited(4, args, dir)
    expect(stopped.code, stopped.stderr).not.toBe(0)
    const stored = () => emulator.state.bills.all(DEMO_IDS.business).filter((b) => String(b.number).startsWith('FULL-'))
    expect(stored().length).toBeLessThan(COUNT)
    // A batch whose result could not be recorded is unconfirmed (its bills were created): never re-sent.
    type Summary = {created: number; skipped: number; unconfirmed: number; failed: number}
    for (let round = 0; round < 2; round++) {
      const resumed = await runBk([...args, '--resume', '--json'], {env: envFor(emulator), cwd: dir})
      const summary = parseJsonOutput<Summary>(resumed)
      expect(summary.failed, resumed.stderr).toBe(0)
      expect(summary.created + summary.skipped + summary.unconfirmed, 'every bill accounted for').toBe(COUNT)
      if (round === 1) expect(summary.created).toBe(0)
    }
    // Settled against the emulator, a last resume completes the import: it sends what settling
    // found never created (a batch recorded as sending ahead of its request, when the run stopped).
    expect((await runBk(['bills', 'unconfirmed', 'bills.csv', '--settle'], {cwd: dir})).code).toBe(0)
    const last = parseJsonOutput<Summary>(
      await runBk([...args, '--resume', '--json'], {env: envFor(emulator), cwd: dir}),
    )
    expect(last).toMatchObject({unconfirmed: 0, failed: 0})
    expect(last.created + last.skipped).toBe(COUNT)
    const counts = new Map<string, number>()
    for (const b of stored()) counts.set(String(b.number), (counts.get(String(b.number)) ?? 0) + 1)
    expect(counts.size).toBe(COUNT)
    for (const [number, n] of counts) expect(n, number).toBe(1)
  })
})
