/**
 * `bk bills import status`: what a journal holds, checked against what the emulator recorded;
 * oclif tells the subcommand from an import of a file; a missing or damaged journal is named.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {DEMO_IDS} from '../../src/emulator/seed.js'
import {parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

const BIZ = DEMO_IDS.business
const HEADER = 'number,vendor_id,line_amount,line_ledger_id'

let emulator: RunningEmulator
let faulty: RunningEmulator
beforeAll(async () => {
  emulator = await start()
  // Every request is handled, then its connection dropped: each bill is created, unconfirmed.
  faulty = await start({faultRate: 1, faultSeed: 5, faultKinds: ['reset-after']})
  faulty.state.tokens.set('status-token', {
    clientId: faulty.clientId,
    businessId: BIZ,
    expiresAt: Date.now() + 3_600_000,
  })
})
afterAll(async () => {
  await emulator.close()
  await faulty.close()
})

const recorded = (e: RunningEmulator, prefix: string) =>
  e.state.bills.all(BIZ).filter((b) => String(b.number).startsWith(prefix))

/** `bills import status --json` as printed (its keys in snake_case). */
interface JournalStatus {
  started_at: string
  runs: Array<{at: string; resume: boolean}>
  settlements: unknown[]
  [key: string]: unknown
}

async function status(args: string[], cwd: string): Promise<JournalStatus> {
  const result = await runBk(['bills', 'import', 'status', ...args, '--json'], {cwd})
  expect(result.code, result.stderr).toBe(0)
  return parseJsonOutput<JournalStatus>(result)
}

