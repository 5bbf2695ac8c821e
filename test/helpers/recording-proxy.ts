/**
 * A loopback HTTP proxy in front of the emulator that keeps each request's method, path and
 * body exactly as bk sent them, then forwards it: tests see the bytes on the wire, and the
 * emulator still answers (and stores what it created).
 */
import {createServer, request, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

export interface RecordedRequest {
  method: string
  path: string
  body: string
}

export interface RecordingProxy {
  baseUrl: string
  requests: RecordedRequest[]
  close(): Promise<void>
}

export async function recordingProxy(target: string): Promise<RecordingProxy> {
  const upstream = new URL(target)
  const requests: RecordedRequest[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      requests.push({method: req.method ?? '', path: req.url ?? '', body: body.toString('utf8')})
      const out = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: {...req.headers, host: upstream.host},
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
        },
      )
      out.on('error', () => res.destroy())
      out.end(body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
