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

import {postThroughNetwork} from '../net/post.js'
import type {PostResult} from '../post-body.js'
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
  const host = options.host ?? '127.0.0.1'
  const handle = receiver(options)
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => answerFailure(res, error))
  })
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n')
    else socket.destroy()
  })
  await listen(server, options.port, host)
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

/**
 * The request handler. Each request is answered once and reported once through `finish`, except
 * a valid delivery of a type left out by `options.events`, which is acknowledged and not reported.
 */
function receiver(options: ListenerOptions): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES
  const handled = new RecentIds(REMEMBERED_IDS)
  /** Deliveries being forwarded, by id: a copy arriving meanwhile gets the first one's status. */
  const inFlight = new Map<string, Promise<number>>()

  return async (req, res) => {
    const event = newEvent(req)
    const finish = (status: number, reason: string | null): void => {
      event.status = status
      event.reason = reason
      respond(res, status, reason, event.duplicate)
      options.onEvent(event)
    }
    const delivery = await check(req, event, options.keys, maxBody)
    if ('refused' in delivery) return finish(delivery.status, delivery.refused)
    const {id, body} = delivery
    // A type left out by --events: acknowledged, so that the service stops sending it, and not reported.
    if (options.events && (!event.type || !options.events.includes(event.type))) return respond(res, 200, null, false)
    if (handled.has(id)) {
      event.duplicate = true
      return finish(200, null)
    }
    const pending = inFlight.get(id)
    if (pending) {
      // The same delivery twice at once: the second gets the first one's answer.
      event.duplicate = true
      const status = await pending
      return finish(status, status === 200 ? null : 'the first copy of this delivery failed')
    }
    const forwarding = forward(event, options.forwardTo, req, body)
    inFlight.set(id, forwarding)
    try {
      const status = await forwarding
      if (status === 200) handled.add(id)
      const f = event.forwarded
      finish(
        status,
        status === 200 ? null : `forwarding to ${options.forwardTo} failed: ${f?.status ?? f?.error ?? 'no answer'}`,
      )
    } finally {
      inFlight.delete(id)
    }
  }
}

function newEvent(req: IncomingMessage): ListenerEvent {
  return {
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
}

interface Delivery {
  id: string
  signature: string
  body: Buffer
}

/** Why a request is refused, and with which status. */
interface Refusal {
  status: number
  refused: string
}

/** Reads and verifies one request, filling in its event: a verified delivery, or a refusal. */
async function check(
  req: IncomingMessage,
  event: ListenerEvent,
  keys: KeyProvider,
  maxBody: number,
): Promise<Delivery | Refusal> {
  const delivery = await receive(req, maxBody)
  if ('refused' in delivery) return delivery
  const {message, type} = readMessage(delivery.body)
  event.message = message
  event.type = type
  let result
  try {
    result = await verifyWithKeys(delivery, keys)
  } catch (error) {
    return {status: 503, refused: `cannot verify: ${(error as Error).message}`}
  }
  if (!result.valid) return {status: 400, refused: result.reason}
  event.valid = true
  event.verifiedAs = result.as
  return delivery
}

/** A POST's body and signature headers, or why it is refused before any verification. */
async function receive(req: IncomingMessage, maxBody: number): Promise<Delivery | Refusal> {
  if (req.method !== 'POST') {
    req.resume()
    return {status: 405, refused: `method ${req.method ?? '?'} not allowed: webhooks are POSTed`}
  }
  const body = await readLimited(req, maxBody)
  if (body === undefined) return {status: 413, refused: `body larger than ${maxBody} bytes`}
  const id = header(req, WEBHOOK_ID_HEADER)
  const signature = header(req, WEBHOOK_SIGNATURE_HEADER)
  if (!id || !signature)
    return {status: 400, refused: `missing header ${!id ? WEBHOOK_ID_HEADER : WEBHOOK_SIGNATURE_HEADER}`}
  return {id, signature, body}
}

/** The message for display and its type; a body that is not JSON has neither (verification says why it is refused, or accepts raw bytes someone signed). */
function readMessage(body: Buffer): Pick<ListenerEvent, 'message' | 'type'> {
  try {
    const message = treeToValue(parseJsonTree(body.toString('utf8')))
    const type = (message as {type?: unknown} | null)?.type
    return {message, type: typeof type === 'string' ? type : null}
  } catch {
    return {message: null, type: null}
  }
}

/** Forwards a verified delivery, when there is somewhere to forward to: 200, or 502 when the target did not take it. */
async function forward(
  event: ListenerEvent,
  forwardTo: string | undefined,
  req: IncomingMessage,
  body: Buffer,
): Promise<number> {
  if (!forwardTo) return 200
  event.forwarded = await postThroughNetwork(forwardTo, forwardableHeaders(req.headers), body)
  return event.forwarded.ok ? 200 : 502
}

function respond(res: ServerResponse, status: number, reason: string | null, duplicate: boolean): void {
  const body = JSON.stringify(reason ? {error: reason} : {ok: true, ...(duplicate ? {duplicate: true} : {})})
  if (!res.headersSent)
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      ...(status === 413 ? {connection: 'close'} : {}),
    })
  res.end(body)
}

/** A handler that threw: 500 when nothing was sent yet, otherwise the connection is cut. */
function answerFailure(res: ServerResponse, error: unknown): void {
  if (!res.headersSent) {
    res.writeHead(500, {'content-type': 'application/json'})
    res.end(JSON.stringify({error: String((error as Error)?.message ?? error)}))
  } else {
    res.destroy()
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
}

/** The ids handled, the oldest forgotten past `max`, so a long-running listener stays small. */
class RecentIds {
  private readonly ids = new Set<string>()
  constructor(private readonly max: number) {}

  has(id: string): boolean {
    return this.ids.has(id)
  }

  add(id: string): void {
    this.ids.add(id)
    if (this.ids.size > this.max) this.ids.delete(this.ids.values().next().value as string)
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