describe('bk bills import status', () => {
  it('counts what the emulator created and refused, and lists each run', async () => {
    const dir = tempDir('bk-status-')
    // Named like the subcommand on purpose: `bills import status.csv` must still import it.
    const rows = [
      ...Array.from({length: 5}, (_, i) => `ST-${i + 1},${DEMO_IDS.vendors.office},${i + 1}.00,ldg_demo_expenses`),
      `ST-6,ven_unknown,6.00,ldg_demo_expenses`,
      `ST-7,ven_unknown,7.00,ldg_demo_expenses`,
    ]
    writeFileSync(join(dir, 'status.csv'), [HEADER, ...rows].join('\n') + '\n')
    const env = envFor(emulator)
    const first = await runBk(['bills', 'import', 'status.csv', '--batch-size', '2'], {env, cwd: dir})
    expect(first.code, first.stderr).toBe(6)
    expect(first.stdout).toContain('Done: 5 created, 2 failed')
    const resumed = await runBk(['bills', 'import', 'status.csv', '--resume'], {env, cwd: dir})
    expect(resumed.code, resumed.stderr).toBe(6)

    const created = recorded(emulator, 'ST-')
    expect(created).toHaveLength(5)
    const byJournal = await status(['status.csv.bk-journal'], dir)
    expect(byJournal).toMatchObject({
      journal: 'status.csv.bk-journal',
      input: 'status.csv',
      business: BIZ,
      base_url: emulator.baseUrl,
      batches: 4,
      bills: 7,
      created: created.length,
      failed: 2,
      unconfirmed: 0,
      not_sent: 0,
      read_to_end: true,
      settled: 0,
      settlements: [],
      running: null,
    })
    expect(byJournal.runs.map((r) => r.resume)).toEqual([false, true])
    expect(Date.parse(byJournal.started_at)).toBeLessThanOrEqual(Date.parse(byJournal.runs[0]!.at))
    expect(Date.parse(byJournal.runs[0]!.at)).toBeLessThanOrEqual(Date.parse(byJournal.runs[1]!.at))
    // The imported file names the same journal, and so does no argument (the only journal here).
    expect(await status(['status.csv'], dir)).toEqual(byJournal)
    expect(await status([], dir)).toEqual(byJournal)

    const people = await runBk(['bills', 'import', 'status', 'status.csv'], {cwd: dir})
    expect(people.code, people.stderr).toBe(0)
    expect(people.stdout).toMatch(/^journal {6}status\.csv\.bk-journal$/m)
    expect(people.stdout).toMatch(/^created {6}5$/m)
    expect(people.stdout).toMatch(/^failed {7}2 \(refused by the service/m)
    expect(people.stdout).toMatch(/^run 2 {8}\S+ \(--resume\)$/m)
    expect(people.stdout).toMatch(/^read {9}to the end of status\.csv \(by the last run\)$/m)
  })

  it('says when the last run stopped before the end of its file, and that --resume reads the rest', async () => {
    const dir = tempDir('bk-status-')
    const row = (i: number) => `SE-${i},${DEMO_IDS.vendors.office},${i}.00,ldg_demo_expenses`
    // A stray quote on line 4 stops reading there: the bills after it are named by no record.
    const rows = [row(1), row(2), `SE-3",${DEMO_IDS.vendors.office},3.00,ldg_demo_expenses`, row(4), row(5)]
    writeFileSync(join(dir, 'cut.csv'), [HEADER, ...rows].join('\n') + '\n')
    const env = envFor(emulator)
    const run = await runBk(['bills', 'import', 'cut.csv', '--batch-size', '1'], {env, cwd: dir})
    expect(run.code, run.stderr).toBe(6)
    // SE-2 is held back: rows of it may follow the line that could not be read.
    expect(recorded(emulator, 'SE-')).toHaveLength(1)
    expect(await status(['cut.csv'], dir)).toMatchObject({bills: 1, created: 1, not_sent: 0, read_to_end: false})
    const people = await runBk(['bills', 'import', 'status', 'cut.csv'], {cwd: dir})
    expect(people.stdout).toMatch(
      /^read {9}not to the end: the last run stopped before the end of cut\.csv; bk bills import cut\.csv --resume reads the rest$/m,
    )

    // Mended, the resumed run reads to the end, and says so.
    writeFileSync(join(dir, 'cut.csv'), [HEADER, ...rows.map((r, i) => (i === 2 ? row(3) : r))].join('\n') + '\n')
    const resumed = await runBk(['bills', 'import', 'cut.csv', '--resume'], {env, cwd: dir})
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(await status(['cut.csv'], dir)).toMatchObject({bills: 5, created: 5, read_to_end: true})
  })

  it('counts unconfirmed bills, then the settlement that found them', async () => {
    const dir = tempDir('bk-status-')
    const count = 4
    writeFileSync(
      join(dir, 'bills.csv'),
      [
        HEADER,
        ...Array.from({length: count}, (_, i) => `UC-${i + 1},${DEMO_IDS.vendors.cloud},1.00,ldg_demo_software`),
      ].join('\n') + '\n',
    )
    const env = {BK_BASE_URL: faulty.baseUrl, BK_ACCESS_TOKEN: 'status-token', BK_BUSINESS_ID: BIZ}
    const run = await runBk(['bills', 'import', 'bills.csv', '--batch-size', '1', '--concurrency', '1'], {
      env,
      cwd: dir,
    })
    expect(run.code, run.stderr).toBe(6)
    expect(recorded(faulty, 'UC-')).toHaveLength(count)
    expect(await status(['bills.csv'], dir)).toMatchObject({bills: count, created: 0, unconfirmed: count, settled: 0})

    const settle = await runBk(['bills', 'unconfirmed', 'bills.csv', '--settle'], {cwd: dir})
    expect(settle.code, settle.stderr).toBe(0)
    const after = await status(['bills.csv'], dir)
    expect(after).toMatchObject({
      bills: count,
      created: recorded(faulty, 'UC-').length,
      unconfirmed: 0,
      not_sent: 0,
      settled: count,
    })
    expect(after.settlements).toEqual([{at: expect.any(String), created: count, absent: 0}])
  })

  it('counts bills not sent and settled as never created; names a running import', async () => {
    const dir = tempDir('bk-status-')
    const journal = join(dir, 'hand.bk-journal')
    writeFileSync(
      journal,
      [
        '{"t":"header","format":"bk-bills-journal","version":1,"input":"hand.csv","business":"biz_demo_acme","baseUrl":"http://127.0.0.1:1","at":"2026-03-01T02:00:00.000Z"}',
        '{"t":"run","at":"2026-03-01T02:00:00.001Z","resume":false}',
        '{"t":"sending","batch":1,"numbers":["A","B"]}',
        '{"t":"result","batch":1,"created":[["A","bil_1"]],"failed":[["B","rejected by the service: x"]],"unconfirmed":[]}',
        '{"t":"sending","batch":2,"numbers":["C","D"]}',
        '{"t":"notsent","batch":2,"reason":"503"}',
        '{"t":"sending","batch":3,"numbers":["E","F"]}',
        '{"t":"settled","at":"2026-03-01T03:00:00.000Z","created":[["F","bil_6"]],"absent":["E"]}',
        '{"t":"run","at":"2026-03-02T02:00:00.000Z","resume":true}',
        '{"t":"sending","batch":4,"numbers":["G"]}',
        // A torn last line (a crash mid-write) is not read.
        '{"t":"result","batch":4,"created":[["G","bil_',
      ].join('\n'),
    )
    // This test's own process holds the lock: alive, as a running import would be.
    writeFileSync(`${journal}.lock`, `${process.pid}\n`)
    expect(await status([journal], dir)).toMatchObject({
      input: 'hand.csv',
      started_at: '2026-03-01T02:00:00.000Z',
      runs: [
        {at: '2026-03-01T02:00:00.001Z', resume: false},
        {at: '2026-03-02T02:00:00.000Z', resume: true},
      ],
      batches: 4,
      bills: 7,
      created: 2,
      failed: 1,
      // G: sent by the run that holds the lock, no answer recorded yet.
      unconfirmed: 1,
      not_sent: 3,
      settled: 2,
      settlements: [{at: '2026-03-01T03:00:00.000Z', created: 1, absent: 1}],
      // The run holding the lock has not ended: how much it reads is not known yet.
      read_to_end: null,
      running: {pid: process.pid},
    })
  })

  it('names standard input stdin, as every message does, not "-"', async () => {
    const dir = tempDir('bk-status-')
    const rows = [HEADER, `SI-1,${DEMO_IDS.vendors.office},1.00,ldg_demo_expenses`, '']
    const run = await runBk(['bills', 'import', '-', '--journal', 'in.bk-journal'], {
      env: envFor(emulator),
      cwd: dir,
      input: rows.join('\n'),
    })
    expect(run.code, run.stderr).toBe(0)
    const text = await runBk(['bills', 'import', 'status', 'in.bk-journal'], {cwd: dir})
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toMatch(/^read +to the end of stdin \(by the last run\)$/m)
  })

  it('names a missing journal and a damaged one, exit 2', async () => {
    const dir = tempDir('bk-status-')
    const missing = await runBk(['bills', 'import', 'status', 'nightly.csv'], {cwd: dir})
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('No import journal at nightly.csv.bk-journal')
    const none = await runBk(['bills', 'import', 'status'], {cwd: dir})
    expect(none.code).toBe(2)
    expect(none.stderr).toContain(`No import journal (*.bk-journal) in ${dir}`)

    writeFileSync(
      join(dir, 'bad.bk-journal'),
      [
        '{"t":"header","format":"bk-bills-journal","version":1,"input":"bad.csv","business":"biz_demo_acme","baseUrl":"http://127.0.0.1:1","at":"x"}',
        '{"t":"run","at":"x","resume":false',
        '{"t":"sending","batch":1,"numbers":["A"]}',
        '',
      ].join('\n'),
    )
    const damaged = await runBk(['bills', 'import', 'status', 'bad.bk-journal', '--json'], {cwd: dir})
    expect(damaged.code).toBe(2)
    expect(parseJsonOutput<{error: string}>(damaged).error).toBe(
      'The import journal bad.bk-journal is damaged at line 2',
    )
  })
})
