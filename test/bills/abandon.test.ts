/**
 * The second Ctrl-C (the `abort` signal) during the wait before a batch is sent again: nothing
 * more is sent, and the batch stays "not sent" for --resume. Real client, real loopback server
 * that answers 503 (the service certainly did not act), the pipeline driven directly.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, expect, it} from 'vitest'

import {Api} from '../../src/api/api.js'
import {BkClient} from '../../src/api/client.js'
import {importBills} from '../../src/bills/import.js'
import {tempDir} from '../helpers/bk.js'
import {reply, scriptedServer, type ScriptedServer} from '../helpers/scripted-server.js'

let server: ScriptedServer | undefined
let client: BkClient | undefined
afterEach(async () => {
  await client?.close()
  await server?.close()
})

it('a second Ctrl-C during the wait before a resend sends nothing more', async () => {
  server = await scriptedServer([reply(503, {error: 'busy', data: null})])
  client = new BkClient({baseUrl: server.url, maxRetries: 0})
  const api = new Api(client)
  const dir = tempDir('bk-bills-abandon-')
  const file = join(dir, 'bills.csv')
  writeFileSync(file, 'number,vendor_id,line_amount,line_ledger_id\nA-1,ven_demo_office,10.00,ldg_demo_expenses\n')
  const stop = new AbortController()
  const abort = new AbortController()
  let waiting!: () => void
  const resendWait = new Promise<void>((resolve) => (waiting = resolve))
  const outcome = importBills({
    file,
    businessId: 'biz_demo_acme',
    baseUrl: server.url,
    batchSize: 100,
    concurrency: 1,
    maxErrors: 10,
    rejectsFile: join(dir, 'rejects.csv'),
    unconfirmedFile: join(dir, 'unconfirmed.csv'),
    journalFile: join(dir, 'bills.csv.bk-journal'),
    recordFolder: join(dir, 'created-bills'),
    resume: false,
    restart: false,
    resendRounds: 3,
    resendDelayMs: 60_000,
    send: (bills, signal) => api.bills.create('biz_demo_acme', bills, {signal}),
    stop: stop.signal,
    abort: abort.signal,
    onResendWait: () => waiting(),
  })
  // Once the first answer (503) is in, the pipeline waits a minute before sending again.
  await resendWait
  stop.abort()
  abort.abort()
  const {summary} = await outcome
  expect(server.requests).toHaveLength(1)
  expect(summary.notSent).toBe(1)
  expect(summary.created + summary.unconfirmed).toBe(0)
})
