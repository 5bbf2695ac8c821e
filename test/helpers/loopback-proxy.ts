/**
 * The shared part of the test proxies in front of the emulator (recording-proxy.ts, gate-proxy.ts):
 * a loopback server that reads each request whole, and a way to forward it upstream as bk sent it.
 */
import {createServer, request, type IncomingMessage, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'

export interface LoopbackServer {
  baseUrl: string
  close(): Promise<void>
}

/** Listens on a loopback port; `handle` gets each request once its body has been read whole. */
export async function loopbackServer(
  handle: (req: IncomingMessage, body: Buffer, res: ServerResponse) => void,
): Promise<LoopbackServer> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => handle(req, Buffer.concat(chunks), res))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/**
 * Sends the request on to `upstream` with its method, path, headers and body; the answer goes
 * back to bk unless `onAnswer` takes it. A failed upstream connection drops bk's connection.
 */
export function forward(
  upstream: URL,
  req: IncomingMessage,
  body: Buffer,
  res: ServerResponse,
  onAnswer: (answer: IncomingMessage) => void = (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers)
    answer.pipe(res)
  },
): void {
  const out = request(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: {...req.headers, host: upstream.host},
    },
    onAnswer,
  )
  out.on('error', () => res.destroy())
  out.end(body)
}
