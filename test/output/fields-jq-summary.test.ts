/**
 * --fields, --jq and --summary against the emulator: the paths chosen and their order in every
 * format, the list of fields, --jq once over every page (cli/cli #10459 ran it per page), jq's
 * own number literals, errors before any request, and summaries checked against the seed.
 */
import {parse} from 'csv-parse/sync'
import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'

import {Decimal} from '../../src/shared/money.js'
import {parseJsonOutput, runBk} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

vi.setConfig({testTimeout: 240_000})

let emulator: RunningEmulator
let env: Record<string, string | undefined>
let biz: string
beforeAll(async () => {
  emulator = await start()
  env = envFor(emulator)
  biz = emulator.businessIds[0] as string
})
afterAll(() => emulator.close())

/** Credentials pointing at a closed port: a command that sends any request fails with exit 7. */
const unreachable = () => ({...env, BK_BASE_URL: 'http://127.0.0.1:9'})

describe('--fields', () => {
  it('cuts JSON objects to the chosen paths, in order, through arrays', async () => {
    const res = await runBk(
      ['invoices', 'list', '--limit', '3', '--json', '--fields', 'total_amount,id,lines.amount'],
      {
        env,
      },
    )
    expect(res.code, res.stderr).toBe(0)
    const {data} = parseJsonOutput<{data: Array<Record<string, unknown>>}>(res)
    const seeded = emulator.state.invoices.all(biz).slice(0, 3)
    expect(data).toEqual(
      seeded.map((i) => ({
        total_amount: i.total_amount,
        id: i.id,
        lines: i.lines.map((l) => ({amount: 'amount' in l ? l.amount : null})),
      })),
    )
    expect(Object.keys(data[0]!)).toEqual(['total_amount', 'id', 'lines'])
  })

  it('chooses and orders csv columns, and ndjson keys', async () => {
    const csv = await runBk(['refunds', 'list', '--limit', '4', '--output', 'csv', '--fields', 'status,id,amount'], {
      env,
    })
    expect(csv.code, csv.stderr).toBe(0)
    const rows = parse(csv.stdout) as string[][]
    expect(rows[0]).toEqual(['status', 'id', 'amount'])
    const seeded = emulator.state.refunds.all(biz).slice(0, 4)
    expect(rows.slice(1)).toEqual(seeded.map((r) => [r.status, r.id, String(r.amount)]))
    const nd = await runBk(['businesses', 'list', '--output', 'ndjson', '--fields', 'name,id'], {env})
    const first = JSON.parse(nd.stdout.split('\n')[0] as string) as Record<string, unknown>
    expect(Object.keys(first)).toEqual(['name', 'id'])
  })

  it('alone lists the fields, with no credentials and no request', async () => {
    const res = await runBk(['invoices', 'list', '--fields'], {env: {BK_BASE_URL: 'http://127.0.0.1:9'}})
    expect(res.code, res.stderr).toBe(0)
    const fields = res.stdout.trim().split('\n')
    expect(fields).toEqual(expect.arrayContaining(['id', 'total_amount', 'due_at', 'lines.amount', 'metadata_.…']))
    const json = await runBk(['transactions', 'get', '--fields', '--json'], {env: {}})
    expect(parseJsonOutput<{fields: string[]}>(json).fields).toContain('invoice_payments.invoice_id')
  })

  it('refuses a field the record does not have, naming it, before any request', async () => {
    const res = await runBk(['invoices', 'list', '--fields', 'id,totl_amount,a%b,numbr'], {env: unreachable()})
    expect(res.code).toBe(2)
    // Every unknown field at once, each with the one it was likely meant for.
    expect(res.stderr).toContain('Error: --fields: "totl_amount", "a%b", "numbr" are not fields of an invoice\n')
    expect(res.stderr).toMatch(/\nHint: Did you mean total_amount, number\? .*bk invoices list --fields/)
  })

  it('on a get command: the chosen fields for people, and cut in JSON', async () => {
    const txn = emulator.state.transactions.all(biz).find((t) => t.id === 'txn_demo_invoice_payments')!
    const people = await runBk(['transactions', 'get', txn.id, '--fields', 'id,amount,invoice_payments.invoice_id'], {
      env,
    })
    expect(people.code, people.stderr).toBe(0)
    const ids = (txn.invoice_payments ?? []).map((p) => p.invoice_id)
    expect(people.stdout).toMatch(new RegExp(`^invoice_payments\\.invoice_id +${ids.join(', ')}$`, 'm'))
    const json = await runBk(['transactions', 'get', txn.id, '--fields', 'amount,id', '--json'], {env})
    expect(parseJsonOutput(json)).toEqual({amount: txn.amount, id: txn.id})
  })
})

