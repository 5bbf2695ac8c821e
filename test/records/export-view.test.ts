/**
 * What an export checks and how it writes cells, against a loopback server answering with
 * invoices the emulator never makes: csv output checks the fields it prints (and with --lines
 * each line's), json output checks everything; the formula guard leaves numbers alone; --file
 * is written whole or not at all.
 */
import {existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {parse} from 'csv-parse/sync'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runBk, spawnBk, tempDir} from '../helpers/bk.js'
import {reply, scriptedServer, type ScriptedServer} from '../helpers/scripted-server.js'
import {recorderEnv, startRecorder} from './recorder.js'

const invoices = [
  {
    id: 'inv_1',
    number: '-120.50',
    description: '-2+3',
    source: '\uFF1D1+2',
    customer_id: 'cus_=1',
    credit_amount: -25.5,
    total_amount: -1e-7,
    status: 'paid',
    // Fields no csv column prints, each of the wrong type:
    business_id: 42,
    metadata_: 'not an object',
    lines: [{id: 'inl_1', amount: 'not a number'}],
  },
]
let server: ScriptedServer
beforeAll(async () => {
  server = await scriptedServer([
    reply(200, {data: invoices, pagination: {next_page_token: null, previous_page_token: null}}),
  ])
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
    expect(cell('TOTAL AMOUNT')).toBe('-0.0000001') // a plain decimal, never in exponent form
    expect(cell('NUMBER')).toBe("'-120.50") // text, not a number: it could as well be -120+50
    expect(cell('DESCRIPTION')).toBe("'-2+3")
    expect(cell('SOURCE')).toBe("'\uFF1D1+2") // a full-width =, which some spreadsheets read as =
    expect(cell('CUSTOMER ID')).toBe('cus_=1')
  })
})

describe('--file', () => {
  it('is replaced only by a complete export: a failure halfway leaves the earlier file as it was', async () => {
    const page = (k: number, next: string | null) => ({
      data: [{id: `inv_${k}`, total_amount: k}],
      pagination: {next_page_token: next, previous_page_token: null},
    })
    const failing = await scriptedServer([reply(200, page(1, 'p2')), reply(404, {error: 'gone', data: null})])
    const complete = await scriptedServer([reply(200, page(1, 'p2')), reply(200, page(2, null))])
    try {
      const dir = tempDir()
      const file = join(dir, 'invoices.csv')
      writeFileSync(file, 'yesterday\n', {mode: 0o600})
      const env = (s: ScriptedServer) => ({BK_BASE_URL: s.url, BK_ACCESS_TOKEN: 'tok_test', BK_BUSINESS_ID: 'biz_1'})

      const failed = await runBk(['invoices', 'list', '--all', '--output', 'csv', '--file', file], {env: env(failing)})
      expect(failed.code).toBe(4)
      expect(failing.requests).toHaveLength(2)
      expect(readFileSync(file, 'utf8')).toBe('yesterday\n')
      expect(readdirSync(dir)).toEqual(['invoices.csv'])

      const done = await runBk(['invoices', 'list', '--all', '--output', 'csv', '--file', file], {env: env(complete)})
      expect(done.code, done.stderr).toBe(0)
      expect((parse(readFileSync(file, 'utf8')) as string[][]).slice(1).map((r) => r[0])).toEqual(['inv_1', 'inv_2'])
      expect(statSync(file).mode & 0o777).toBe(0o600) // a private file stays private
      expect(readdirSync(dir)).toEqual(['invoices.csv'])
    } finally {
      await failing.close()
      await complete.close()
    }
  })

  it('that cannot be written is refused before any request, naming it', async () => {
    const recorder = await startRecorder()
    try {
      const dir = tempDir()
      mkdirSync(join(dir, 'a-folder'))
      const missing = await runBk(['invoices', 'list', '--output', 'csv', '--file', join(dir, 'no', 'such', 'x.csv')], {
        env: recorderEnv(recorder),
      })
      expect(missing.code).toBe(2)
      expect(missing.stderr).toContain(
        `--file ${join(dir, 'no', 'such', 'x.csv')}: the folder ${join(dir, 'no', 'such')} does not exist`,
      )
      const folder = await runBk(['refunds', 'list', '--output', 'csv', '--file', join(dir, 'a-folder')], {
        env: recorderEnv(recorder),
      })
      expect(folder.code).toBe(2)
      expect(folder.stderr).toContain('is a directory')
      expect(recorder.requests).toEqual([])
      expect(existsSync(join(dir, 'a-folder.partial'))).toBe(false)
    } finally {
      await recorder.close()
    }
  })
})

describe('stdout closed early', () => {
  it('stops quietly with exit 0 when the reader goes away (| head), and fetches no further', async () => {
    // Pages larger than a pipe's buffer, without end (each with a cursor of its own, as a listing
    // that repeats one is stopped as broken): bk would page forever if it did not stop.
    const items = Array.from({length: 100}, (_, i) => ({id: `inv_${i}`, description: 'x'.repeat(2000)}))
    let page = 0
    const endless = await scriptedServer([
      (req, res, body) =>
        reply(200, {data: items, pagination: {next_page_token: `p${++page}`, previous_page_token: null}})(
          req,
          res,
          body,
        ),
    ])
    try {
      const child = spawnBk(['invoices', 'list', '--all', '--output', 'csv'], {
        env: {BK_BASE_URL: endless.url, BK_ACCESS_TOKEN: 'tok_test', BK_BUSINESS_ID: 'biz_1'},
      })
      child.stdin.end()
      let stderr = ''
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
      // Read the header line, then close the pipe as `head -1` does.
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()))
      child.stdout.destroy()
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
      expect(stderr).toBe('')
      expect(code).toBe(0)
      // bk exited by itself (an endless listing never ends otherwise), so it fetches nothing more;
      // closing the server drains any request already received before counting.
      const served = endless.requests.length
      await endless.close()
      expect(endless.requests.length).toBe(served)
    } finally {
      await endless.close()
    }
  })
})
