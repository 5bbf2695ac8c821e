/**
 * `bk invoices aging --by customer` on a narrow terminal, for invoices that name no currency (the
 * demo business's): each block's heading says so once, in one pair of brackets.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'
import {plain, runBkTty} from '../helpers/tty.js'

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

describe('invoices aging --by customer, no currency, 60 columns', () => {
  it('heads each block "ID (no currency)" and "Total (no currency)"', async () => {
    const res = await runBkTty(['invoices', 'aging', '--as-of', '2026-06-30', '--by', 'customer'], {
      env: envFor(emulator),
      columns: 60,
    })
    expect(res.code, res.stdout).toBe(0)
    const screen = plain(res.stdout)
    const headings = screen.split('\n').filter((l) => /^\S.*\(no currency\)/.test(l))
    expect(headings.length, screen).toBeGreaterThan(1)
    expect(headings.at(-1)).toBe('Total (no currency)')
    for (const heading of headings) expect(heading).toMatch(/^\S+ \(no currency\)$/)
  })
})
