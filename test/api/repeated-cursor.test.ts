/**
 * A service that hands out a cursor again would have every listing that follows cursors ask for
 * the same pages forever. bk stops at the second time a cursor comes, with an error naming it
 * (exit 1, as for any answer that breaks the spec), and an export to --file leaves no file.
 */
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it, vi} from 'vitest'

import {parseJsonOutput, runBk, tempDir, type BkResult} from '../helpers/bk.js'
import {start, tokenFor} from '../helpers/emulator.js'
import {reply, scriptedServer, type Step} from '../helpers/scripted-server.js'

vi.setConfig({testTimeout: 120_000})

const BUSINESS = 'biz_demo_acme'
const REPEATED = 'cur_again'
let data: unknown[]
let notifications: unknown[]

beforeAll(async () => {
  // Real invoices and webhook notifications, as the emulator writes them, under cursors this test chooses.
  const emulator = await start()
  try {
    const headers = {authorization: `Bearer ${await tokenFor(emulator)}`}
    const res = await fetch(`${emulator.baseUrl}/v0/business/${BUSINESS}/invoice?page_size=2`, {headers})
    data = ((await res.json()) as {data: unknown[]}).data
    for (let i = 0; i < 2; i++) {
      const event = await fetch(`${emulator.baseUrl}/_emulator/events`, {
        method: 'POST',
        headers: {'content-type': 'application/json'},
        body: JSON.stringify({type: 'TASK_REQUEST'}),
      })
      expect(event.status).toBe(202)
    }
    const kept = await fetch(`${emulator.baseUrl}/v0/tenant/webhook/notifications?page_size=2`, {headers})
    notifications = ((await kept.json()) as {data: unknown[]}).data
    expect(notifications).toHaveLength(2)
  } finally {
    await emulator.close()
  }
})

/** bk run against a service whose cursor comes back three times, then whose list ends (so that a bk that follows it ends too). */
async function againstRepeatingService(args: string[], items: unknown[] = data): Promise<BkResult> {
  const data = items
  const page = (next: string | null) =>
    reply(200, {data, pagination: {next_page_token: next, previous_page_token: null}})
  const server = await scriptedServer([page(REPEATED), page(REPEATED), page(REPEATED), page(REPEATED), page(null)])
  try {
    return await runBk(args, {env: {BK_BASE_URL: server.url, BK_ACCESS_TOKEN: 'tok_test', BK_BUSINESS_ID: BUSINESS}})
  } finally {
    await server.close()
  }
}

/**
 * bk webhooks replay against a service whose whole list is one page, and whose list by status
 * (read to learn each notification's status) is empty pages under the same cursor.
 */
async function againstRepeatingStatusLists(args: string[]): Promise<BkResult> {
  const page = (items: unknown[], next: string | null) =>
    reply(200, {data: items, pagination: {next_page_token: next, previous_page_token: null}})
  const byStatus = page([], REPEATED)
  const whole = page(notifications, null)
  const route: Step = (req, res, body) =>
    (new URL(req.url ?? '', 'http://x').searchParams.has('status') ? byStatus : whole)(req, res, body)
  const server = await scriptedServer([route])
  try {
    return await runBk(args, {env: {BK_BASE_URL: server.url, BK_ACCESS_TOKEN: 'tok_test', BK_BUSINESS_ID: BUSINESS}})
  } finally {
    await server.close()
  }
}

const stopped = (what: string) =>
  `Unexpected response from ${what}: page 2 gave next_page_token "${REPEATED}", a cursor this listing already followed; following it again would repeat the same pages without end, so bk stopped after 2 pages`

describe('a next_page_token the service gave before', () => {
  it('stops invoices list --all --file with an error, leaving the file as it was and no .partial', async () => {
    const file = join(tempDir(), 'invoices.csv')
    writeFileSync(file, 'the export of yesterday\n')
    const res = await againstRepeatingService(['invoices', 'list', '--all', '--file', file])
    expect(res.code, res.stderr).toBe(1)
    expect(res.stderr).toContain(`Error: ${stopped(`GET /v0/business/${BUSINESS}/invoice`)}`)
    expect(readFileSync(file, 'utf8')).toBe('the export of yesterday\n')
    expect(existsSync(`${file}.partial`)).toBe(false)
  })

  it('stops invoices aging and bk api --paginate the same way', async () => {
    const aging = await againstRepeatingService(['invoices', 'aging', '--json'])
    expect(aging.code, aging.stderr).toBe(1)
    expect(parseJsonOutput(aging)).toMatchObject({
      code: 'unexpected_response',
      error: expect.stringContaining(`page 2 gave next_page_token "${REPEATED}"`) as string,
      details: {next_page_token: REPEATED, pages: 2},
    })
    const api = await againstRepeatingService(['api', 'GET', `/v0/business/${BUSINESS}/invoice`, '--paginate'])
    expect(api.code, api.stderr).toBe(1)
    expect(api.stderr).toContain(`Error: ${stopped(`GET /v0/business/${BUSINESS}/invoice`)}`)
    expect(api.stdout).toBe('')
  })

  it('stops webhooks replay the same way', async () => {
    const one = await againstRepeatingService(['webhooks', 'replay', '--status', 'error', '--json'], notifications)
    expect(one.code, one.stderr).toBe(1)
    expect(parseJsonOutput(one)).toMatchObject({
      code: 'unexpected_response',
      error: stopped('GET /v0/tenant/webhook/notifications'),
    })
  })

  it('stops the delivery-status lookup of webhooks replay the same way', async () => {
    const res = await againstRepeatingStatusLists(['webhooks', 'replay', '--json'])
    expect(res.code, res.stderr).toBe(1)
    const error = parseJsonOutput<{code: string; error: string}>(res)
    expect(error.code).toBe('unexpected_response')
    expect(error.error).toMatch(
      /^Unexpected response from GET \/v0\/tenant\/webhook\/notifications\?status=(pending|sent|error): page 2 gave next_page_token "cur_again"/,
    )
  })
})
