/**
 * `bk webhooks listen`: a local receiver. Every POST is verified; an invalid one is answered
 * 400 and reported; a valid one is answered 200, reported once per svc-id (a redelivery of an
 * id already handled is answered 200 and reported as a duplicate), and, with a forward URL,
 * posted there with its original headers and body. With forwarding, the answer follows the
 * target: 200 when it answered 2xx, 502 otherwise, so that the service retries and the
 * notification is not marked handled. Bad requests (oversized, not JSON, missing headers, other
 * methods) are answered and reported; nothing a client sends stops the listener.
 */
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'

import {postBody, type PostResult} from '../post-body.js'
import {forwardableHeaders} from './forward.js'
import {verifyWithKeys, type KeyProvider} from './keys.js'
import {parseJsonTree, treeToValue} from '../exact-json.js'
import type {VerifiedAs} from './verify.js'
import {WEBHOOK_ID_HEADER, WEBHOOK_SIGNATURE_HEADER} from '../spec.js'

export const MAX_BODY_BYTES = 1024 * 1024
const REMEMBERED_IDS = 10_000

export interface ListenerEvent {
  receivedAt: string
  svcId: string | null
  type: string | null
  valid: boolean
  /** How the signature matched: the raw body or its Python json.dumps re-serialisation. */
  verifiedAs: VerifiedAs | null
  /** Why it was refused, when it was. */
  reason: string | null
  /** What the listener answered. */
  status: number
  duplicate: boolean
  forwarded: PostResult | null
  /** The parsed message, for display (numbers through JS numbers). */
  message: unknown
}

export interface ListenerOptions {
  port: number
  host?: string
  keys: KeyProvider
  forwardTo?: string | undefined
  /** Only these event types are reported and forwarded; others are answered 200 and ignored. */
  events?: readonly string[] | undefined
  maxBodyBytes?: number
  onEvent(event: ListenerEvent): void
}

export interface RunningListener {
  url: string
  port: number
  close(): Promise<void>
}

export async function startListener(options: ListenerOptions): Promise<RunningListener> {
  const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES
  const host = options.host ?? '127.0.0.1'
  const handled = new Set<string>()
  const inFlight = new Map<string, Promise<{status: number}>>()

  const remember = (id: string) => {
    handled.add(id)
    if (handled.size > REMEMBERED_IDS) handled.delete(handled.values().next().value as string)
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const event: ListenerEvent = {
      receivedAt: new Date().toISOString(),
      svcId: header(req, WEBHOOK_ID_HEADER) ?? null,
      type: null,
      valid: false,
      verifiedAs: null,
      reason: null,
      status: 400,
      duplicate: false,
      forwarded: null,
      message: null,
    }
    const answer = (status: number, reason: string | null) => {
      event.status = status
      event.reason = reason
      const body = JSON.stringify(reason ? {error: reason} : {ok: true, ...(event.duplicate ? {duplicate: true} : {})})
      if (!res.headersSent)
        res.writeHead(status, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...(status === 413 ? {connection: 'close'} : {}),
        })
      res.end(body)
    }
    if (req.method !== 'POST') {
      req.resume()
      answer(405, `method ${req.method ?? '?'} not allowed: webhooks are POSTed`)
      options.onEvent(event)
      return
    }
    const body = await readLimited(req, maxBody)
    if (body === undefined) {
      answer(413, `body larger than ${maxBody} bytes`)
      options.onEvent(event)
      return
    }
    const id = event.svcId
    const signature = header(req, WEBHOOK_SIGNATURE_HEADER)
    if (!id || !signature) {
      answer(400, `missing header ${!id ? WEBHOOK_ID_HEADER : WEBHOOK_SIGNATURE_HEADER}`)
      options.onEvent(event)
      return
    }
    let type: string | null = null
    try {
      const tree = parseJsonTree(body.toString('utf8'))
      event.message = treeToValue(tree)
      const t = (event.message as {type?: unknown} | null)?.type
      type = typeof t === 'string' ? t : null
    } catch {
      // Not JSON: verification says why it is refused (or accepts raw bytes someone signed).
    }
    event.type = type
    let result
    try {
      result = await verifyWithKeys({id, signature, body}, options.keys)
    } catch (error) {
      answer(503, `cannot verify: ${(error as Error).message}`)
      options.onEvent(event)
      return
    }
    if (!result.valid) {
      answer(400, result.reason)
      options.onEvent(event)
      return
    }
    event.valid = true
    event.verifiedAs = result.as
    if (options.events && (!type || !options.events.includes(type))) {
      answer(200, null)
      return
    }
    if (handled.has(id)) {
      event.duplicate = true
      answer(200, null)
      options.onEvent(event)
      return
    }
    const pending = inFlight.get(id)
    if (pending) {
      // The same delivery twice at once: the second gets the first one's answer.
      event.duplicate = true
      const {status} = await pending
      answer(status, status === 200 ? null : 'the first copy of this delivery failed')
      options.onEvent(event)
      return
    }
    const work = (async () => {
      if (!options.forwardTo) return {status: 200}
      event.forwarded = await postBody(options.forwardTo, forwardableHeaders(req.headers), body)
      return {status: event.forwarded.ok ? 200 : 502}
    })()
    inFlight.set(id, work)
    try {
      const {status} = await work
      if (status === 200) remember(id)
      const f = event.forwarded
      answer(
        status,
        status === 200 ? null : `forwarding to ${options.forwardTo} failed: ${f?.status ?? f?.error ?? 'no answer'}`,
      )
    } finally {
      inFlight.delete(id)
    }
    options.onEvent(event)
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, {'content-type': 'application/json'})
        res.end(JSON.stringify({error: String((error as Error)?.message ?? error)}))
      } else {
        res.destroy()
      }
    })
  })
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n')
    else socket.destroy()
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const {port} = server.address() as AddressInfo
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name]
  return (Array.isArray(v) ? v[0] : v) || undefined
}

/** The body, or undefined once it grows past `max` (the rest is drained, not kept). */
async function readLimited(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = []
  let size = 0
  let tooBig = false
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > max) {
      tooBig = true
      chunks.length = 0
      continue
    }
    chunks.push(chunk as Buffer)
  }
  return tooBig ? undefined : Buffer.concat(chunks)
}
