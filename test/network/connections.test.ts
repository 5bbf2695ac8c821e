/**
 * How many connections a command opens: the token request and the API requests share one, so a
 * command against a remote service pays for one TCP (and TLS) handshake, not one per client.
 * Counted by a loopback TCP relay in front of the emulator that counts the sockets it accepts.
 */
import {once} from 'node:events'
import {createServer, connect, type AddressInfo, type Socket} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {parseJsonOutput, runBk} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

/** A relay to `target` that counts the connections made to it; `baseUrl` points bk at it. */
async function countingRelay(target: string) {
  const upstream = new URL(target)
  const sockets = new Set<Socket>()
  let accepted = 0
  const server = createServer((client) => {
    accepted++
    const service = connect(Number(upstream.port), upstream.hostname)
    for (const s of [client, service]) {
      sockets.add(s)
      s.on('close', () => sockets.delete(s))
      s.on('error', () => {
        client.destroy()
        service.destroy()
      })
    }
    client.pipe(service).pipe(client)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const {port} = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    accepted: () => accepted,
    async close() {
      for (const s of sockets) s.destroy()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

describe('connections', () => {
  it('fetches the token and makes the request over one connection', async () => {
    const relay = await countingRelay(emulator.baseUrl)
    try {
      const res = await runBk(['transactions', 'get', 'txn_demo_invoice_payments', '--json'], {
        env: {...envFor(emulator), BK_BASE_URL: relay.baseUrl},
      })
      expect(res.code, res.stderr).toBe(0)
      expect(parseJsonOutput<{id: string}>(res).id).toBe('txn_demo_invoice_payments')
      expect(relay.accepted()).toBe(1)
    } finally {
      await relay.close()
    }
  })
})
