/**
 * `bk transactions get` for people, on a real terminal: it fits the terminal's width as the list
 * tables do, and writes dates and amounts as they do (`2026-02-01 10:00Z`, `1068.70`).
 */
import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'

import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'
import {plain, runBkTty} from '../helpers/tty.js'
import {DEMO_RECORD_IDS} from '../../src/emulator/seed-records.js'

vi.setConfig({testTimeout: 240_000})

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

const show = (columns: number) =>
  runBkTty(['transactions', 'get', DEMO_RECORD_IDS.transaction, '--include', 'invoice_payments.invoice'], {
    env: envFor(emulator),
    columns,
  })

describe('transactions get on a terminal', () => {
  it('fits 80 columns, with dates and amounts as the list tables write them', async () => {
    const result = await show(80)
    expect(result.code, result.stdout).toBe(0)
    const lines = plain(result.stdout).trimEnd().split('\n')
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80)
    expect(lines).toContain('  Date         2026-02-01 10:00Z')
    expect(plain(result.stdout)).not.toMatch(/T\d\d:\d\d:\d\dZ/)
    expect(plain(result.stdout)).toMatch(/inv_\w+/)
  })

  it('on a wide terminal, every column, amounts to the cent', async () => {
    const result = await show(160)
    expect(result.code, result.stdout).toBe(0)
    expect(plain(result.stdout)).toMatch(/partially_paid +1068\.70/)
  })
})
