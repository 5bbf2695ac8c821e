/**
 * Helpers of the webhook tests: the committed fixtures (signed outside bk), a small recording
 * HTTP server playing the user's app, and `bk webhooks listen` as a long-running child.
 */
import type {ChildProcessWithoutNullStreams} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {createServer, type IncomingHttpHeaders} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'

import {ROOT, spawnBk} from '../helpers/bk.js'
import {whenOutput} from '../helpers/wait.js'

export const FIXTURES = join(ROOT, 'test', 'fixtures', 'webhooks')
export const JWKS_FILE = join(FIXTURES, 'jwks.json')
export const OTHER_JWKS_FILE = join(FIXTURES, 'other-jwks.json')

export interface Delivery {
  name: string
  id: string
  signature: string
  body: string
  received: string
}

export const deliveries: Delivery[] = JSON.parse(readFileSync(join(FIXTURES, 'deliveries.json'), 'utf8')) as Delivery[]

export function delivery(name: string): Delivery {
  const d = deliveries.find((x) => x.name === name)
  if (!d) throw new Error(`no fixture delivery ${name}`)
  return d
}

export interface Received {
  at: number
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
}

export interface RecordingServer {
  url: string
  requests: Received[]
  /** Decides each answer (it may wait); by default 200. */
  respond: (req: Received, index: number) => number | Promise<number>
  /** Resolves once `count` requests have arrived (on the request event). */
  waitFor(count: number): Promise<void>
  close(): Promise<void>
}

export async function recordingServer(
  respond: (req: Received, index: number) => number | Promise<number> = () => 200,
): Promise<RecordingServer> {
  const requests: Received[] = []
  const waiters: Array<() => void> = []
  const rec: RecordingServer = {
    url: '',
    requests,
    respond,
    async waitFor(count) {
      while (requests.length < count) await new Promise<void>((resolve) => waiters.push(resolve))
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const r: Received = {
        at: Date.now(),
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      }
      const index = requests.push(r) - 1
      for (const w of waiters.splice(0)) w()
      void Promise.resolve(rec.respond(r, index)).then((status) => {
        res.writeHead(status, {'content-type': 'application/json'})
        res.end('{}')
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  rec.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`
  return rec
}

export interface ListenerChild {
  url: string
  child: ChildProcessWithoutNullStreams
  stdout(): string
  stderr(): string
  /** Resolves once `holds()` is true, checked as the listener prints (it prints after answering). */
  printed(holds: () => boolean, what: string): Promise<void>
  /** Sends SIGINT and resolves with the exit code. */
  stop(): Promise<number | null>
}

/** Starts `bk webhooks listen --port 0 …` and resolves once it prints where it listens. */
export function startListen(args: string[], env: Record<string, string | undefined> = {}): Promise<ListenerChild> {
  const port = args.includes('--port') ? [] : ['--port', '0']
  const child = spawnBk(['webhooks', 'listen', ...port, ...args], {env})
  let out = ''
  let err = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`listen did not start:\n${err}`))
    }, 100_000)
    child.on('close', (code) => {
      clearTimeout(timer)
      reject(new Error(`listen exited with ${code}:\n${err}`))
    })
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString()
      const m = /Listening on (http:\/\/\S+?) /.exec(err)
      if (m) {
        clearTimeout(timer)
        child.removeAllListeners('close')
        resolve({
          url: m[1] as string,
          child,
          stdout: () => out,
          stderr: () => err,
          printed: (holds, what) => whenOutput(child.stdout, holds, what),
          stop: () =>
            new Promise((done) => {
              if (child.exitCode !== null) return done(child.exitCode)
              child.once('exit', (code) => done(code))
              child.kill('SIGINT')
            }),
        })
      }
    })
  })
}

/** POSTs a delivery to a URL and gives the status and the answer text. */
export async function post(
  url: string,
  body: string | Buffer,
  headers: Record<string, string>,
): Promise<{status: number; text: string}> {
  const res = await fetch(url, {method: 'POST', headers: {'content-type': 'application/json', ...headers}, body})
  return {status: res.status, text: await res.text()}
}

export function padded(signature: string): string {
  return signature + '='.repeat((4 - (signature.length % 4)) % 4)
}
