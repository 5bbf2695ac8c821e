/**
 * bk invoices aging against a fixture business with answers worked out by hand (partly paid,
 * credited, paid, void, draft, not yet due, three currencies), to the cent; then its csv, its
 * --buckets and --as-of checks, and its table on a real terminal.
 */
import {parse} from 'csv-parse/sync'
import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'

import {parseJsonOutput, runBk} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'
import {plain, runBkTty} from '../helpers/tty.js'
import {
  addAgingBusiness,
  AGED_READ,
  AGING_BUSINESS,
  AS_OF,
  EXPECTED_BY_CUSTOMER,
  EXPECTED_TOTALS,
  NOT_AGED,
  addWideAgingBusiness,
  WIDE_AMOUNTS,
  WIDE_BUSINESS,
  WIDE_CUSTOMERS,
} from './aging-fixture.js'

vi.setConfig({testTimeout: 240_000})

let emulator: RunningEmulator
let env: Record<string, string | undefined>
beforeAll(async () => {
  emulator = await start()
  addAgingBusiness(emulator)
  addWideAgingBusiness(emulator)
  env = envFor(emulator, AGING_BUSINESS)
})
afterAll(() => emulator.close())

interface Report {
  as_of: string
  by: string
  buckets: Array<{label: string; from_days: number | null; to_days: number | null}>
  rows: Array<{currency: string | null; customer_id?: string | null; invoices: number; outstanding: string}>
  totals: Array<{
    currency: string | null
    invoices: number
    outstanding: string
    buckets: Array<{label: string; invoices: number; amount: string}>
  }>
  invoices_read: number
  not_aged: {void_or_draft: number; nothing_outstanding: number}
}

