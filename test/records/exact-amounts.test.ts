/**
 * Amounts a double cannot hold (more than 15 significant digits, an exponent) come out of an
 * export digit for digit: csv as plain decimals, json and ndjson as the numbers the service
 * wrote, and --summary and aging totals summed exactly; a receipt rule's threshold likewise. The
 * emulator keeps its amounts as doubles and never writes such a number, so a loopback server
 * answers with the raw text.
 */
import {parse} from 'csv-parse/sync'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {parseJsonOutput, runBk} from '../helpers/bk.js'
import {scriptedServer, type ScriptedServer, type Step} from '../helpers/scripted-server.js'

const invoice = (id: string, number: string, amount: string) =>
  `{"id": "${id}", "number": "${number}", "status": "open", "total_amount": ${amount}, "total_paid": 0, ` +
  `"credit_amount": 0, "due_at": "2026-01-01T00:00:00Z", "lines": [{"id": "inl_${id}", "amount": ${amount}}]}`

// As the service writes them; the number of inv_1 is a string of digits, which stays a string.
const PAGE =
  '{"data": [' +
  [
    invoice('inv_1', '12345678901234567.00', '12345678901234567890.12'),
    invoice('inv_2', 'A-2', '0.1000000000000000055511151231257827'),
    invoice('inv_3', 'A-3', '1e21'),
    invoice('inv_4', 'A-4', '-98765432109876543.21'),
  ].join(', ') +
  '], "pagination": {"next_page_token": null, "previous_page_token": null}}'

const raw =
  (text: string): Step =>
  (_req, res) => {
    res.writeHead(200, {'content-type': 'application/json'})
    res.end(text)
  }

let server: ScriptedServer
beforeAll(async () => {
  server = await scriptedServer([raw(PAGE)])
})
afterAll(() => server.close())

const env = () => ({BK_BASE_URL: server.url, BK_ACCESS_TOKEN: 'tok_test', BK_BUSINESS_ID: 'biz_1'})

// Every amount of the page, and inv_4's left out of aging (nothing is outstanding on it).
const SUM = '1012246913469124691347.0100000000000000055511151231257827'
const OUTSTANDING = '1012345678901234567890.2200000000000000055511151231257827'

describe('amounts a double cannot hold', () => {
  it('are written digit for digit in csv, never in exponent form, and summed exactly by --summary', async () => {
    const result = await runBk(
      ['invoices', 'list', '--all', '--output', 'csv', '--fields', 'id,number,total_amount,lines.amount', '--summary'],
      {env: env()},
    )
    expect(result.code, result.stderr).toBe(0)
    expect(parse(result.stdout)).toEqual([
      ['id', 'number', 'total_amount', 'lines.amount'],
      ['inv_1', '12345678901234567.00', '12345678901234567890.12', '[12345678901234567890.12]'],
      ['inv_2', 'A-2', '0.1000000000000000055511151231257827', '[0.1000000000000000055511151231257827]'],
      ['inv_3', 'A-3', '1000000000000000000000', '[1e21]'],
      // A negative amount is a number, not a formula: no apostrophe.
      ['inv_4', 'A-4', '-98765432109876543.21', '[-98765432109876543.21]'],
    ])
    expect(result.stderr).toContain(SUM)
  })

  it('are the numbers the service wrote in ndjson and --json, and in the --json summary', async () => {
    const ndjson = await runBk(['invoices', 'list', '--all', '--output', 'ndjson', '--fields', 'id,total_amount'], {
      env: env(),
    })
    expect(ndjson.code, ndjson.stderr).toBe(0)
    expect(ndjson.stdout).toBe(
      [
        '{"id":"inv_1","total_amount":12345678901234567890.12}',
        '{"id":"inv_2","total_amount":0.1000000000000000055511151231257827}',
        '{"id":"inv_3","total_amount":1e21}',
        '{"id":"inv_4","total_amount":-98765432109876543.21}',
        '',
      ].join('\n'),
    )

    const json = await runBk(['invoices', 'list', '--json', '--summary'], {env: env()})
    expect(json.code, json.stderr).toBe(0)
    expect(json.stdout).toContain('"total_amount": 12345678901234567890.12,')
    expect(json.stdout).toContain('"amount": 0.1000000000000000055511151231257827\n')
    expect(json.stdout).toContain('"total_amount": 1e21,')
    const {summary} = parseJsonOutput<{summary: {by_status: Array<{totals: Array<{amount: string}>}>}}>(json)
    expect(summary.by_status[0]?.totals[0]?.amount).toBe(SUM)
  })

  it('are summed exactly by invoices aging', async () => {
    const result = await runBk(['invoices', 'aging', '--as-of', '2026-01-01', '--json'], {env: env()})
    expect(result.code, result.stderr).toBe(0)
    const report = parseJsonOutput<{totals: Array<{invoices: number; outstanding: string}>}>(result)
    expect(report.totals).toEqual([expect.objectContaining({invoices: 3, outstanding: OUTSTANDING})])
  })
})

describe('a receipt rule whose threshold a double cannot hold', () => {
  const RULE = '{"is_enabled": true, "threshold_amount": 12345678901234567.5}'

  it('is printed as the service wrote it, and kept so in --json', async () => {
    const rules = await scriptedServer([raw(RULE)])
    try {
      const env = {BK_BASE_URL: rules.url, BK_ACCESS_TOKEN: 'tok_test', BK_BUSINESS_ID: 'biz_1'}
      const set = await runBk(['rules', 'receipts', 'set', '--threshold', '12345678901234567.5'], {env})
      expect(set.code, set.stderr).toBe(0)
      expect(set.stdout).toBe('Receipt requests for biz_1: enabled, for spend of 12345678901234567.5 or more.\n')
      // Sent as typed, a decimal string (the spec allows one).
      expect(JSON.parse(rules.requests[0]!.body)).toEqual({threshold_amount: '12345678901234567.5'})
      const json = await runBk(['rules', 'receipts', 'set', '--enabled', '--json'], {env})
      expect(json.code, json.stderr).toBe(0)
      expect(json.stdout).toContain('"threshold_amount": 12345678901234567.5\n')
    } finally {
      await rules.close()
    }
  })

  it('is zero however the service writes it, and refused below zero', async () => {
    for (const [written, code, said] of [
      ['-0', 0, 'for every spend (threshold 0)'],
      ['0e0', 0, 'for every spend (threshold 0)'],
      ['-0.0000001', 1, 'threshold_amount'],
    ] as const) {
      const rules = await scriptedServer([raw(`{"is_enabled": true, "threshold_amount": ${written}}`)])
      try {
        const env = {BK_BASE_URL: rules.url, BK_ACCESS_TOKEN: 'tok_test', BK_BUSINESS_ID: 'biz_1'}
        const set = await runBk(['rules', 'receipts', 'set', '--enabled'], {env})
        expect(set.code, `${written}: ${set.stderr}`).toBe(code)
        expect(set.stdout + set.stderr).toContain(said)
      } finally {
        await rules.close()
      }
    }
  })
})
