/**
 * A real HTTP server on loopback whose answers a test scripts one request at a time: for the
 * transport behaviours the emulator's random faults cannot pin down (exactly "503 then 200").
 */
import {createServer, type IncomingMessage, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'

export type Step = (req: IncomingMessage, res: ServerResponse, body: string) => void

export interface ScriptedServer {
  url: string
  /** Every request received, in order. */
  requests: Array<{method: string; url: string; body: string; headers: IncomingMessage['headers']}>
  /** Resolves once `count` requests have arrived (on the request event). */
  waitForRequests(count: number): Promise<void>
  close(): Promise<void>
}

export const reply =
  (status: number, body: unknown, headers: Record<string, string> = {}): Step =>
  (_req, res) => {
    res.writeHead(status, {'content-type': 'application/json', ...headers})
    res.end(JSON.stringify(body))
  }

/** Reads the request, then destroys the connection without answering. */
export const drop: Step = (req) => {
  req.socket.destroy()
}

/** Answers with the steps in order; the last step repeats. */
export async function scriptedServer(steps: Step[]): Promise<ScriptedServer> {
  const requests: ScriptedServer['requests'] = []
  const waiters: Array<() => void> = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (d: Buffer) => (body += d.toString()))
    req.on('end', () => {
      requests.push({method: req.method ?? '', url: req.url ?? '', body, headers: req.headers})
      const step = steps[Math.min(requests.length - 1, steps.length - 1)] as Step
      step(req, res, body)
      for (const w of waiters.splice(0)) w()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async waitForRequests(count) {
      while (requests.length < count) await new Promise<void>((resolve) => waiters.push(resolve))
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
