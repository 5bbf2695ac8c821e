/**
 * The Pager over the real client and a real loopback server: prefetch puts the next request on
 * the wire before the caller works on a page, an early cursor read from the text is confirmed by
 * the parse before it is used, and a bad item is an error naming its field path.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {BkClient} from '../../src/api/client.js'
import {ResponseShapeError} from '../../src/api/errors.js'
import {listPager, nextPageTokenIn} from '../../src/api/pagination.js'
import {invoice} from '../../src/api/schemas/index.js'
import {tempDir} from '../helpers/bk.js'
import {scriptedServer, type ScriptedServer} from '../helpers/scripted-server.js'

const clients: BkClient[] = []
const children: ChildProcess[] = []
let server: ScriptedServer | undefined

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()))
  for (const child of children.splice(0)) child.kill()
  await server?.close()
  server = undefined
})

function client(baseUrl: string): BkClient {
  const c = new BkClient({baseUrl, retryBaseMs: 10})
  clients.push(c)
  return c
}

/**
 * A list endpoint in its own process, so that it takes requests while this one is busy: page k
 * of `pages` has `?page_token=k`. Each page request is noted, in the order it arrived, before it is
 * answered: in `arrivals()`, read synchronously from a file (this process may be busy), and at
 * GET /arrivals.
 */
async function pageServerProcess(pages: number): Promise<{url: string; arrivals: () => number[]}> {
  const log = join(tempDir(), 'arrivals')
  writeFileSync(log, '')
  const script = `
    const {appendFileSync} = require('node:fs')
    const {createServer} = require('node:http')
    const arrivals = []
    const server = createServer((req, res) => {
      const url = new URL(req.url, 'http://x')
      if (url.pathname === '/arrivals') return res.end(JSON.stringify(arrivals))
      const k = Number(url.searchParams.get('page_token') ?? 0)
      arrivals.push(k)
      appendFileSync(${JSON.stringify(log)}, k + '\\n')
      const data = [0, 1].map((i) => ({id: 'inv_' + k + '_' + i, total_amount: 12.5}))
      const next = k + 1 < ${pages} ? String(k + 1) : null
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({data, pagination: {next_page_token: next, previous_page_token: k ? String(k - 1) : null}}))
    })
    server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'))`
  const child = spawn(process.execPath, ['-e', script], {stdio: ['ignore', 'pipe', 'inherit']})
  children.push(child)
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout?.once('data', (d: Buffer) => resolve(d.toString().trim()))
    child.once('exit', (code) => reject(new Error(`page server exited with ${code}`)))
  })
  const arrivals = () => readFileSync(log, 'utf8').split('\n').filter(Boolean).map(Number)
  return {url: `http://127.0.0.1:${port}`, arrivals}
}

/**
 * Blocks this thread, as an export's synchronous work on a page does, until `holds()`: nothing
 * else of this process runs meanwhile. The deadline only keeps a broken pager from hanging the
 * run (a blocked thread cannot meet the test's timeout); it is not a bound on speed.
 */
function blockUntil(holds: () => boolean, what: string): void {
  const deadline = Date.now() + 100_000
  while (!holds()) if (Date.now() > deadline) throw new Error(`never happened: ${what}`)
}

