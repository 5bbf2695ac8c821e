/**
 * Never twice across imports: the record of created bills guards every import (a renamed copy,
 * stdin twice), one import per environment and business at a time (a second run waits, then
 * gives up naming the first), and overlapping imports at once create each bill once.
 */
import {copyFileSync, mkdirSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {createdRecordPath} from '../../src/bills/created-record.js'
import {DEMO_IDS} from '../../src/emulator/seed.js'
import {parseJsonOutput, runBk, startBk, tempDir} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'
import {numberedBills} from '../helpers/bill-rows.js'
import {whenOutput} from '../helpers/wait.js'

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

const rows = (prefix: string, from: number, to: number) => numberedBills(prefix, from, to, '25')

/** How many bills the emulator holds of each number with this prefix. */
function counts(prefix: string): Map<string, number> {
  const counts = new Map<string, number>()
  for (const b of emulator.state.bills.all(DEMO_IDS.business))
    if (String(b.number).startsWith(`${prefix}-`)) counts.set(String(b.number), (counts.get(String(b.number)) ?? 0) + 1)
  return counts
}

function duplicated(prefix: string): string[] {
  return [...counts(prefix)].filter(([, n]) => n > 1).map(([number]) => number)
}

interface Summary {
  created: number
  skipped: number
  existing: number
  failed: number
}

describe('the record of created bills guards every import', () => {
  it('skips every bill of a renamed copy, naming the file that created it; --allow-duplicates sends them', async () => {
    const dir = tempDir('bk-twice-')
    const configDir = join(dir, 'config')
    const env = envFor(emulator)
    writeFileSync(join(dir, 'monday.csv'), rows('RENAME', 1, 30))
    const first = await runBk(['bills', 'import', join(dir, 'monday.csv'), '--json'], {env, configDir})
    expect(first.code, first.stderr).toBe(0)
    copyFileSync(join(dir, 'monday.csv'), join(dir, 'renamed.csv'))

    const again = await runBk(['bills', 'import', join(dir, 'renamed.csv')], {env, configDir})
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toContain(
      'Done: 0 created, 0 failed, 0 unconfirmed, 30 skipped (created before; 30 by an earlier import)',
    )
    expect(again.stderr).toContain(
      `RENAME-1 (vendor ${DEMO_IDS.vendors.office}): created earlier by ${join(dir, 'monday.csv')} on `,
    )
    expect(duplicated('RENAME')).toEqual([])
    expect(counts('RENAME').size).toBe(30)

    // A dry run reads the record too, and says how many an import would skip.
    const dry = await runBk(['bills', 'import', join(dir, 'renamed.csv'), '--dry-run', '--json'], {env, configDir})
    expect(dry.code, dry.stderr).toBe(0)
    expect(parseJsonOutput<{existing: number; record: {file: string}}>(dry)).toMatchObject({
      existing: 30,
      record: {file: createdRecordPath(join(configDir, 'created-bills'), emulator.baseUrl, DEMO_IDS.business)},
    })

    const forced = await runBk(
      ['bills', 'import', join(dir, 'renamed.csv'), '--allow-duplicates', '--restart', '--yes', '--json'],
      {env, configDir},
    )
    expect(forced.code, forced.stderr).toBe(0)
    expect(parseJsonOutput<Summary>(forced)).toMatchObject({created: 30, existing: 0})
    expect(duplicated('RENAME')).toHaveLength(30)
  })

  it('stdin twice creates each bill once; the record can live in BK_STATE_DIR', async () => {
    const state = tempDir('bk-twice-state-')
    const env = {...envFor(emulator), BK_STATE_DIR: state}
    const input = rows('STDIN', 1, 12)
    const first = await runBk(['bills', 'import', '-', '--json'], {env, input})
    expect(first.code, first.stderr).toBe(0)
    // Another config folder: only the state folder is kept between the runs (a CI cache).
    const second = await runBk(['bills', 'import', '-', '--json'], {env, input})
    expect(second.code, second.stderr).toBe(0)
    expect(parseJsonOutput<Summary>(second)).toMatchObject({created: 0, skipped: 12, existing: 12})
    const third = await runBk(['bills', 'import', '-'], {env, input})
    expect(third.stderr).toContain('created earlier by stdin on ')
    expect(third.stderr).toContain('… and 2 more bills created earlier, not sent.')
    expect(duplicated('STDIN')).toEqual([])
  })

  it('a dry run says when it cannot read the record: no business, or no environment, known', async () => {
    const dir = tempDir('bk-twice-dry-')
    writeFileSync(join(dir, 'bills.csv'), rows('NOBIZ', 1, 2))
    const dry = await runBk(['bills', 'import', join(dir, 'bills.csv'), '--dry-run'])
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stderr).toContain('Bills created earlier are not counted: no business known (--business)')
    // A business without an environment: the record is per environment too, and that is what is missing.
    const env = {BK_BUSINESS_ID: 'biz_demo_acme'}
    const known = await runBk(['bills', 'import', join(dir, 'bills.csv'), '--dry-run'], {env})
    expect(known.code, known.stderr).toBe(0)
    expect(known.stderr).toContain(
      'Bills created earlier are not counted: no environment known (--profile, or BK_BASE_URL with credentials)',
    )
  })
})

