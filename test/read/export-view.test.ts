/**
 * What an export checks and how it writes cells, against a loopback server answering with
 * invoices the emulator never makes: csv output checks the fields it prints (and with --lines
 * each line's), json output checks everything; the formula guard leaves plain numbers alone.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {parse} from 'csv-parse/sync'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runBk, tempDir} from '../helpers/bk.js'
import {reply, scriptedServer, type ScriptedServer} from '../helpers/scripted-server.js'

const invoices = [
  {
    id: 'inv_1', number: '-120.50', description: '-2+3', source: '\uFF1D1+2', customer_id: 'cus_=1', credit_amount: -25.5, total_amount: -1e-7, status: 'paid',
    // Fields no csv column prints, each of the wrong type:
    business_id: 42, metadata_: 'not an object',
    lines: [{id: 'inl_1', amount: 'not a number'}],
  },
]
let server: ScriptedServer
beforeAll(async () => {
  server = await scriptedServer([reply(200, {data: invoices, pagination: {next_page_token: null, previous_page_token: null}})])
})
afterAll(() => server.close())

const env = () => ({BK_BASE_URL: server.url, BK_ACCESS_TOKEN: 'tok_test', BK_BUSINESS_ID: 'biz_1'})

describe('an invoice export', () => {
  it('writes csv when only fields it does not print are malformed; json output refuses them', async () => {
    const dir = tempDir()
    const csv = await runBk(['invoices', 'list', '--output', 'csv', '--file', join(dir, 'out.csv')], {env: env()})
    expect(csv.code, csv.stderr).toBe(0)
    const [header, row] = parse(readFileSync(join(dir, 'out.csv'), 'utf8')) as string[][]
    const cell = (name: string) => row![header!.indexOf(name)]
    expect(cell('ID')).toBe('inv_1')
    expect(cell('LINES')).toBe('1')

    const json = await runBk(['invoices', 'list', '--output', 'json'], {env: env()})
    expect(json.code).toBe(1)
    expect(json.stderr).toContain('field data.0.business_id')

    const lines = await runBk(['invoices', 'list', '--output', 'csv', '--lines'], {env: env()})
    expect(lines.code).toBe(1)
    expect(lines.stderr).toContain('field data.0.lines.0.amount')
  })

  it('guards text that starts like a formula, but leaves numbers (negative ones too) as numbers', async () => {
    const result = await runBk(['invoices', 'list', '--output', 'csv'], {env: env()})
    expect(result.code, result.stderr).toBe(0)
    const [header, row] = parse(result.stdout) as string[][]
    const cell = (name: string) => row![header!.indexOf(name)]
    expect(cell('CREDIT AMOUNT')).toBe('-25.5')
    expect(cell('TOTAL AMOUNT')).toBe('-1e-7')
    expect(cell('NUMBER')).toBe('\'-120.50') // text, not a number: it could as well be -120+50
    expect(cell('DESCRIPTION')).toBe('\'-2+3')
    expect(cell('SOURCE')).toBe('\'\uFF1D1+2') // a full-width =, which some spreadsheets read as =
    expect(cell('CUSTOMER ID')).toBe('cus_=1')
  })
})
