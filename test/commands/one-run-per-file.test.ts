/**
 * One run per journal: a second run of the same file while the first is still sending is refused
 * (exit 2, naming the running process), so that nothing is posted twice; a lock left by a process
 * that is gone is taken over.
 */
import {spawnSync} from 'node:child_process'
import {existsSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {DEMO_IDS} from '../../src/emulator/seed.js'
import {billRow, billsCsv, numberedBills} from '../helpers/bill-rows.js'
import {runBk, tempDir} from '../helpers/bk.js'
import {recordingProxy, type RecordedRequest} from '../helpers/recording-proxy.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

const COUNT = 3

let emulator: RunningEmulator
beforeAll(async () => {
  // Slow answers (1.5 s each) keep the first run sending while the second one starts.
  emulator = await start({latencyMs: 1500})
})
afterAll(() => emulator.close())

function countBy<T>(items: T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>()
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1)
  return counts
}

describe('one run per file', () => {
  it('bills import: a second run of the same file while the first sends is refused; each bill once', async () => {
    const file = join(tempDir('bk-lock-bills-'), 'bills.csv')
    writeFileSync(file, numberedBills('LOCK', 1, COUNT, '50'))
    const args = ['bills', 'import', file, '--resume', '--batch-size', '1', '--concurrency', '1']
    // The first run's first batch is held in flight until the second run has been answered.
    const proxy = await recordingProxy(emulator.baseUrl, (r) => r.method === 'POST' && r.path.endsWith('/bills'))
    const env = {...envFor(emulator), BK_BASE_URL: proxy.baseUrl}
    const first = runBk(args, {env, timeoutMs: 100_000})
    await proxy.whenRequest((r) => r.method === 'POST' && r.path.endsWith('/bills'))
    const second = await runBk(args, {env})
    proxy.release()
    const done = await first
    await proxy.close()
    expect(done.code, done.stderr).toBe(0)
    expect(second.code, second.stderr + second.stdout).toBe(2)
    expect(second.stderr).toMatch(/in use by bk process \d+/)
    const stored = emulator.state.bills.all(DEMO_IDS.business).filter((b) => String(b.number).startsWith('LOCK-'))
    const counts = countBy(stored, (b) => String(b.number))
    expect(counts.size).toBe(COUNT)
    for (const [number, n] of counts) expect(n, number).toBe(1)
    // The lock goes with the run.
    expect(existsSync(`${file}.bk-journal.lock`)).toBe(false)
  })

  it('journal-entries create: a second run while the first posts is refused; each entry once', async () => {
    const file = join(tempDir('bk-lock-je-'), 'entries.yaml')
    const L = DEMO_IDS.ledgers
    writeFileSync(
      file,
      'entries:\n' +
        Array.from(
          {length: COUNT},
          (_, i) =>
            `  - description: Locked ${i + 1}\n    datetime: 2026-04-01T00:00:00Z\n    lines:\n      - {ledger_id: ${L.expenses}, debit: ${i + 1}.00}\n      - {ledger_id: ${L.cash}, credit: ${i + 1}.00}\n`,
        ).join(''),
    )
    // The first run's first entry is held in flight until the second run has been answered.
    const posted = (r: RecordedRequest) => r.method === 'POST' && r.path.includes('/journal-entries')
    const proxy = await recordingProxy(emulator.baseUrl, posted)
    const env = {...envFor(emulator), BK_BASE_URL: proxy.baseUrl}
    const first = runBk(['journal-entries', 'create', file], {env, timeoutMs: 100_000})
    await proxy.whenRequest(posted)
    const second = await runBk(['journal-entries', 'create', file, '--resume'], {env})
    proxy.release()
    const done = await first
    await proxy.close()
    expect(done.code, done.stderr).toBe(0)
    expect(second.code, second.stderr).toBe(2)
    expect(second.stderr).toMatch(/in use by bk process \d+/)
    const stored = emulator.state.journalEntries
      .all(DEMO_IDS.business)
      .filter((e) => e.description?.startsWith('Locked '))
    const counts = countBy(stored, (e) => String(e.description))
    expect(counts.size).toBe(COUNT)
    for (const [description, n] of counts) expect(n, description).toBe(1)
  })

  it('takes over a lock left by a process that is gone', async () => {
    const file = join(tempDir('bk-lock-stale-'), 'bills.csv')
    writeFileSync(file, billsCsv([billRow('STALE-1')]))
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString()
    writeFileSync(`${file}.bk-journal.lock`, `${gone}\n`)
    const result = await runBk(['bills', 'import', file], {env: envFor(emulator)})
    expect(result.code, result.stderr).toBe(0)
    expect(emulator.state.bills.all(DEMO_IDS.business).filter((b) => b.number === 'STALE-1')).toHaveLength(1)
    expect(existsSync(`${file}.bk-journal.lock`)).toBe(false)
  })
})
