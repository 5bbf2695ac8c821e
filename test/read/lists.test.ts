/**
 * bk invoices list and bk refunds list against the emulator: filters, paging, CSV (with and
 * without --lines), the spreadsheet-formula guard, and every failure path.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {parse} from 'csv-parse/sync'
import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'

import {parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'
import {envFor, start, tokenFor, type RunningEmulator} from '../helpers/emulator.js'
import {recorderEnv, startRecorder, type Recorder} from './recorder.js'

// Several bk runs per test on two shared cores: allow for a loaded machine.
vi.setConfig({testTimeout: 90_000})

let emulator: RunningEmulator
let recorder: Recorder
let biz: string
beforeAll(async () => {
  emulator = await start()
  recorder = await startRecorder()
  biz = emulator.businessIds[0] as string
})
afterAll(async () => {
  await emulator.close()
  await recorder.close()
})

interface ListJson {
  data: Array<Record<string, unknown> & {id: string}>
  pagination: {next_page_token: string | null; previous_page_token: string | null}
}

/** Runs bk against the recorder and checks that it failed with exit 2 and sent nothing. */
async function expectLocalRefusal(args: string[], mention: string): Promise<void> {
  const before = recorder.requests.length
  const result = await runBk(args, {env: recorderEnv(recorder)})
  expect(result.code, result.stderr).toBe(2)
  expect(result.stderr + result.stdout).toContain(mention)
  expect(recorder.requests.slice(before)).toEqual([])
}

const FORMULA_START = /^[=+\-@\t\r]/

