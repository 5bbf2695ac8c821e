/**
 * bk invoices list and bk refunds list against the emulator: filters, paging, CSV (with and
 * without --lines), the spreadsheet-formula guard, and every failure path.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {parse} from 'csv-parse/sync'
import {describe, expect, it, vi} from 'vitest'

import {parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'
import {envFor} from '../helpers/emulator.js'
import {useCommandFixture} from './command-fixture.js'

// Several bk runs per test on two shared cores: allow for a loaded machine.
vi.setConfig({testTimeout: 240_000})

const fx = useCommandFixture()

interface ListJson {
  data: Array<Record<string, unknown> & {id: string}>
  pagination: {next_page_token: string | null; previous_page_token: string | null}
}

const FORMULA_START = /^[=+\-@\t\r]/

describe('bk invoices list', () => {
  it('prints one page as JSON with both cursors, and --page-token follows them', async () => {
    const first = await runBk(['invoices', 'list', '--json', '--page-size', '5'], {env: envFor(fx.emulator)})
    expect(first.code, first.stderr).toBe(0)
    const page1 = parseJsonOutput<ListJson>(first)
    const all = fx.emulator.state.invoices.all(fx.biz)
    expect(page1.data.map((i) => i.id)).toEqual(all.slice(0, 5).map((i) => i.id))
    expect(page1.pagination.previous_page_token).toBeNull()
    const second = await runBk(
      ['invoices', 'list', '--json', '--page-size', '5', '--page-token', page1.pagination.next_page_token as string],
      {env: envFor(fx.emulator)},
    )
    const page2 = parseJsonOutput<ListJson>(second)
    expect(page2.data.map((i) => i.id)).toEqual(all.slice(5, 10).map((i) => i.id))
    const back = await runBk(
      [
        'invoices',
        'list',
        '--json',
        '--page-size',
        '5',
        '--page-token',
        page2.pagination.previous_page_token as string,
      ],
      {env: envFor(fx.emulator)},
    )
    expect(parseJsonOutput<ListJson>(back).data.map((i) => i.id)).toEqual(all.slice(0, 5).map((i) => i.id))
  })

  it("a cursor of another query is refused with a hint naming --page-token, not the service's page_token", async () => {
    const paid = await runBk(['invoices', 'list', '--json', '--status', 'paid', '--page-size', '2'], {
      env: envFor(fx.emulator),
    })
    const token = parseJsonOutput<ListJson>(paid).pagination.next_page_token as string
    const open = await runBk(['invoices', 'list', '--status', 'open', '--page-token', token], {
      env: envFor(fx.emulator),
    })
    expect(open.code).toBe(5)
    expect(open.stderr).toContain(
      '\nHint: The --page-token given does not fit this listing: pass it with the same filters as the listing that printed it, or leave it out to start from the first page.\n',
    )
  })

  it('--limit over several pages returns the cursors around what it shows, never one into it', async () => {
    const all = fx.emulator.state.invoices.all(fx.biz).map((i) => i.id)
    const list = async (...args: string[]) => {
      const result = await runBk(['invoices', 'list', '--json', '--page-size', '5', ...args], {
        env: envFor(fx.emulator),
      })
      expect(result.code, result.stderr).toBe(0)
      return parseJsonOutput<ListJson>(result)
    }
    const page1 = await list()
    const read = await list('--limit', '15', '--page-token', page1.pagination.next_page_token as string)
    expect(read.data.map((i) => i.id)).toEqual(all.slice(5, 20))
    // Back one page from it: the five before its first item, none of those it showed.
    const back = await list('--page-token', read.pagination.previous_page_token as string)
    expect(back.data.map((i) => i.id)).toEqual(all.slice(0, 5))
    const onward = await list('--page-token', read.pagination.next_page_token as string)
    expect(onward.data.map((i) => i.id)).toEqual(all.slice(20, 25))
    // From the first page, there is none before.
    expect((await list('--limit', '10')).pagination.previous_page_token).toBeNull()
  })

  it('filters by status and an inclusive due range, a date alone covering its whole day', async () => {
    const candidates = fx.emulator.state.invoices.all(fx.biz).filter((i) => i.status === 'paid' || i.status === 'void')
    // The range ends on the day of an invoice due late that day and starts on another's due day.
    const late = candidates
      .filter((i) => (i.due_at as string).endsWith('T17:00:00Z'))
      .sort((a, b) => Date.parse(b.due_at as string) - Date.parse(a.due_at as string))[0]!
    const early = candidates.filter(
      (i) =>
        (i.due_at as string).endsWith('T00:00:00Z') &&
        Date.parse(i.due_at as string) < Date.parse(late.due_at as string) - 40 * 86_400_000,
    )[0]!
    const fromDay = (early.due_at as string).slice(0, 10)
    const toDay = (late.due_at as string).slice(0, 10)
    const result = await runBk(
      [
        'invoices',
        'list',
        '--all',
        '--json',
        '--status',
        'paid,void',
        '--due-from',
        fromDay,
        '--due-to',
        toDay,
        '--page-size',
        '9',
      ],
      {env: envFor(fx.emulator)},
    )
    expect(result.code, result.stderr).toBe(0)
    const got = (JSON.parse(result.stdout) as Array<{id: string}>).map((i) => i.id)
    const from = Date.parse(`${fromDay}T00:00:00Z`)
    const to = Date.parse(`${toDay}T23:59:59.999Z`)
    const expected = candidates.filter((i) => {
      const d = Date.parse(i.due_at as string)
      return d >= from && d <= to
    })
    expect(got).toEqual(expected.map((i) => i.id))
    expect(got).toContain(early.id)
    expect(got).toContain(late.id)
    expect(got.length).toBeLessThan(candidates.length)
  })

  it('writes CSV with the documented columns, amounts exactly as sent', async () => {
    const result = await runBk(['invoices', 'list', '--limit', '3', '--output', 'csv'], {env: envFor(fx.emulator)})
    expect(result.code, result.stderr).toBe(0)
    const rows = parse(result.stdout) as string[][]
    expect(rows[0]).toEqual([
      'ID',
      'NUMBER',
      'STATUS',
      'CUSTOMER ID',
      'DESCRIPTION',
      'TOTAL AMOUNT',
      'TOTAL PAID',
      'CREDIT AMOUNT',
      'DUE AT',
      'SENT AT',
      'VOIDED AT',
      'SOURCE',
      'LINES',
      'PAYMENTS',
    ])
    expect(rows).toHaveLength(4)
    const inv = fx.emulator.state.invoices.all(fx.biz)[2]!
    expect(rows[3]![0]).toBe(inv.id)
    expect(rows[3]![5]).toBe(String(inv.total_amount))
    expect(result.stderr).toContain('--page-token')
  })

  it('--lines gives one CSV row per invoice line, with both line variants', async () => {
    const file = join(tempDir(), 'lines.csv')
    const result = await runBk(['invoices', 'list', '--all', '--lines', '--output', 'csv', '--file', file], {
      env: envFor(fx.emulator),
    })
    expect(result.code, result.stderr).toBe(0)
    const [header, ...rows] = parse(readFileSync(file, 'utf8')) as string[][]
    expect(header!.slice(14)).toEqual([
      'LINE ID',
      'LINE DESCRIPTION',
      'LINE LEDGER ID',
      'LINE AMOUNT',
      'UNIT PRICE',
      'QUANTITY',
      'DISCOUNT AMOUNT',
      'DISCOUNT RATE',
      'TAX AMOUNT',
      'TAX RATE',
      'IS PREPAYMENT',
    ])
    const invoices = fx.emulator.state.invoices.all(fx.biz)
    expect(rows).toHaveLength(invoices.reduce((n, i) => n + Math.max(1, i.lines?.length ?? 0), 0))
    const lineIds = invoices.flatMap((i) => (i.lines ?? []).map((l) => l.id))
    expect(rows.map((r) => r[14])).toEqual(lineIds)
    const amountRow = rows.find((r) => r[17] !== '')!
    const pricedRow = rows.find((r) => r[18] !== '')!
    const amountLine = invoices.flatMap((i) => i.lines ?? []).find((l) => l.id === amountRow[14]) as {amount: number}
    expect(amountRow[17]).toBe(String(amountLine.amount))
    expect(amountRow.slice(18)).toEqual(['', '', '', '', '', '', ''])
    const priced: Record<string, unknown> = {...invoices.flatMap((i) => i.lines).find((l) => l.id === pricedRow[14])}
    expect(pricedRow.slice(17)).toEqual([
      '',
      ...['unit_price', 'quantity', 'discount_amount', 'discount_rate', 'tax_amount', 'tax_rate', 'is_prepayment'].map(
        (k) => String(priced[k]),
      ),
    ])
  })

  it('neutralises every formula-like cell of an export; --raw-csv and JSON keep the text', async () => {
    const dir = tempDir()
    const guarded = await runBk(['invoices', 'list', '--all', '--output', 'csv', '--file', join(dir, 'safe.csv')], {
      env: envFor(fx.emulator),
    })
    expect(guarded.code, guarded.stderr).toBe(0)
    const cells = (parse(readFileSync(join(dir, 'safe.csv'), 'utf8')) as string[][]).flat()
    expect(cells).toContain('\'=HYPERLINK("http://x","y")')
    expect(cells).toContain("'@SUM(A1:A2)")
    expect(cells).toContain("'+1 555 0100")
    expect(cells).toContain("'-1 credit adjustment")
    expect(cells.filter((c) => FORMULA_START.test(c))).toEqual([])

    const raw = await runBk(
      ['invoices', 'list', '--all', '--output', 'csv', '--raw-csv', '--file', join(dir, 'raw.csv')],
      {env: envFor(fx.emulator)},
    )
    expect(raw.code).toBe(0)
    const rawCells = (parse(readFileSync(join(dir, 'raw.csv'), 'utf8')) as string[][]).flat()
    expect(rawCells).toContain('=HYPERLINK("http://x","y")')
    expect(rawCells).toContain('@SUM(A1:A2)')

    const json = await runBk(['invoices', 'list', '--limit', '10', '--output', 'ndjson'], {env: envFor(fx.emulator)})
    const texts = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as {number: string; description: string})
      .flatMap((i) => [i.number, i.description])
    expect(texts).toContain('=HYPERLINK("http://x","y")')
    expect(texts).toContain('@SUM(A1:A2)')
  })

  it('streams --limit items as ndjson', async () => {
    const result = await runBk(['invoices', 'list', '--limit', '7', '--output', 'ndjson'], {env: envFor(fx.emulator)})
    expect(
      result.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as {id: string}).id),
    ).toEqual(
      fx.emulator.state.invoices
        .all(fx.biz)
        .slice(0, 7)
        .map((i) => i.id),
    )
  })

  it('exits 4 for an unknown business, 3 without the scope or for another business, 5 when the service refuses', async () => {
    const missing = await runBk(['invoices', 'list', '--json'], {env: fx.missingBusinessEnv})
    expect(missing.code).toBe(4)
    expect(JSON.parse(missing.stdout)).toMatchObject({code: 'not_found', details: {status: 404}})

    const scope = await runBk(['invoices', 'list'], {env: fx.scoped('refund:read')})
    expect(scope.code).toBe(3)
    expect(scope.stderr).toContain('invoice:read')

    const otherBiz = await runBk(['invoices', 'list'], {env: fx.otherBusinessEnv})
    expect(otherBiz.code).toBe(3)
    expect(otherBiz.stderr).toContain(fx.emulator.businessIds[1])

    const status = await runBk(['invoices', 'list', '--status', 'paid,bogus'], {env: envFor(fx.emulator)})
    expect(status.code).toBe(5)
    expect(status.stderr).toContain('bogus')
    const token = await runBk(['invoices', 'list', '--page-token', 'garbage'], {env: envFor(fx.emulator)})
    expect(token.code).toBe(5)
    expect(token.stderr).toContain('page_token')
  })

  it('refuses bad dates, --lines with JSON and bad page sizes before sending anything', async () => {
    await fx.expectLocalRefusal(['invoices', 'list', '--due-from', '2026-13-01'], '--due-from "2026-13-01"')
    await fx.expectLocalRefusal(['invoices', 'list', '--due-to', 'yesterday'], '--due-to "yesterday"')
    await fx.expectLocalRefusal(['invoices', 'list', '--due-from', '2026-02-30T00:00:00Z'], 'ISO 8601')
    await fx.expectLocalRefusal(
      ['invoices', 'list', '--due-from', '2026-05-01', '--due-to', '2026-04-01'],
      'after --due-to',
    )
    await fx.expectLocalRefusal(['invoices', 'list', '--lines', '--json'], '--lines')
    await fx.expectLocalRefusal(['invoices', 'list', '--page-size', '0'], '--page-size')
  })
})

describe('bk refunds list', () => {
  it('filters by statuses and streams every page', async () => {
    const result = await runBk(
      ['refunds', 'list', '--status', 'completed,voided', '--all', '--json', '--page-size', '4'],
      {env: envFor(fx.emulator)},
    )
    expect(result.code, result.stderr).toBe(0)
    const expected = fx.emulator.state.refunds
      .all(fx.biz)
      .filter((r) => r.status === 'completed' || r.status === 'voided')
      .map((r) => r.id)
    expect((JSON.parse(result.stdout) as Array<{id: string}>).map((r) => r.id)).toEqual(expected)
  })

  it('writes CSV with its columns and guards formula-like memos', async () => {
    const result = await runBk(['refunds', 'list', '--output', 'csv', '--limit', '10'], {env: envFor(fx.emulator)})
    expect(result.code, result.stderr).toBe(0)
    const rows = parse(result.stdout) as string[][]
    expect(rows[0]).toEqual([
      'ID',
      'STATUS',
      'AMOUNT',
      'AMOUNT PAID',
      'METHOD',
      'PROCESSOR',
      'REFUNDED AT',
      'MEMO',
      'EXTERNAL ID',
      'IS RETURN',
      'REFUND CREDIT',
      'INVOICE IDS',
      'PAYMENTS',
    ])
    expect(rows).toHaveLength(11)
    expect(rows.flat()).toContain('\'=HYPERLINK("http://x","refund")')
    expect(rows.flat().filter((c) => FORMULA_START.test(c))).toEqual([])
  })

  it('exits 4, 3, 3 and 5 for an unknown business, a missing scope, another business and a bad cursor', async () => {
    expect((await runBk(['refunds', 'list'], {env: fx.missingBusinessEnv})).code).toBe(4)
    const scope = await runBk(['refunds', 'list'], {env: fx.scoped('invoice:read')})
    expect(scope.code).toBe(3)
    expect(scope.stderr).toContain('refund:read')
    expect((await runBk(['refunds', 'list'], {env: fx.otherBusinessEnv})).code).toBe(3)
    const bad = await runBk(['refunds', 'list', '--page-token', 'garbage', '--json'], {env: envFor(fx.emulator)})
    expect(bad.code).toBe(5)
    expect(JSON.parse(bad.stdout)).toMatchObject({details: {status: 422}})
  })

  it('refuses an unknown status before sending anything', async () => {
    await fx.expectLocalRefusal(['refunds', 'list', '--status', 'pending,refunded'], '"refunded"')
    await fx.expectLocalRefusal(['refunds', 'list', '--page-size', '101'], '--page-size')
  })
})
