/**
 * Bills another run left unconfirmed may exist: a later import of the same bills (a renamed copy,
 * an overlapping export) does not send them, naming that run, until the user imports them on
 * purpose with --resend-unconfirmed (docs/bills.md, "Resolving unconfirmed bills").
 */
import {readFileSync, writeFileSync, copyFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {DEMO_IDS} from '../../src/emulator/seed.js'
import {parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'
import {start, type RunningEmulator} from '../helpers/emulator.js'

const HEADER = 'number,vendor_id,description,issued_at,due_at,currency,line_description,line_amount,line_ledger_id'
const COUNT = 8

let faulty: RunningEmulator
beforeAll(async () => {
  // Every request is dropped, before or after it is handled: the outcome is never known.
  faulty = await start({faultRate: 1, faultSeed: 5, faultKinds: ['reset-before', 'reset-after']})
  faulty.state.tokens.set('elsewhere-token', {
    clientId: faulty.clientId,
    businessId: DEMO_IDS.business,
    expiresAt: Date.now() + 3_600_000,
  })
})
afterAll(() => faulty.close())

const stored = () => faulty.state.bills.all(DEMO_IDS.business).filter((b) => String(b.number).startsWith('ELSE-'))

describe('bills another run left unconfirmed', () => {
  it('are skipped by a later import naming that run; --resend-unconfirmed imports them on purpose', async () => {
    const dir = tempDir('bk-elsewhere-')
    const configDir = join(dir, 'config')
    const env = {BK_BASE_URL: faulty.baseUrl, BK_ACCESS_TOKEN: 'elsewhere-token', BK_BUSINESS_ID: DEMO_IDS.business}
    const rows = Array.from(
      {length: COUNT},
      (_, i) =>
        `ELSE-${i + 1},${DEMO_IDS.vendors.office},Else,2026-03-01,2026-04-01T00:00:00Z,EUR,Paper,${i + 1}.00,${DEMO_IDS.ledgers.expenses}`,
    )
    writeFileSync(join(dir, 'monday.csv'), [HEADER, ...rows].join('\n') + '\n')
    const args = ['--batch-size', '1', '--concurrency', '1']
    const first = await runBk(['bills', 'import', join(dir, 'monday.csv'), ...args], {env, configDir})
    expect(first.code, first.stderr).toBe(6)
    const createdBefore = new Set(stored().map((b) => String(b.number)))
    expect(createdBefore.size).toBeGreaterThan(0)
    expect(createdBefore.size).toBeLessThan(COUNT)

    // The faults end; a renamed copy of the same export sends none of the unconfirmed bills.
    faulty.options.faultRate = 0
    copyFileSync(join(dir, 'monday.csv'), join(dir, 'renamed.csv'))
    const again = await runBk(['bills', 'import', join(dir, 'renamed.csv'), '--json', ...args], {env, configDir})
    expect(again.code, again.stderr).toBe(6)
    expect(parseJsonOutput<{created: number; unconfirmed: number}>(again)).toMatchObject({
      created: 0,
      unconfirmed: COUNT,
    })
    expect(again.stderr).toContain(
      `bill ELSE-1 (vendor ${DEMO_IDS.vendors.office}): unconfirmed by the import of ${join(dir, 'monday.csv')} started `,
    )
    expect(again.stderr).toContain('--resend-unconfirmed')
    expect(stored()).toHaveLength(createdBefore.size)

    // The documented way out: the unconfirmed file, less the bills that exist, imported on purpose.
    const unconfirmed = readFileSync(join(dir, 'monday.unconfirmed.csv'), 'utf8').trim().split('\n')
    const missing = unconfirmed.filter((line, i) => i === 0 || !createdBefore.has(line.split(',')[0]!))
    writeFileSync(join(dir, 'still-missing.csv'), missing.join('\n') + '\n')
    const plain = await runBk(['bills', 'import', join(dir, 'still-missing.csv'), ...args], {env, configDir})
    expect(plain.code, plain.stderr).toBe(6)
    expect(stored()).toHaveLength(createdBefore.size)
    const resent = await runBk(
      ['bills', 'import', join(dir, 'still-missing.csv'), '--resend-unconfirmed', '--json', ...args],
      {env, configDir},
    )
    expect(resent.code, resent.stderr).toBe(0)
    expect(parseJsonOutput<{created: number}>(resent).created).toBe(COUNT - createdBefore.size)
    const counts = new Map<string, number>()
    for (const b of stored()) counts.set(String(b.number), (counts.get(String(b.number)) ?? 0) + 1)
    expect(counts.size).toBe(COUNT)
    for (const [number, n] of counts) expect(n, number).toBe(1)
  })
})
