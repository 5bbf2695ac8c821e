import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterEach, expect, it} from 'vitest'

import {start, type RunningEmulator} from '../helpers/emulator.js'

let emulator: RunningEmulator | undefined
afterEach(() => emulator?.close())

it('serves the key set even when a test records events instead of delivering them', async () => {
  emulator = await start()
  const seen: string[] = []
  emulator.state.events = {emit: (type) => seen.push(type)}
  const res = await fetch(`${emulator.baseUrl}/.well-known/jwks.json`)
  expect(res.status).toBe(200)
  expect(((await res.json()) as {keys: unknown[]}).keys.length).toBeGreaterThan(0)
})

it('a full reset drops deliveries still waiting for a retry', async () => {
  let attempts = 0
  const app = createServer((_req, res) => {
    attempts++
    res.writeHead(500).end()
  })
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}/`
  // 10 s x 0.01 = 100 ms before the first retry.
  emulator = await start({webhookUrl: url, timeScale: 0.01})
  await fetch(`${emulator.baseUrl}/_emulator/events`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({type: 'TASK_REQUEST'})})
  for (let i = 0; i < 50 && attempts === 0; i++) await new Promise((r) => setTimeout(r, 20))
  expect(attempts).toBe(1)
  const reset = await fetch(`${emulator.baseUrl}/_emulator/reset`, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify({what: 'all'})})
  expect(reset.status).toBe(200)
  await new Promise((r) => setTimeout(r, 400)) // past the 100 ms and 200 ms retries
  expect(attempts).toBe(1)
  expect(emulator.state.notifications).toHaveLength(0)
  await new Promise<void>((resolve) => app.close(() => resolve()))
})
