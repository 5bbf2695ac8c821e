/**
 * `bk webhooks listen`: a local receiver. Every POST is verified; an invalid one is answered
 * 400 and reported; a valid one is answered 200, reported once per svc-id (a redelivery of an
 * id already handled is answered 200 and reported as a duplicate), and, with a forward URL,
 * posted there. With forwarding, the answer follows the target: 200 when it answered 2xx, 502
 * otherwise, so that the service retries and the notification is not marked handled. Bad
 * requests (oversized, not JSON, missing headers, other methods) are answered and reported;
 * nothing a client sends stops the listener.
 *
 * What is forwarded is the text that was signed: the body as received when that verified, else
 * the re-serialisation that did (src/webhooks/verify.ts), never bytes the signature does not
 * cover. A body with a key twice in one object is refused.
 *
 * Memory stays bounded whatever clients send: a body larger than the limit is refused as soon as
 * its length says so, or read no further than the limit; and at most `maxConcurrent` requests
 * are read, verified and forwarded at once (the others wait, unread, their connections held back
 * by TCP), so the bodies held never exceed maxConcurrent × the limit; and at most MAX_CONNECTIONS
 * connections are open. bench/webhooks.bench.js measures it: 1,000 concurrent 1 MiB posts keep
 * the process under 300 MB.
 *
 * A replayed delivery (`bk webhooks replay --forward-to`: header `bk-replay: 1`, no signature)
 * is refused unless the listener was started with `acceptReplays`, and then accepted from a
 * loopback address only: on this machine, bk itself replayed it from the authenticated API.
 */
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {finished} from 'node:stream/promises'

import {postThroughNetwork} from '../net/post.js'
import type {PostResult} from '../shared/post-body.js'
import {DeliveryMemory} from './delivery-memory.js'
import {forwardableHeaders, REPLAY_HEADER} from './forward.js'
import {verifyWithKeys, type KeyProvider} from './keys.js'
import {firstDuplicateKey, parseJsonTree, treeToExactValue} from '../shared/exact-json.js'
import type {VerifiedAs} from './verify.js'
import {WEBHOOK_ID_HEADER, WEBHOOK_SIGNATURE_HEADER} from '../shared/spec.js'
import {Gate} from '../shared/gate.js'

export const MAX_BODY_BYTES = 1024 * 1024
/** A body declared too long is still read (and dropped) before the 413, up to this many times the limit. */
const DRAIN_FACTOR = 8
/** Requests read, verified and forwarded at once; the memory bound is this times MAX_BODY_BYTES. */
export const MAX_CONCURRENT = 16
/**
 * Open connections at once: each one waiting its turn still costs its socket's buffers (about
 * 0.1 MB), so their number is bounded too; a connection past it is closed at once, and the
 * service retries the delivery.
 */
export const MAX_CONNECTIONS = 1024

export interface ListenerEvent {
  receivedAt: string
  svcId: string | null
  type: string | null
  valid: boolean
  /** How it was accepted: the signature over the raw body or its Python json.dumps re-serialisation, or as a replay. */
  verifiedAs: VerifiedAs | 'replay' | null
  /** `live` (a delivery), `replay` (an unsigned replay, with acceptReplays), `catch-up` (from the notifications API). */
  source: 'live' | 'replay' | 'catch-up'
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
  maxConcurrent?: number
  /** Accept unsigned replays (`bk-replay: 1`) from loopback addresses. */
  acceptReplays?: boolean
  /** The ids handled (and the last one); in memory for a day when not given. */
  memory?: DeliveryMemory
  /** Live deliveries wait for this before they are forwarded (a catch-up goes first). */
  ready?: Promise<void> | undefined
  onEvent(event: ListenerEvent): void
  /** Forwarding started (`failing`) or stopped failing: called on each change only. */
  onForwardingChange?(failing: boolean, detail: string): void
}

export interface RunningListener {
  url: string
  port: number
  memory: DeliveryMemory
  /** Forwards one message the way live deliveries are (catch-up), reporting it and remembering it. */
  forward: Forwarder
  close(): Promise<void>
}

export type Forwarder = (
  id: string,
  body: string,
  headers: Record<string, string>,
  event: ListenerEvent,
) => Promise<number>

export async function startListener(options: ListenerOptions): Promise<RunningListener> {
  const host = options.host ?? '127.0.0.1'
  const memory = options.memory ?? (await DeliveryMemory.open(undefined))
  const forwarder = makeForwarder(options, memory)
  const handle = receiver(options, memory, forwarder)
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => answerFailure(res, error))
  })
  server.maxConnections = MAX_CONNECTIONS
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n')
    else socket.destroy()
  })
  await listen(server, options.port, host)
  const {port} = server.address() as AddressInfo
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    memory,
    forward: forwarder,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/**
 * Forwarding of one verified message, shared by live deliveries and the catch-up: deduplicated by
 * svc-id (a copy arriving while the first is forwarded gets its answer), remembered once the
 * target took it, and every change between working and failing reported once.
 */