describe('bk invoices aging', () => {
  it('buckets what is outstanding per currency, exactly, as of a date', async () => {
    // A page size of 2 makes the fixture's eleven invoices six pages.
    const res = await runBk(['invoices', 'aging', '--as-of', AS_OF, '--page-size', '2', '--json'], {env})
    expect(res.code, res.stderr).toBe(0)
    const report = parseJsonOutput<Report>(res)
    expect(report.as_of).toBe(AS_OF)
    expect(report.buckets.map((b) => b.label)).toEqual(['current', '1-30', '31-60', '61-90', '91+'])
    expect(report.invoices_read).toBe(AGED_READ)
    expect(report.not_aged).toEqual(NOT_AGED)
    expect(
      report.totals.map((t) => ({
        currency: t.currency,
        buckets: t.buckets.map((b) => b.amount),
        outstanding: t.outstanding,
        invoices: t.invoices,
      })),
    ).toEqual(EXPECTED_TOTALS)
    // Each bucket's count adds up to the currency's.
    for (const t of report.totals) expect(t.buckets.reduce((n, b) => n + b.invoices, 0)).toBe(t.invoices)
    expect(report.rows).toEqual(
      report.totals.map((t) => ({
        currency: t.currency,
        invoices: t.invoices,
        outstanding: t.outstanding,
        buckets: t.buckets,
      })),
    )
  })

  it('moves invoices between buckets with --as-of and --buckets', async () => {
    // A day later the invoice due on the as-of day is one day late; 15,30 puts 60 days in 31+.
    const res = await runBk(['invoices', 'aging', '--as-of', '2026-07-01T08:00:00Z', '--buckets', '15,30', '--json'], {
      env,
    })
    const report = parseJsonOutput<Report>(res)
    expect(report.as_of).toBe('2026-07-01')
    const usd = report.totals.find((t) => t.currency === 'USD')!
    expect(usd.buckets.map((b) => [b.label, b.amount])).toEqual([
      ['current', '0'],
      ['1-15', '600.05'],
      ['16-30', '199.75'],
      ['31+', '150.1'],
    ])
    const eur = report.totals.find((t) => t.currency === 'EUR')!
    expect(eur.buckets.map((b) => b.amount)).toEqual(['10', '0', '0', '1234'])
  })

  it('writes csv by customer and currency for spreadsheets', async () => {
    const res = await runBk(['invoices', 'aging', '--as-of', AS_OF, '--by', 'customer', '--output', 'csv'], {env})
    expect(res.code, res.stderr).toBe(0)
    const rows = parse(res.stdout, {columns: true}) as Array<Record<string, string>>
    expect(Object.keys(rows[0]!)).toEqual([
      'currency',
      'customer_id',
      'invoices',
      'outstanding',
      'current',
      '1-30',
      '31-60',
      '61-90',
      '91+',
    ])
    expect(rows.map((r) => [r.customer_id, r.currency, r.outstanding])).toEqual(EXPECTED_BY_CUSTOMER)
  })

  it('refuses bad --buckets and --as-of before any request', async () => {
    const bad = await runBk(['invoices', 'aging', '--buckets', '30,20'], {
      env: {...env, BK_BASE_URL: 'http://127.0.0.1:9'},
    })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--buckets "30,20": 20 does not come after 30')
    const date = await runBk(['invoices', 'aging', '--as-of', '2026-02-30'], {
      env: {...env, BK_BASE_URL: 'http://127.0.0.1:9'},
    })
    expect(date.code).toBe(2)
    expect(date.stderr).toContain('--as-of "2026-02-30"')
  })

  it('--jq runs over the report', async () => {
    const res = await runBk(
      ['invoices', 'aging', '--as-of', AS_OF, '--jq', '.totals[] | "\\(.currency) \\(.outstanding)"'],
      {
        env,
      },
    )
    expect(res.code, res.stderr).toBe(0)
    expect(res.stdout).toBe('EUR 1244\nJPY 4000\nUSD 949.9\n')
  })

  for (const columns of [80, 160]) {
    it(`on a ${columns}-column terminal: a table with bars, each currency's minor unit, nothing wider`, async () => {
      const res = await runBkTty(['invoices', 'aging', '--as-of', AS_OF], {env, columns})
      expect(res.code, res.stdout).toBe(0)
      const screen = plain(res.stdout)
      const lines = screen.split('\n').filter(Boolean)
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(columns)
      // USD to the cent, yen without decimals; the largest bucket has the longest bar.
      expect(screen).toMatch(/^current +1 +600\.05 +█+$/m)
      expect(screen).toMatch(/^91\+ +1 +0\.10 +▏?$/m)
      expect(screen).toMatch(/^61-90 +1 +4000 +█+$/m)
      expect(screen).toMatch(/^total +4 +949\.90$/m)
      const bars = lines.filter((l) => /█/.test(l)).map((l) => (l.match(/[█▏▎▍▌▋▊▉]+$/)?.[0] ?? '').length)
      expect(Math.max(...bars)).toBeLessThanOrEqual(40)
    })
  }

  it('with --by customer on 80 columns: one row per customer and currency, and each total', async () => {
    const res = await runBkTty(['invoices', 'aging', '--as-of', AS_OF, '--by', 'customer'], {env, columns: 80})
    const screen = plain(res.stdout)
    for (const line of screen.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80)
    expect(screen).toMatch(/^cus_fixture_acme +USD .*750\.05$/m)
    expect(screen).toMatch(/^total +USD .*949\.90$/m)
  })

  for (const columns of [80, 50]) {
    it(`with --by customer on ${columns} columns, long ids and millions: nothing cut, nothing wider`, async () => {
      const wide = envFor(emulator, WIDE_BUSINESS)
      const res = await runBkTty(['invoices', 'aging', '--as-of', AS_OF, '--by', 'customer'], {env: wide, columns})
      expect(res.code, res.stdout).toBe(0)
      const screen = plain(res.stdout)
      expect(screen).not.toContain('…')
      for (const line of screen.split('\n')) expect(line.length, line).toBeLessThanOrEqual(columns)
      const words = screen.split(/\s+/)
      for (const customer of WIDE_CUSTOMERS) expect(words).toContain(customer)
      // Each customer owes each amount once; its total and the currency's are whole too.
      for (const amount of WIDE_AMOUNTS) expect(words.filter((w) => w === amount)).toHaveLength(2)
      expect(words.filter((w) => w === '17283839.49')).toHaveLength(2)
      expect(words).toContain('34567678.98')
    })
  }

  it('NO_COLOR=1 on a terminal: no escape codes at all', async () => {
    const colored = await runBkTty(['invoices', 'aging', '--as-of', AS_OF], {env, columns: 80})
    // eslint-disable-next-line no-control-regex
    expect(colored.stdout).toMatch(/\u001B\[1m/)
    const res = await runBkTty(['invoices', 'aging', '--as-of', AS_OF], {env: {...env, NO_COLOR: '1'}, columns: 80})
    expect(res.code).toBe(0)
    expect(res.stdout).toContain('949.90')
    expect(res.stdout).not.toContain('\u001B')
  })
})