describe('bk invoices list', () => {
  it('prints one page as JSON with both cursors, and --page-token follows them', async () => {
    const first = await runBk(['invoices', 'list', '--json', '--page-size', '5'], {env: envFor(emulator)})
    expect(first.code, first.stderr).toBe(0)
    const page1 = parseJsonOutput<ListJson>(first)
    const all = emulator.state.invoices.all(biz)
    expect(page1.data.map((i) => i.id)).toEqual(all.slice(0, 5).map((i) => i.id))
    expect(page1.pagination.previous_page_token).toBeNull()
    const second = await runBk(['invoices', 'list', '--json', '--page-size', '5', '--page-token', page1.pagination.next_page_token as string], {env: envFor(emulator)})
    const page2 = parseJsonOutput<ListJson>(second)
    expect(page2.data.map((i) => i.id)).toEqual(all.slice(5, 10).map((i) => i.id))
    const back = await runBk(['invoices', 'list', '--json', '--page-size', '5', '--page-token', page2.pagination.previous_page_token as string], {env: envFor(emulator)})
    expect(parseJsonOutput<ListJson>(back).data.map((i) => i.id)).toEqual(all.slice(0, 5).map((i) => i.id))
  })

  it('filters by status and an inclusive due range, a date alone covering its whole day', async () => {
    const candidates = emulator.state.invoices.all(biz).filter((i) => i.status === 'paid' || i.status === 'void')
    // The range ends on the day of an invoice due late that day and starts on another's due day.
    const late = candidates.filter((i) => (i.due_at as string).endsWith('T17:00:00Z')).sort((a, b) => Date.parse(b.due_at as string) - Date.parse(a.due_at as string))[0]!
    const early = candidates.filter((i) => (i.due_at as string).endsWith('T00:00:00Z') && Date.parse(i.due_at as string) < Date.parse(late.due_at as string) - 40 * 86_400_000)[0]!
    const fromDay = (early.due_at as string).slice(0, 10)
    const toDay = (late.due_at as string).slice(0, 10)
    const result = await runBk(['invoices', 'list', '--all', '--json', '--status', 'paid,void', '--due-from', fromDay, '--due-to', toDay, '--page-size', '9'], {env: envFor(emulator)})
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
    const result = await runBk(['invoices', 'list', '--limit', '3', '--output', 'csv'], {env: envFor(emulator)})
    expect(result.code, result.stderr).toBe(0)
    const rows = parse(result.stdout) as string[][]
    expect(rows[0]).toEqual(['ID', 'NUMBER', 'STATUS', 'CUSTOMER ID', 'DESCRIPTION', 'TOTAL AMOUNT', 'TOTAL PAID', 'CREDIT AMOUNT', 'DUE AT', 'SENT AT', 'VOIDED AT', 'SOURCE', 'LINES', 'PAYMENTS'])
    expect(rows).toHaveLength(4)
    const inv = emulator.state.invoices.all(biz)[2]!
    expect(rows[3]![0]).toBe(inv.id)
    expect(rows[3]![5]).toBe(String(inv.total_amount))
    expect(result.stderr).toContain('--page-token')
  })

  it('--lines gives one CSV row per invoice line, with both line variants', async () => {
    const file = join(tempDir(), 'lines.csv')
    const result = await runBk(['invoices', 'list', '--all', '--lines', '--output', 'csv', '--file', file], {env: envFor(emulator)})
    expect(result.code, result.stderr).toBe(0)
    const [header, ...rows] = parse(readFileSync(file, 'utf8')) as string[][]
    expect(header!.slice(14)).toEqual(['LINE ID', 'LINE DESCRIPTION', 'LINE LEDGER ID', 'LINE AMOUNT', 'UNIT PRICE', 'QUANTITY', 'DISCOUNT AMOUNT', 'DISCOUNT RATE', 'TAX AMOUNT', 'TAX RATE', 'IS PREPAYMENT'])
    const invoices = emulator.state.invoices.all(biz)
    expect(rows).toHaveLength(invoices.reduce((n, i) => n + Math.max(1, i.lines?.length ?? 0), 0))
    const lineIds = invoices.flatMap((i) => (i.lines ?? []).map((l) => l.id))
    expect(rows.map((r) => r[14])).toEqual(lineIds)
    const amountRow = rows.find((r) => r[17] !== '')!
    const pricedRow = rows.find((r) => r[18] !== '')!
    const amountLine = invoices.flatMap((i) => i.lines ?? []).find((l) => l.id === amountRow[14]) as {amount: number}
    expect(amountRow[17]).toBe(String(amountLine.amount))
    expect(amountRow.slice(18)).toEqual(['', '', '', '', '', '', ''])
    const priced = invoices.flatMap((i) => i.lines ?? []).find((l) => l.id === pricedRow[14]) as Record<string, unknown>
    expect(pricedRow.slice(17)).toEqual(['', ...['unit_price', 'quantity', 'discount_amount', 'discount_rate', 'tax_amount', 'tax_rate', 'is_prepayment'].map((k) => String(priced[k]))])
  })

  it('neutralises every formula-like cell of an export; --raw-csv and JSON keep the text', async () => {
    const dir = tempDir()
    const guarded = await runBk(['invoices', 'list', '--all', '--output', 'csv', '--file', join(dir, 'safe.csv')], {env: envFor(emulator)})
    expect(guarded.code, guarded.stderr).toBe(0)
    const cells = (parse(readFileSync(join(dir, 'safe.csv'), 'utf8')) as string[][]).flat()
    expect(cells).toContain('\'=HYPERLINK("http://x","y")')
    expect(cells).toContain('\'@SUM(A1:A2)')
    expect(cells).toContain('\'+1 555 0100')
    expect(cells).toContain('\'-1 credit adjustment')
    expect(cells.filter((c) => FORMULA_START.test(c))).toEqual([])

    const raw = await runBk(['invoices', 'list', '--all', '--output', 'csv', '--raw-csv', '--file', join(dir, 'raw.csv')], {env: envFor(emulator)})
    expect(raw.code).toBe(0)
    const rawCells = (parse(readFileSync(join(dir, 'raw.csv'), 'utf8')) as string[][]).flat()
    expect(rawCells).toContain('=HYPERLINK("http://x","y")')
    expect(rawCells).toContain('@SUM(A1:A2)')

    const json = await runBk(['invoices', 'list', '--limit', '10', '--output', 'ndjson'], {env: envFor(emulator)})
    const texts = json.stdout.trim().split('\n').map((l) => JSON.parse(l) as {number: string; description: string}).flatMap((i) => [i.number, i.description])
    expect(texts).toContain('=HYPERLINK("http://x","y")')
    expect(texts).toContain('@SUM(A1:A2)')
  })

  it('streams --limit items as ndjson', async () => {
    const result = await runBk(['invoices', 'list', '--limit', '7', '--output', 'ndjson'], {env: envFor(emulator)})
    expect(result.stdout.trim().split('\n').map((l) => (JSON.parse(l) as {id: string}).id)).toEqual(emulator.state.invoices.all(biz).slice(0, 7).map((i) => i.id))
  })

  it('exits 4 for an unknown business, 3 without the scope or for another business, 5 when the service refuses', async () => {
    const unscoped = await tokenFor(emulator)
    const missing = await runBk(['invoices', 'list', '--json'], {env: {BK_BASE_URL: emulator.baseUrl, BK_ACCESS_TOKEN: unscoped, BK_BUSINESS_ID: 'biz_missing'}})
    expect(missing.code).toBe(4)
    expect(JSON.parse(missing.stdout)).toMatchObject({code: 'not_found', details: {status: 404}})

    const scope = await runBk(['invoices', 'list'], {env: {...envFor(emulator), BK_SCOPES: 'refund:read'}})
    expect(scope.code).toBe(3)
    expect(scope.stderr).toContain('invoice:read')

    const other = await tokenFor(emulator, {business_id: emulator.businessIds[1] as string})
    const otherBiz = await runBk(['invoices', 'list'], {env: {BK_BASE_URL: emulator.baseUrl, BK_ACCESS_TOKEN: other, BK_BUSINESS_ID: biz}})
    expect(otherBiz.code).toBe(3)
    expect(otherBiz.stderr).toContain(emulator.businessIds[1])

    const status = await runBk(['invoices', 'list', '--status', 'paid,bogus'], {env: envFor(emulator)})
    expect(status.code).toBe(5)
    expect(status.stderr).toContain('bogus')
    const token = await runBk(['invoices', 'list', '--page-token', 'garbage'], {env: envFor(emulator)})
    expect(token.code).toBe(5)
    expect(token.stderr).toContain('page_token')
  })

  it('refuses bad dates, --lines with JSON and bad page sizes before sending anything', async () => {
    await expectLocalRefusal(['invoices', 'list', '--due-from', '2026-13-01'], '--due-from "2026-13-01"')
    await expectLocalRefusal(['invoices', 'list', '--due-to', 'yesterday'], '--due-to "yesterday"')
    await expectLocalRefusal(['invoices', 'list', '--due-from', '2026-02-30T00:00:00Z'], 'ISO 8601')
    await expectLocalRefusal(['invoices', 'list', '--due-from', '2026-05-01', '--due-to', '2026-04-01'], 'after --due-to')
    await expectLocalRefusal(['invoices', 'list', '--lines', '--json'], '--lines')
    await expectLocalRefusal(['invoices', 'list', '--page-size', '0'], '--page-size')
  })
})