describe('Pager', () => {
  it('with prefetch, has the next request on the wire before the caller works on a page', async () => {
    const pages = 4
    const server = await pageServerProcess(pages)
    let page = 0
    for await (const p of listPager(client(server.url), '/invoice', {}, invoice, {prefetch: true}).pages()) {
      expect(p.data.map((i) => i.id)).toEqual([`inv_${page}_0`, `inv_${page}_1`])
      // The order of two events: page k+1's request reaches the server while this thread, holding
      // page k, has not let the pager run again. So it left before page k was handed out.
      if (page + 1 < pages) blockUntil(() => server.arrivals().includes(page + 1), `page ${page + 1} requested`)
      page++
    }
    expect(page).toBe(pages)
    expect(server.arrivals()).toEqual([0, 1, 2, 3])
  })

  it('without prefetch, asks for the next page only when the caller wants it', async () => {
    const server = await pageServerProcess(3)
    const seenWhileHolding: number[][] = []
    for await (const _ of listPager(client(server.url), '/invoice', {}, invoice).pages()) {
      // Asked while holding the page: a request the pager had sent for the next page would have
      // reached the server before this one, which is sent later.
      seenWhileHolding.push((await (await fetch(`${server.url}/arrivals`)).json()) as number[])
    }
    expect(seenWhileHolding).toEqual([[0], [0, 1], [0, 1, 2]])
    expect(server.arrivals()).toEqual([0, 1, 2])
  })

  it('uses an early cursor only when the parsed page confirms it', async () => {
    // `pagination` first, then an item whose metadata has a "next_page_token" key: the text's last
    // such key is not the cursor, so the early request is wasted and the right page is fetched.
    const body = (k: number, next: string | null) =>
      `{"pagination":{"next_page_token":${JSON.stringify(next)},"previous_page_token":null},` +
      `"data":[{"id":"inv_${k}","metadata_":{"next_page_token":"decoy"}}]}`
    server = await scriptedServer([
      (req, res) => {
        const token = new URL(req.url ?? '/', 'http://x').searchParams.get('page_token')
        res.writeHead(token === 'decoy' ? 422 : 200, {'content-type': 'application/json'})
        res.end(
          token === 'decoy'
            ? '{"error":"Invalid page_token","data":null}'
            : body(Number(token ?? 0), token ? null : '1'),
        )
      },
    ])
    const ids: string[] = []
    for await (const item of listPager(client(server.url), '/invoice', {}, invoice, {prefetch: true})) ids.push(item.id)
    expect(ids).toEqual(['inv_0', 'inv_1'])
    expect(server.requests.map((r) => new URL(r.url, 'http://x').searchParams.get('page_token'))).toEqual(
      expect.arrayContaining([null, 'decoy', '1']),
    )
  })

  it('names the field path of an item that does not match its schema', async () => {
    server = await scriptedServer([
      (req, res) => {
        const second = req.url?.includes('page_token=1')
        res.writeHead(200, {'content-type': 'application/json'})
        res.end(
          JSON.stringify({
            data: [
              {id: 'inv_a', total_amount: 1},
              {id: 'inv_b', total_amount: second ? '12.50' : 2},
            ],
            pagination: {next_page_token: second ? null : '1', previous_page_token: null},
          }),
        )
      },
    ])
    const seen: string[] = []
    const run = async () => {
      for await (const item of listPager(client(server!.url), '/v0/business/biz_1/invoice', {}, invoice, {
        prefetch: true,
      }))
        seen.push(item.id)
    }
    const err = await run().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ResponseShapeError)
    expect((err as Error).message).toMatch(
      /^Unexpected response from GET \/v0\/business\/biz_1\/invoice: field data\.1\.total_amount: /,
    )
    expect(seen).toEqual(['inv_a', 'inv_b'])
  })

  it('checks items past the first thousand (compiled) as it checks the first, issues and all', async () => {
    // Page k of 12 has 100 invoices; from the 11th page on the pager checks with a compiled parser.
    const item = (k: number, i: number) => ({
      id: `inv_${k}_${i}`,
      total_amount: i % 3 ? 12.5 : null,
      lines: i % 2 ? [{id: 'ln_1', amount: 1, extra: {deep: [1]}}] : undefined,
      service_only: 'kept',
      ...(k === 11 && i === 7 ? {total_amount: '12.50'} : {}),
    })
    server = await scriptedServer([
      (req, res) => {
        const k = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page_token') ?? 0)
        res.writeHead(200, {'content-type': 'application/json'})
        res.end(
          JSON.stringify({
            data: Array.from({length: 100}, (_, i) => item(k, i)),
            pagination: {next_page_token: String(k + 1), previous_page_token: null},
          }),
        )
      },
    ])
    const seen: unknown[] = []
    const run = async () => {
      for await (const inv of listPager(client(server!.url), '/invoice', {}, invoice, {prefetch: true})) seen.push(inv)
    }
    const err = await run().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ResponseShapeError)
    expect((err as Error).message).toBe(
      'Unexpected response from GET /invoice: field data.7.total_amount: expected a number, found the text "12.50"',
    )
    expect(seen).toHaveLength(1100)
    // What JSON.parse gives: every field kept (unknown ones too), nulls as null, absent stays absent.
    expect(seen).toEqual(
      Array.from({length: 1100}, (_, n) => JSON.parse(JSON.stringify(item(Math.floor(n / 100), n % 100)))),
    )
  })

  it('says so when a page is not JSON', async () => {
    server = await scriptedServer([(_req, res) => res.end('<html>maintenance</html>')])
    const err = await listPager(client(server.url), '/invoice', {}, invoice)
      .first()
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ResponseShapeError)
    expect((err as Error).message).toBe('Unexpected response from GET /invoice: not JSON')
  })
})

describe('nextPageTokenIn', () => {
  it('reads the last next_page_token of a body, escapes and all', () => {
    expect(nextPageTokenIn('{"data":[],"pagination":{"next_page_token":"ab\\"c","previous_page_token":null}}')).toBe(
      'ab"c',
    )
    expect(nextPageTokenIn('{"data":[],"pagination":{"next_page_token" : "x1"}}')).toBe('x1')
    expect(nextPageTokenIn('{"data":[],"pagination":{"next_page_token":null}}')).toBeUndefined()
    expect(nextPageTokenIn('{"data":[]}')).toBeUndefined()
  })
})
