/**
 * A bare HTTP server that only counts the requests it gets (and answers 500 to each). Pointing
 * bk at it proves that bad local input sends nothing, not even a token request.
 */
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'

export interface Recorder {
  baseUrl: string
  requests: string[]
  close(): Promise<void>
}

export async function startRecorder(): Promise<Recorder> {
  const requests: string[] = []
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`)
    res.writeHead(500, {'content-type': 'application/json'}).end('{"error":"recorder","data":null}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}

/** Credentials that point bk at the recorder instead of the emulator. */
export function recorderEnv(recorder: Recorder): Record<string, string> {
  return {BK_BASE_URL: recorder.baseUrl, BK_CLIENT_ID: 'local-client', BK_CLIENT_SECRET: 'local-secret', BK_BUSINESS_ID: 'biz_demo_acme'}
}
