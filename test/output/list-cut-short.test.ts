/**
 * A streamed list that the service stops part-way (--all, pages already written to stdout):
 * stdout still parses, as one JSON value with --json or --output json, and line by line with
 * ndjson; the error goes to stderr, with the failure's exit code.
 */
import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'

import {parseJsonOutput, runBk, startBk} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'
import {forward, loopbackServer, type LoopbackServer} from '../helpers/loopback-proxy.js'
import {whenOutput} from '../helpers/wait.js'

vi.setConfig({testTimeout: 240_000})

const PAGE = 10

let emulator: RunningEmulator
let ids: string[]
beforeAll(async () => {
  emulator = await start()
  ids = emulator.state.invoices.all(emulator.businessIds[0]!).map((i) => i.id)
  // Two whole pages and a third to fail on.
  expect(ids.length).toBeGreaterThan(2 * PAGE)
})
afterAll(() => emulator.close())

const isList = (url: string | undefined) => /\/invoice(\?|$)/.test(url ?? '')

/**
 * The emulator behind a proxy that passes the first `pages` invoice lists, then answers every
 * later one (each retry too) 503 with Retry-After 0, or holds it unanswered (`hold`).
 */
async function failingAfter(pages: number, mode: '503' | 'hold' = '503'): Promise<LoopbackServer> {
  const upstream = new URL(emulator.baseUrl)
  let lists = 0
  return loopbackServer((req, body, res) => {
    if (!isList(req.url) || ++lists <= pages) return forward(upstream, req, body, res)
    if (mode === 'hold') return
    res.writeHead(503, {'content-type': 'application/json', 'retry-after': '0'})
    res.end(JSON.stringify({error: 'down for maintenance', data: null}))
  })
}

const envThrough = (proxy: LoopbackServer) => ({...envFor(emulator), BK_BASE_URL: proxy.baseUrl})

describe('a streamed list the service stops part-way', () => {
  it.each([[['--json']], [['--output', 'json']]])(
    '%j: stdout is one JSON array of the pages written, the error on stderr, exit 7',
    async (flags) => {
      const proxy = await failingAfter(2)
      try {
        const result = await runBk(['invoices', 'list', '--all', '--page-size', String(PAGE), ...flags], {
          env: envThrough(proxy),
        })
        expect(result.code, result.stderr).toBe(7)
        const listed = parseJsonOutput<Array<{id: string}>>(result)
        expect(listed.map((i) => i.id)).toEqual(ids.slice(0, 2 * PAGE))
        expect(result.stderr).toMatch(/^Error: .*503/)
        expect(result.stderr).toMatch(/\nHint: /)
      } finally {
        await proxy.close()
      }
    },
  )

  it('--json --summary: the object is closed without a summary of part of the list', async () => {
    const proxy = await failingAfter(2)
    try {
      const result = await runBk(['invoices', 'list', '--all', '--json', '--summary', '--page-size', String(PAGE)], {
        env: envThrough(proxy),
      })
      expect(result.code, result.stderr).toBe(7)
      const listed = parseJsonOutput<{data: Array<{id: string}>; summary?: unknown}>(result)
      expect(listed.data.map((i) => i.id)).toEqual(ids.slice(0, 2 * PAGE))
      expect(listed).not.toHaveProperty('summary')
      expect(result.stderr).toMatch(/^Error: .*503/)
    } finally {
      await proxy.close()
    }
  })

  it('--json before anything is written: the error document is stdout, as for any failure', async () => {
    const proxy = await failingAfter(0)
    try {
      const result = await runBk(['invoices', 'list', '--all', '--json', '--page-size', String(PAGE)], {
        env: envThrough(proxy),
      })
      expect(result.code).toBe(7)
      expect(parseJsonOutput<{code: string}>(result).code).toBe('unavailable')
      expect(result.stderr).toBe('')
    } finally {
      await proxy.close()
    }
  })

  it('ndjson: every line is a whole item, the error on stderr, exit 7', async () => {
    const proxy = await failingAfter(2)
    try {
      const result = await runBk(['invoices', 'list', '--all', '--output', 'ndjson', '--page-size', String(PAGE)], {
        env: envThrough(proxy),
      })
      expect(result.code, result.stderr).toBe(7)
      const lines = result.stdout.split('\n')
      expect(lines.pop()).toBe('')
      expect(lines.map((l) => (JSON.parse(l) as {id: string}).id)).toEqual(ids.slice(0, 2 * PAGE))
      expect(result.stderr).toMatch(/^Error: .*503/)
    } finally {
      await proxy.close()
    }
  })

  it('SIGTERM while a page is awaited: stdout is one JSON array of the pages written, exit 130', async () => {
    const proxy = await failingAfter(1, 'hold')
    try {
      const run = startBk(['invoices', 'list', '--all', '--json', '--page-size', String(PAGE)], {
        env: envThrough(proxy),
      })
      let stdout = ''
      run.child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
      // The first page is on stdout; the second is held by the proxy.
      await whenOutput(run.child.stdout, () => stdout.includes(ids[PAGE - 1]!), 'the first page')
      run.child.kill('SIGTERM')
      const result = await run.done
      expect(result.code, result.stderr).toBe(130)
      expect(parseJsonOutput<Array<{id: string}>>(result).map((i) => i.id)).toEqual(ids.slice(0, PAGE))
      expect(result.stderr).toBe('Error: Interrupted\n')
    } finally {
      await proxy.close()
    }
  })
})
