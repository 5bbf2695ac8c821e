/**
 * Bills another run left unconfirmed may exist: a later import of the same bills (a renamed copy,
 * an overlapping export) does not send them, naming that run, until the user imports them on
 * purpose with --resend-unconfirmed (docs/bills.md, "Resolving unconfirmed bills").
 */
import {readFileSync, writeFileSync, copyFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {DEMO_IDS} from '../../src/emulator/seed.js'
import {numberedBills} from '../helpers/bill-rows.js'
import {parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'
import {startSilentEmulator, type SilentEmulator} from '../helpers/silent-emulator.js'

const COUNT = 8

let silent: SilentEmulator
beforeAll(async () => {
  silent = await startSilentEmulator(5)
})
afterAll(() => silent.emulator.close())

const stored = () => silent.stored('ELSE')

describe('bills another run left unconfirmed', () => {
  it('are skipped by a later import naming that run; --resend-unconfirmed imports them on purpose', async () => {
    const dir = tempDir('bk-elsewhere-')
    const configDir = join(dir, 'config')
    const {env} = silent
    writeFileSync(join(dir, 'monday.csv'), numberedBills('ELSE', 1, COUNT))
    const args = ['--batch-size', '1', '--concurrency', '1']
    const first = await runBk(['bills', 'import', join(dir, 'monday.csv'), ...args], {env, configDir})
    expect(first.code, first.stderr).toBe(6)
    const createdBefore = new Set(stored().map((b) => String(b.number)))
    expect(createdBefore.size).toBeGreaterThan(0)
    expect(createdBefore.size).toBeLessThan(COUNT)

    // The faults end; a renamed copy of the same export sends none of the unconfirmed bills.
    silent.emulator.options.faultRate = 0
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
    silent.expectEachOnce('ELSE', COUNT)
  })
})