function makeForwarder(options: ListenerOptions, memory: DeliveryMemory): Forwarder {
  const inFlight = new Map<string, Promise<number>>()
  let failing = false
  const report = (ok: boolean, detail: string) => {
    if (ok === !failing) return
    failing = !ok
    options.onForwardingChange?.(failing, detail)
  }
  return async (id, body, headers, event) => {
    if (memory.has(id)) {
      event.duplicate = true
      return 200
    }
    const pending = inFlight.get(id)
    if (pending) {
      event.duplicate = true
      return pending
    }
    const forwarding = (async () => {
      if (!options.forwardTo) {
        await memory.add(id)
        return 200
      }
      // On disk before the target sees it: a kill during the forward leaves it to the catch-up.
      await memory.forwarding(id)
      event.forwarded = await postThroughNetwork(options.forwardTo, headers, Buffer.from(body, 'utf8'))
      const f = event.forwarded
      report(f.ok, f.ok ? 'ok' : f.status !== null ? `answered ${f.status}` : `no answer (${f.error ?? 'unknown'})`)
      if (!f.ok) return 502
      await memory.add(id)
      return 200
    })()
    inFlight.set(id, forwarding)
    try {
      return await forwarding
    } finally {
      inFlight.delete(id)
    }
  }
}

/**
 * The request handler. Each request is answered once and reported once through `finish`, except
 * a valid delivery of a type left out by `options.events`, which is acknowledged and not reported.
 */
function receiver(
  options: ListenerOptions,
  memory: DeliveryMemory,
  forward: Forwarder,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const maxBody = options.maxBodyBytes ?? MAX_BODY_BYTES
  const gate = new Gate(options.maxConcurrent ?? MAX_CONCURRENT)

  return async (req, res) => {
    const receivedAt = Date.now()
    const event = newEvent(req, 'live')
    const finish = (status: number, reason: string | null): void => {
      event.status = status
      event.reason = reason
      respond(res, status, reason, event.duplicate)
      options.onEvent(event)
    }
    const early = refuseEarly(req, maxBody)
    if (early) {
      await drainDeclared(req, maxBody * DRAIN_FACTOR)
      return finish(early.status, early.refused)
    }
    const release = await gate.enter()
    try {
      const delivery = await check(req, event, options, maxBody, receivedAt)
      if ('refused' in delivery) return finish(delivery.status, delivery.refused)
      // A type left out by --events: acknowledged, so that the service stops sending it, and not reported.
      if (options.events && (!event.type || !options.events.includes(event.type))) return respond(res, 200, null, false)
      await options.ready
      const headers = forwardableHeaders(req.headers)
      const status = await forward(delivery.id, delivery.text, headers, event)
      const f = event.forwarded
      finish(
        status,
        status === 200
          ? null
          : f
            ? `forwarding to ${options.forwardTo} failed: ${f.status ?? f.error ?? 'no answer'}`
            : 'the first copy of this delivery failed',
      )
    } finally {
      release()
    }
  }
}

function newEvent(req: IncomingMessage | undefined, source: ListenerEvent['source']): ListenerEvent {
  return {
    receivedAt: new Date().toISOString(),
    svcId: (req && header(req, WEBHOOK_ID_HEADER)) ?? null,
    type: null,
    valid: false,
    verifiedAs: null,
    source,
    reason: null,
    status: 400,
    duplicate: false,
    forwarded: null,
    message: null,
  }
}

/** An event for a message the catch-up forwards. */
export function catchUpEvent(id: string, text: string): ListenerEvent {
  const event = newEvent(undefined, 'catch-up')
  event.svcId = id
  event.valid = true
  Object.assign(event, readMessage(text))
  return event
}

/** A delivery accepted: its id and the text to forward (what was signed, or the replayed body). */
interface Accepted {
  id: string
  text: string
}

/** Why a request is refused, and with which status. */
interface Refusal {
  status: number
  refused: string
}

/** Refusals that need no body: another method, a declared length over the limit. */
function refuseEarly(req: IncomingMessage, maxBody: number): Refusal | undefined {
  if (req.method !== 'POST')
    return {status: 405, refused: `method ${req.method ?? '?'} not allowed: webhooks are POSTed`}
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > maxBody)
    return {status: 413, refused: `body larger than ${maxBody} bytes`}
  return undefined
}

/**
 * Reads and drops the body of a request refused before reading it, when its declared length is
 * within `bound`, so that the answer comes after the sender has written it all: answering (with
 * `connection: close`) while the sender still writes makes it see a reset, not the 413. A longer
 * declared body is answered at once, without reading it.
 */