describe('--jq', () => {
  it('with --all runs once over the whole array: 300 invoices in 3 pages', async () => {
    const res = await runBk(['invoices', 'list', '--all', '--page-size', '100', '--jq', 'length'], {env})
    expect(res.code, res.stderr).toBe(0)
    expect(res.stdout).toBe(`${emulator.state.invoices.all(biz).length}\n`)
    expect(emulator.state.invoices.all(biz)).toHaveLength(300)
  })

  it('without --all sees the page with its cursors; strings print raw', async () => {
    const res = await runBk(['invoices', 'list', '--limit', '2', '--jq', '.data[].id, (.pagination | keys)'], {env})
    const ids = emulator.state.invoices
      .all(biz)
      .slice(0, 2)
      .map((i) => i.id)
    expect(res.stdout).toBe(`${ids.join('\n')}\n[\n  "next_page_token",\n  "previous_page_token"\n]\n`)
  })

  it('keeps number literals as the result holds them', async () => {
    const res = await runBk(
      ['invoices', 'list', '--all', '--summary', '--jq', '.summary.by_status[0].totals[0].amount'],
      {
        env,
      },
    )
    const status = [...new Set(emulator.state.invoices.all(biz).map((i) => i.status))].sort()[0]
    const sum = emulator.state.invoices
      .all(biz)
      .filter((i) => i.status === status)
      .reduce((s, i) => s.plus(new Decimal(i.total_amount)), new Decimal(0))
    expect(res.stdout).toBe(`${sum.toFixed()}\n`)
  })

  it('works on commands that are not lists', async () => {
    const res = await runBk(['auth', 'status', '--jq', '.business'], {env})
    expect(res.stdout).toBe(`${biz}\n`)
  })

  it('refuses an expression jq cannot compile, before any request', async () => {
    const res = await runBk(['invoices', 'list', '--all', '--jq', '.data[] | select(.status =='], {env: unreachable()})
    expect(res.code).toBe(2)
    expect(res.stderr).toMatch(/--jq: syntax error/)
    expect(res.stdout).toBe('')
  })

  it('reports an error at run time on stderr, exit 2', async () => {
    const res = await runBk(['invoices', 'list', '--limit', '1', '--jq', '.data | error("stop here")'], {env})
    expect(res.code).toBe(2)
    // One Error: and one Hint: line, as every failure has.
    expect(res.stderr).toBe(
      'Error: --jq: stop here\nHint: The expression failed on this result: run the command with --json instead of --jq to see what it was given.\n',
    )
    expect(res.stdout).toBe('')
  })

  it('refuses another output format or a --file', async () => {
    const csv = await runBk(['invoices', 'list', '--jq', 'length', '--output', 'csv'], {env: unreachable()})
    expect(csv.code).toBe(2)
    expect(csv.stderr).toContain('--jq filters JSON output, not --output csv')
  })
})

describe('--summary', () => {
  it('counts and totals every listed invoice by status, exactly, inside the JSON result', async () => {
    const res = await runBk(['invoices', 'list', '--all', '--summary', '--json'], {env})
    expect(res.code, res.stderr).toBe(0)
    const out = parseJsonOutput<{
      data: unknown[]
      summary: {count: number; by_status: Array<{status: string; count: number; totals: Array<{amount: string}>}>}
    }>(res)
    const seeded = emulator.state.invoices.all(biz)
    expect(out.data).toHaveLength(seeded.length)
    expect(out.summary.count).toBe(seeded.length)
    for (const s of out.summary.by_status) {
      const mine = seeded.filter((i) => i.status === s.status)
      expect(s.count).toBe(mine.length)
      const total = mine.reduce((t, i) => t.plus(new Decimal(i.total_amount)), new Decimal(0))
      expect(s.totals).toEqual([{currency: null, amount: total.toFixed()}])
    }
  })

  it('goes to stderr for people, beside a csv export', async () => {
    const res = await runBk(['refunds', 'list', '--all', '--summary', '--output', 'csv'], {env})
    expect(res.code, res.stderr).toBe(0)
    const seeded = emulator.state.refunds.all(biz)
    expect(res.stderr).toContain(`Summary: ${seeded.length} refunds`)
    const voided = seeded.filter((r) => r.status === 'voided')
    const total = voided.reduce((t, r) => t.plus(new Decimal(r.amount)), new Decimal(0))
    expect(res.stderr).toMatch(
      new RegExp(`^voided +${voided.length} +- +${total.toFixed(2).replace('.', '\\.')}$`, 'm'),
    )
    expect(res.stdout.split('\n')[0]).toMatch(/^ID,STATUS,AMOUNT/)
  })
})
