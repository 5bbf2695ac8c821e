/**
 * `bk bills unconfirmed`: lists the bills whose outcome bk could not know, and with --settle
 * asks the emulator which exist; the next --resume then sends only those never created, so every
 * bill ends created exactly once.
 */
import {copyFileSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {DEMO_IDS} from '../../src/emulator/seed.js'
import {billRow, billsCsv, numberedBills} from '../helpers/bill-rows.js'
import {parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'
import {forward, loopbackServer} from '../helpers/loopback-proxy.js'
import {startSilentEmulator, type SilentEmulator} from '../helpers/silent-emulator.js'

const COUNT = 8

let silent: SilentEmulator
beforeAll(async () => {
  silent = await startSilentEmulator(3)
})
afterAll(() => silent.emulator.close())

interface Listed {
  unconfirmed: Array<{number: string}>
  settled?: {created: Array<{number: string; id: string}>; absent: string[]}
}

describe('bills unconfirmed', () => {
  it('lists unconfirmed bills, settles them against the emulator, and --resume sends only the absent ones', async () => {
    const dir = tempDir('bk-unconfirmed-')
    const file = join(dir, 'bills.csv')
    writeFileSync(file, numberedBills('SETTLE', 1, COUNT))
    const {env} = silent
    // One config folder throughout: the record of created bills is in it.
    const configDir = join(dir, 'config')
    const first = await runBk(['bills', 'import', file, '--batch-size', '1', '--concurrency', '1'], {env, configDir})
    expect(first.code, first.stderr).toBe(6)
    const stored = () => silent.stored('SETTLE')
    const createdBefore = new Set(stored().map((b) => String(b.number)))
    expect(createdBefore.size).toBeGreaterThan(0)
    expect(createdBefore.size).toBeLessThan(COUNT)

    const listed = parseJsonOutput<Listed>(await runBk(['bills', 'unconfirmed', file, '--json']))
    expect(listed.unconfirmed.map((u) => u.number).sort()).toEqual(
      Array.from({length: COUNT}, (_, i) => `SETTLE-${i + 1}`).sort(),
    )
    expect(listed.settled).toBeUndefined()

    // For people: the one-line result first, and the list only with --verbose (on copies of the
    // journal, settled into a record of their own, so the run below is untouched).
    for (const verbose of [false, true]) {
      const copy = join(dir, `copy-${verbose}.bk-journal`)
      copyFileSync(`${file}.bk-journal`, copy)
      const human = await runBk(
        ['bills', 'unconfirmed', file, '--journal', copy, '--settle', ...(verbose ? ['--verbose'] : [])],
        {configDir: join(dir, `config-${verbose}`)},
      )
      expect(human.code, human.stderr).toBe(0)
      const result = `Settled ${COUNT} unconfirmed bills: ${createdBefore.size} exist (recorded as created), ${COUNT - createdBefore.size} were never created (the next --resume sends them).`
      const lines = human.stdout.split('\n').filter(Boolean)
      expect(lines[0]).toBe(result)
      if (verbose) {
        expect(lines).toHaveLength(1 + COUNT)
        for (const number of createdBefore)
          expect(lines).toContainEqual(expect.stringMatching(`^${number} .* exists: bil_`))
      } else {
        expect(lines).toEqual([result])
        expect(human.stderr).toContain('--verbose lists each bill')
      }
    }

    const settled = parseJsonOutput<Listed>(
      await runBk(['bills', 'unconfirmed', file, '--settle', '--json'], {configDir}),
    )
    expect(new Set(settled.settled?.created.map((c) => c.number))).toEqual(createdBefore)
    expect(settled.settled?.absent.length).toBe(COUNT - createdBefore.size)
    expect(readFileSync(`${file}.bk-journal`, 'utf8')).toContain('"t":"settled"')
    // The settlement reached the record of created bills: any later import knows those bills.
    copyFileSync(file, join(dir, 'copy.csv'))
    const dry = await runBk(['bills', 'import', join(dir, 'copy.csv'), '--dry-run', '--json'], {env, configDir})
    expect(parseJsonOutput<{existing: number}>(dry).existing).toBe(createdBefore.size)

    // The faults end (the emulator reads its fault rate on each request); --resume sends the
    // bills never created, and only those.
    silent.emulator.options.faultRate = 0
    const resumed = await runBk(['bills', 'import', file, '--resume', '--json'], {env, configDir})
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(parseJsonOutput<{created: number; skipped: number}>(resumed)).toMatchObject({
      created: COUNT - createdBefore.size,
      skipped: createdBefore.size,
    })
    silent.expectEachOnce('SETTLE', COUNT)
  })

  it('--json lists the bills its own settlement settled: none when another settled them first', async () => {
    const dir = tempDir('bk-unconfirmed-twice-')
    const file = join(dir, 'bills.csv')
    writeFileSync(file, numberedBills('TWICE', 1, 3))
    // Its own emulator: the first test lifts the faults of the shared one.
    const own = await startSilentEmulator(7)
    // A proxy that holds the first settlement's question to the emulator (after it listed the
    // journal) until a second settlement has settled every bill.
    const upstream = new URL(own.emulator.baseUrl)
    let asked!: () => void
    const firstAsked = new Promise<void>((resolve) => (asked = resolve))
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    let inspections = 0
    const proxy = await loopbackServer((req, body, res) => {
      if (req.url?.startsWith('/_emulator/') && ++inspections === 1) {
        asked()
        void released.then(() => forward(upstream, req, body, res))
      } else forward(upstream, req, body, res)
    })
    try {
      const env = {...own.env, BK_BASE_URL: proxy.baseUrl}
      const configDir = join(dir, 'config')
      const first = await runBk(['bills', 'import', file, '--batch-size', '1'], {env, configDir})
      expect(first.code, first.stderr).toBe(6)
      const late = runBk(['bills', 'unconfirmed', file, '--settle', '--json'], {configDir})
      await firstAsked
      const other = await runBk(['bills', 'unconfirmed', file, '--settle', '--json'], {configDir})
      const settled = parseJsonOutput<Listed>(other)
      expect(settled.unconfirmed).toHaveLength(3)
      expect((settled.settled?.created.length ?? 0) + (settled.settled?.absent.length ?? 0)).toBe(3)
      // The script's document is the whole result: no line for people beside it.
      expect(other.stderr).toBe('')
      release()
      const after = parseJsonOutput<Listed>(await late)
      expect(after.unconfirmed).toEqual([])
      expect(after.settled).toEqual({created: [], absent: []})
    } finally {
      await proxy.close()
      await own.emulator.close()
    }
  })

  it("--verbose tells apart two vendors' bills of one number: only the one found exists", async () => {
    const dir = tempDir('bk-unconfirmed-key-')
    const file = join(dir, 'bills.csv')
    const {office, cloud} = DEMO_IDS.vendors
    writeFileSync(file, billsCsv([billRow('TWIN-1', {vendor: office}), billRow('TWIN-1', {vendor: cloud})]))
    // Every request dropped before it is handled: both unconfirmed, neither created.
    const before = await startSilentEmulator(5, ['reset-before'])
    try {
      const first = await runBk(['bills', 'import', file, '--batch-size', '1'], {env: before.env, configDir: dir})
      expect(first.code, first.stderr).toBe(6)
      expect(before.stored('TWIN')).toHaveLength(0)
      // The office's bill is then created by another import (a record of its own, so it is sent).
      before.emulator.options.faultRate = 0
      const other = join(dir, 'other.csv')
      writeFileSync(other, billsCsv([billRow('TWIN-1', {vendor: office})]))
      const made = await runBk(['bills', 'import', other], {env: before.env, configDir: join(dir, 'other')})
      expect(made.code, made.stderr).toBe(0)
      const id = before.stored('TWIN')[0]?.id

      const human = await runBk(['bills', 'unconfirmed', file, '--settle', '--verbose'], {configDir: dir})
      expect(human.code, human.stderr).toBe(0)
      const lines = human.stdout.split('\n').filter(Boolean)
      expect(lines.slice(1).sort()).toEqual(
        [`TWIN-1 (vendor ${office})  exists: ${id}`, `TWIN-1 (vendor ${cloud})  never created`].sort(),
      )
    } finally {
      await before.emulator.close()
    }
  })
})