async function drainDeclared(req: IncomingMessage, bound: number): Promise<void> {
  req.resume()
  const declared = Number(req.headers['content-length'])
  if (!(declared > 0 && declared <= bound)) return
  try {
    await finished(req)
  } catch {
    // The sender went away: nobody to answer, and `respond` writes to a closed socket harmlessly.
  }
}

/** Reads and checks one request, filling in its event: an accepted delivery, or a refusal. */
async function check(
  req: IncomingMessage,
  event: ListenerEvent,
  options: ListenerOptions,
  maxBody: number,
  receivedAt: number,
): Promise<Accepted | Refusal> {
  const body = await readLimited(req, maxBody)
  if (body === undefined) return {status: 413, refused: `body larger than ${maxBody} bytes`}
  const id = header(req, WEBHOOK_ID_HEADER)
  const signature = header(req, WEBHOOK_SIGNATURE_HEADER)
  if (id && !signature && header(req, REPLAY_HEADER) === '1') return acceptReplay(req, event, options, id, body)
  // Shown for a refused body too, when it is small enough to read for display.
  Object.assign(event, body.length <= DISPLAY_BYTES ? readMessage(body.toString('utf8')) : {type: typeOf(body)})
  if (!id || !signature)
    return {status: 400, refused: `missing header ${!id ? WEBHOOK_ID_HEADER : WEBHOOK_SIGNATURE_HEADER}`}
  let result
  try {
    result = await verifyWithKeys({id, signature, body}, options.keys, receivedAt)
  } catch (error) {
    return {status: 503, refused: `cannot verify: ${(error as Error).message}`}
  }
  if (!result.valid) return {status: 400, refused: result.reason}
  event.valid = true
  event.verifiedAs = result.as
  // What is shown, filtered and forwarded is what was signed.
  Object.assign(event, readMessage(result.signedBody))
  return {id, text: result.signedBody}
}

/** An unsigned replay: only with acceptReplays, only from this machine, only JSON without repeated keys. */
function acceptReplay(
  req: IncomingMessage,
  event: ListenerEvent,
  options: ListenerOptions,
  id: string,
  body: Buffer,
): Accepted | Refusal {
  event.source = 'replay'
  Object.assign(event, readMessage(body.toString('utf8')))
  if (!options.acceptReplays)
    return {
      status: 400,
      refused: `an unsigned replay (${REPLAY_HEADER}: 1): this listener takes signed deliveries only; start it with --accept-replays to take replays from this machine`,
    }
  const from = req.socket.remoteAddress ?? ''
  if (!isLoopbackAddress(from))
    return {status: 403, refused: `a replay from ${from}: replays are accepted from loopback only`}
  const text = body.toString('utf8')
  try {
    const duplicate = firstDuplicateKey(parseJsonTree(text))
    if (duplicate) return {status: 400, refused: `the replayed body holds the key "${duplicate.key}" twice`}
  } catch {
    return {status: 400, refused: 'the replayed body is not JSON'}
  }
  event.valid = true
  event.verifiedAs = 'replay'
  return {id, text}
}

function isLoopbackAddress(address: string): boolean {
  const a = address.replace(/^::ffff:/, '')
  return a === '::1' || /^127\./.test(a)
}

/** Bodies up to this size are parsed for display even when refused; larger ones show their type only. */
const DISPLAY_BYTES = 64 * 1024

/** The `type` near the start of a large body, for the report of a refusal (not trusted for anything else). */
function typeOf(body: Buffer): string | null {
  return /"type"\s*:\s*"([A-Za-z0-9_]{1,64})"/.exec(body.subarray(0, 4096).toString('utf8'))?.[1] ?? null
}

/** The message for display and its type; a body that is not JSON has neither. */
function readMessage(text: string): Pick<ListenerEvent, 'message' | 'type'> {
  try {
    const message = treeToExactValue(parseJsonTree(text), Number)
    const type = (message as {type?: unknown} | null)?.type
    return {message, type: typeof type === 'string' ? type : null}
  } catch {
    return {message: null, type: null}
  }
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

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name]
  return (Array.isArray(v) ? v[0] : v) || undefined
}

/** The body, or undefined once it grows past `max` (the rest is drained, not kept). */
async function readLimited(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length'])
  // With a length (Node holds the body to it), one buffer of that size: a body is held once, not as chunks and a copy.
  const whole =
    Number.isInteger(declared) && declared >= 0 && declared <= max ? Buffer.allocUnsafe(declared) : undefined
  const chunks: Buffer[] = []
  let size = 0
  let tooBig = false
  for await (const chunk of req) {
    const c = chunk as Buffer
    if (tooBig) continue
    if (size + c.length > (whole ? whole.length : max)) {
      tooBig = true
      chunks.length = 0
      continue
    }
    if (whole) c.copy(whole, size)
    else chunks.push(c)
    size += c.length
  }
  if (tooBig) return undefined
  return whole ? whole.subarray(0, size) : Buffer.concat(chunks)
}