describe('a resume resumes what was started', () => {
  it('refuses a resume under another bill key, naming both; says what changed in the input', async () => {
    const dir = tempDir('bk-twice-key-')
    const configDir = join(dir, 'config')
    const env = envFor(emulator)
    const file = join(dir, 'bills.csv')
    writeFileSync(file, rows('REKEY', 1, 5))
    const first = await runBk(['bills', 'import', file], {env, configDir})
    expect(first.code, first.stderr).toBe(0)
    writeFileSync(file, rows('REKEY', 1, 6))
    writeFileSync(join(dir, 'dated.yaml'), 'key: [vendor_id, number, issued_at]\n')

    const rekeyed = await runBk(['bills', 'import', file, '--resume', '--map', join(dir, 'dated.yaml')], {
      env,
      configDir,
    })
    expect(rekeyed.code, rekeyed.stderr).toBe(2)
    expect(rekeyed.stderr).toContain(
      `The journal ${file}.bk-journal names bills by vendor_id and number, and this run's map by vendor_id and number and issued_at`,
    )
    expect(duplicated('REKEY')).toEqual([])

    const resumed = await runBk(['bills', 'import', file, '--resume'], {env, configDir})
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(resumed.stderr).toMatch(
      /bills\.csv has changed since its journal began \(\d+ bytes modified .* then, \d+ bytes/,
    )
    expect(resumed.stdout).toContain('Done: 1 created')
    expect(counts('REKEY').size).toBe(6)
    expect(duplicated('REKEY')).toEqual([])
  })
})

describe('one import per environment and business at a time', () => {
  it('a second run waits for the one under way, names it, and gives up after --wait with exit 2', async () => {
    const dir = tempDir('bk-twice-lock-')
    const configDir = join(dir, 'config')
    const folder = join(configDir, 'created-bills')
    mkdirSync(folder, {recursive: true})
    // A live process holds the business's lock: this test's own.
    const lock = createdRecordPath(folder, emulator.baseUrl, DEMO_IDS.business).replace(/\.jsonl$/, '.import.lock')
    writeFileSync(lock, `${process.pid}\n`)
    writeFileSync(join(dir, 'bills.csv'), rows('WAIT', 1, 3))
    const env = envFor(emulator)

    const refused = await runBk(['bills', 'import', join(dir, 'bills.csv'), '--wait', '0'], {env, configDir})
    expect(refused.code, refused.stderr).toBe(2)
    expect(refused.stderr).toContain(`Another import into ${DEMO_IDS.business} at ${emulator.baseUrl} is running`)
    expect(refused.stderr).toContain(`bk process ${process.pid}`)
    expect(counts('WAIT').size).toBe(0)

    const waiting = startBk(['bills', 'import', join(dir, 'bills.csv'), '--resume', '--wait', '600'], {env, configDir})
    await whenOutput(waiting.child.stderr, () => waiting.stderr().includes('Waiting for'), 'the wait')
    expect(waiting.stderr()).toContain(`bk process ${process.pid}`)
    expect(counts('WAIT').size).toBe(0)
    rmSync(lock)
    const done = await waiting.done
    expect(done.code, done.stderr).toBe(0)
    expect(counts('WAIT').size).toBe(3)
  })

  it('two overlapping imports at once create each bill once', async () => {
    const dir = tempDir('bk-twice-overlap-')
    const configDir = join(dir, 'config')
    // Nightly exports that overlap: bills 1 to 150 and 51 to 200.
    writeFileSync(join(dir, 'a.csv'), rows('OVERLAP', 1, 150))
    writeFileSync(join(dir, 'b.csv'), rows('OVERLAP', 51, 200))
    const env = envFor(emulator)
    const args = ['--batch-size', '10', '--concurrency', '2', '--json']
    const [a, b] = await Promise.all([
      runBk(['bills', 'import', join(dir, 'a.csv'), ...args], {env, configDir}),
      runBk(['bills', 'import', join(dir, 'b.csv'), ...args], {env, configDir}),
    ])
    expect(a.code, a.stderr).toBe(0)
    expect(b.code, b.stderr).toBe(0)
    const [sa, sb] = [parseJsonOutput<Summary>(a), parseJsonOutput<Summary>(b)]
    expect(sa.created + sb.created).toBe(200)
    expect(sa.existing + sb.existing).toBe(100)
    expect(duplicated('OVERLAP')).toEqual([])
    expect(counts('OVERLAP').size).toBe(200)
  })
})
