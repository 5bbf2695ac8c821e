import {afterEach, expect, it} from 'vitest'

import {start, type RunningEmulator} from '../helpers/emulator.js'
import {reply, scriptedServer, type ScriptedServer} from '../helpers/scripted-server.js'
import {call, recordEvents} from './support.js'

let emulator: RunningEmulator | undefined
let app: ScriptedServer | undefined
afterEach(async () => {
  await emulator?.close()
  await app?.close()
  emulator = undefined
  app = undefined
})

it('serves the key set even when a test records events instead of delivering them', async () => {
  emulator = await start()
  recordEvents(emulator)
  const res = await call(emulator, 'GET', '/.well-known/jwks.json')
  expect(res.status).toBe(200)
  expect((res.body as {keys: unknown[]}).keys.length).toBeGreaterThan(0)
})

it('a full reset drops deliveries still waiting for a retry', async () => {
  app = await scriptedServer([reply(500, {})])
  const attempts = () => app!.requests.length
  // 10 s x 0.01 = 100 ms before the first retry.
  emulator = await start({webhookUrl: `${app.url}/`, timeScale: 0.01})
  await call(emulator, 'POST', '/_emulator/events', {json: {type: 'TASK_REQUEST'}})
  await app.waitForRequests(1)
  expect(attempts()).toBe(1)
  const reset = await call(emulator, 'POST', '/_emulator/reset', {json: {what: 'all'}})
  expect(reset.status).toBe(200)
  // Idle at once when the reset dropped the retry; a retry still scheduled would keep it busy.
  await emulator.webhooks.idle()
  expect(attempts()).toBe(1)
  expect(emulator.state.notifications).toHaveLength(0)
})