describe('bk refunds list', () => {
  it('filters by statuses and streams every page', async () => {
    const result = await runBk(['refunds', 'list', '--status', 'completed,voided', '--all', '--json', '--page-size', '4'], {env: envFor(emulator)})
    expect(result.code, result.stderr).toBe(0)
    const expected = emulator.state.refunds.all(biz).filter((r) => r.status === 'completed' || r.status === 'voided').map((r) => r.id)
    expect((JSON.parse(result.stdout) as Array<{id: string}>).map((r) => r.id)).toEqual(expected)
  })

  it('writes CSV with its columns and guards formula-like memos', async () => {
    const result = await runBk(['refunds', 'list', '--output', 'csv', '--limit', '10'], {env: envFor(emulator)})
    expect(result.code, result.stderr).toBe(0)
    const rows = parse(result.stdout) as string[][]
    expect(rows[0]).toEqual(['ID', 'STATUS', 'AMOUNT', 'AMOUNT PAID', 'METHOD', 'PROCESSOR', 'REFUNDED AT', 'MEMO', 'EXTERNAL ID', 'IS RETURN', 'REFUND CREDIT', 'INVOICE IDS', 'PAYMENTS'])
    expect(rows).toHaveLength(11)
    expect(rows.flat()).toContain('\'=HYPERLINK("http://x","refund")')
    expect(rows.flat().filter((c) => FORMULA_START.test(c))).toEqual([])
  })

  it('exits 4, 3, 3 and 5 for an unknown business, a missing scope, another business and a bad cursor', async () => {
    const unscoped = await tokenFor(emulator)
    expect((await runBk(['refunds', 'list'], {env: {BK_BASE_URL: emulator.baseUrl, BK_ACCESS_TOKEN: unscoped, BK_BUSINESS_ID: 'biz_missing'}})).code).toBe(4)
    const scope = await runBk(['refunds', 'list'], {env: {...envFor(emulator), BK_SCOPES: 'invoice:read'}})
    expect(scope.code).toBe(3)
    expect(scope.stderr).toContain('refund:read')
    const other = await tokenFor(emulator, {business_id: emulator.businessIds[1] as string})
    expect((await runBk(['refunds', 'list'], {env: {BK_BASE_URL: emulator.baseUrl, BK_ACCESS_TOKEN: other, BK_BUSINESS_ID: biz}})).code).toBe(3)
    const bad = await runBk(['refunds', 'list', '--page-token', 'garbage', '--json'], {env: envFor(emulator)})
    expect(bad.code).toBe(5)
    expect(JSON.parse(bad.stdout)).toMatchObject({details: {status: 422}})
  })

  it('refuses an unknown status before sending anything', async () => {
    await expectLocalRefusal(['refunds', 'list', '--status', 'pending,refunded'], '"refunded"')
    await expectLocalRefusal(['refunds', 'list', '--page-size', '101'], '--page-size')
  })
})
