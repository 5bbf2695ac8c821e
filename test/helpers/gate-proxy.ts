/**
 * A loopback proxy in front of the emulator that stops one chosen request at a chosen point, so
 * that a test can kill bk at a moment it knows, with no clock: `drop` keeps the request from the
 * emulator (the service never acts), `swallow` forwards it and keeps the emulator's answer from
 * bk (the service acted; bk cannot know). Every other request passes through.
 */
import {createServer, request, type IncomingMessage, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

export type GateMode = 'drop' | 'swallow'

export interface GateProxy {
  baseUrl: string
  /** Resolves once the gated request reached its point: held (drop), or answered by the emulator (swallow). */
  gated: Promise<void>
  close(): Promise<void>
}

/** Gates the `nth` request (1-based) that `matches`, in `mode`. */
export async function gateProxy(
  target: string,
  mode: GateMode,
  matches: (req: IncomingMessage) => boolean,
  nth = 1,
): Promise<GateProxy> {
  const upstream = new URL(target)
  let seen = 0
  let reached!: () => void
  const gated = new Promise<void>((resolve) => {
    reached = resolve
  })
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const gate = matches(req) && ++seen === nth
      if (gate && mode === 'drop') return reached()
      const out = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: {...req.headers, host: upstream.host},
        },
        (answer) => {
          if (!gate) {
            res.writeHead(answer.statusCode ?? 502, answer.headers)
            answer.pipe(res)
            return
          }
          // Read whole: the emulator has acted and answered; bk never hears it.
          answer.resume()
          answer.on('end', reached)
        },
      )
      out.on('error', () => res.destroy())
      out.end(Buffer.concat(chunks))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    gated,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
