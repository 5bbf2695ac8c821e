/**
 * `bk bills record` through the real binary: what the record of the business holds, and
 * `--forget-before` (confirmation, then the bills forgotten are no longer guarded). Also a dry run
 * counting the bills another run left unconfirmed, and an import against a record large enough
 * to be indexed.
 */
import {existsSync, mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {createdRecordPath, normaliseBaseUrl} from '../../src/bills/created-record.js'
import {DEMO_IDS} from '../../src/emulator/seed.js'
import {parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

const HEADER = 'number,vendor_id,description,issued_at,due_at,currency,line_description,line_amount,line_ledger_id'
const VENDOR = DEMO_IDS.vendors.office
const key = (number: string) => `${VENDOR}\u001f${number}`

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

function csv(numbers: string[]): string {
  const lines = numbers.map(
    (n) => `${n},${VENDOR},Record ${n},2026-03-01,2026-04-01T00:00:00Z,EUR,Paper,1.25,${DEMO_IDS.ledgers.expenses}`,
  )
  return [HEADER, ...lines].join('\n') + '\n'
}

/** Writes the business's record in `folder` with these lines after the header. */
function writeRecord(folder: string, lines: Array<string | object>): string {
  mkdirSync(folder, {recursive: true})
  const file = createdRecordPath(folder, emulator.baseUrl, DEMO_IDS.business)
  const header = {
    t: 'header',
    format: 'bk-created-bills',
    version: 2,
    baseUrl: normaliseBaseUrl(emulator.baseUrl),
    business: DEMO_IDS.business,
    at: '2025-12-01T00:00:00.000Z',
  }
  const text = [header, ...lines].map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')
  writeFileSync(file, text + '\n', {mode: 0o600})
  return file
}

const OLD = '2025-12-05T10:00:00.000Z'
const NEW = '2026-02-05T10:00:00.000Z'

/** Two old bills, one recent, one left unconfirmed, one settled, and a damaged line 5. */
function storyLines(prefix: string): Array<string | object> {
  return [
    {key: key(`${prefix}-1`), id: 'bil_old1', at: OLD, input: 'old.csv'},
    {key: key(`${prefix}-2`), id: 'bil_old2', at: OLD, input: 'old.csv'},
    {key: key(`${prefix}-3`), unconfirmed: NEW, at: NEW, input: 'new.csv'},
    '{"key":"broken',
    {key: key(`${prefix}-4`), unconfirmed: NEW, at: NEW, input: 'new.csv'},
    {key: key(`${prefix}-4`), absent: true, at: NEW},
    {key: key(`${prefix}-5`), id: 'bil_new5', at: NEW, input: 'new.csv'},
  ]
}

interface Shown {
  file: string
  exists: boolean
  created: number
  unconfirmed: number
  settled: number
  damaged_lines: number[]
  damaged_count: number
  oldest: string | null
  newest: string | null
  forgotten?: number
}

describe('bk bills record', () => {
  it('shows what the record holds, for the business in use', async () => {
    const folder = join(tempDir('bk-record-cmd-'), 'records')
    const file = writeRecord(folder, storyLines('SHOW'))
    const env = envFor(emulator)
    const shown = await runBk(['bills', 'record', '--record', folder, '--json'], {env})
    expect(shown.code, shown.stderr).toBe(0)
    expect(parseJsonOutput<Shown>(shown)).toEqual({
      file,
      exists: true,
      created: 3,
      unconfirmed: 1,
      settled: 1,
      damaged_lines: [5],
      damaged_count: 1,
      oldest: OLD,
      newest: NEW,
    })
    const text = await runBk(['bills', 'record'], {env: {...env, BK_STATE_DIR: join(folder, '..')}})
    // BK_STATE_DIR names the folder's parent: records live in its created-bills/.
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toContain('No record of created bills for')

    const none = await runBk(['bills', 'record', '--record', join(folder, 'none'), '--json'], {env})
    expect(parseJsonOutput<Shown>(none)).toMatchObject({exists: false, created: 0})
  })

  it('--forget-before asks first; then those bills are no longer guarded', async () => {
    const dir = tempDir('bk-record-forget-')
    const folder = join(dir, 'records')
    writeRecord(folder, storyLines('FORGET'))
    const env = envFor(emulator)
    const refused = await runBk(['bills', 'record', '--record', folder, '--forget-before', '2026-01-01'], {env})
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('without confirmation')
    expect(refused.stderr).toContain('--yes')

    const bad = await runBk(['bills', 'record', '--record', folder, '--forget-before', '2026-13-01', '--yes'], {env})
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--forget-before: "2026-13-01" is not a date')

    const forgot = await runBk(['bills', 'record', '--record', folder, '--forget-before', '2026-01-01', '--yes'], {
      env,
    })
    expect(forgot.code, forgot.stderr).toBe(0)
    expect(forgot.stdout).toContain(
      'Forgot 2 entries recorded before 2026-01-01T00:00:00.000Z: those bills are no longer guarded',
    )
    const after = await runBk(['bills', 'record', '--record', folder, '--json'], {env})
    expect(parseJsonOutput<Shown>(after)).toMatchObject({created: 1, unconfirmed: 1, settled: 1, oldest: NEW})

    // The forgotten bill is sent again; the kept one is still skipped.
    writeFileSync(join(dir, 'again.csv'), csv(['FORGET-1', 'FORGET-5']))
    const imported = await runBk(['bills', 'import', join(dir, 'again.csv'), '--record', folder, '--json'], {env})
    expect(imported.code, imported.stderr).toBe(0)
    expect(parseJsonOutput<{created: number; existing: number}>(imported)).toMatchObject({created: 1, existing: 1})
  })
})

describe('the record at scale, and what a dry run counts', () => {
  it('a dry run counts the bills another run left unconfirmed, as the import would', async () => {
    const dir = tempDir('bk-record-dry-')
    const folder = join(dir, 'records')
    writeRecord(folder, storyLines('DRY'))
    writeFileSync(join(dir, 'bills.csv'), csv(['DRY-1', 'DRY-3', 'DRY-4', 'DRY-9']))
    const env = envFor(emulator)
    const dry = await runBk(['bills', 'import', join(dir, 'bills.csv'), '--record', folder, '--dry-run', '--json'], {
      env,
    })
    expect(dry.code, dry.stderr).toBe(0)
    expect(parseJsonOutput<{existing: number; unconfirmed: number}>(dry)).toMatchObject({existing: 1, unconfirmed: 1})
    const real = await runBk(['bills', 'import', join(dir, 'bills.csv'), '--record', folder, '--json'], {env})
    expect(parseJsonOutput<{created: number; existing: number; unconfirmed: number}>(real)).toMatchObject({
      created: 2,
      existing: 1,
      unconfirmed: 1,
    })
  })

  it('an import over a record of 60,000 bills finds those it holds, through the index', async () => {
    const dir = tempDir('bk-record-big-')
    const folder = join(dir, 'records')
    const lines: object[] = []
    // About 6 MB of lines: past the tail a run reads without an index (4 MB), so the first run builds one.
    for (let i = 0; i < 60_000; i++) lines.push({key: key(`BIG-${i}`), id: `bil_big${i}`, at: OLD, input: 'big.csv'})
    const file = writeRecord(folder, lines)
    writeFileSync(join(dir, 'bills.csv'), csv(['BIG-0', 'BIG-30000', 'BIG-59999', 'BIG-60000', 'BIG-new']))
    const env = envFor(emulator)
    const run = await runBk(['bills', 'import', join(dir, 'bills.csv'), '--record', folder, '--json'], {env})
    expect(run.code, run.stderr).toBe(0)
    expect(parseJsonOutput<{created: number; existing: number}>(run)).toMatchObject({created: 2, existing: 3})
    expect(existsSync(`${file}.index`)).toBe(true)
    const again = await runBk(
      ['bills', 'import', join(dir, 'bills.csv'), '--record', folder, '--restart', '--yes', '--json'],
      {env},
    )
    expect(parseJsonOutput<{created: number; existing: number}>(again)).toMatchObject({created: 0, existing: 5})
  })
})
