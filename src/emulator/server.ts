/**
 * startEmulator(): the emulated service on a loopback port. Every request goes through latency,
 * fault injection, the router and the spec's error body; the state is in `emulator.state`.
 */
import {createServer, STATUS_CODES, type IncomingMessage, type ServerResponse} from 'node:http'
import {createServer as createHttpsServer} from 'node:https'
import type {AddressInfo, Server} from 'node:net'
import type {Duplex} from 'node:stream'

import {hostToConnect} from '../shared/listen-address.js'
import {createFaultPlan, type FaultPlan} from './faults.js'
import {applyFixtures, FixtureError} from './fixtures.js'
import {HttpError, readBody, type Reply} from './http.js'
import {resolveOptions, type EmulatorOptions, type ResolvedEmulatorOptions} from './options.js'
import {Router} from './router.js'
import {registerRoutes} from './routes/index.js'
import {StateStore, type SavedExtras} from './persist.js'
import {seedState} from './seed.js'
import {EmulatorState} from './state.js'
import type {RequestContext} from './types.js'
import {WebhookHub} from './webhooks/hub.js'

export interface RunningEmulator {
  /** Where a client on this machine reaches it: loopback when it listens on every address. */
  baseUrl: string
  /** With https (options.tls): the PEM file of the authority that signed its certificate. */
  caFile?: string | undefined
  clientId: string
  clientSecret: string
  businessIds: string[]
  state: EmulatorState
  options: ResolvedEmulatorOptions
  faults: FaultPlan
  /** Webhook signing and delivery; `idle()` resolves when no delivery is pending. */
  webhooks: WebhookHub
  /** With a state file: whether the data came from it (then no seed and no fixtures were applied). */
  restored: boolean
  close(): Promise<void>
}

export async function startEmulator(input: EmulatorOptions = {}): Promise<RunningEmulator> {
  const options = resolveOptions(input)
  const {state, saved, extras} = await openState(options)
  const webhooks = new WebhookHub(state, options, extras?.signingKey ?? undefined)
  // A listener's registration the state file kept: it leaves as it would have before the restart.
  if (!options.webhookUrl && extras?.webhookUrl) webhooks.register(extras.webhookUrl)
  state.events = webhooks
  if (!saved) applyFixtureSets(state, options)
  const businessIds = [...state.businesses.keys()]
  const store = await openStore(options, state, webhooks, saved !== undefined)
  const router = new Router()
  const faults = createFaultPlan(options)
  registerRoutes({router, state, options, faults, webhooks})

  const handle = requestHandler({router, options, faults, store})
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch(() => res.destroy())
  }
  const certificates = options.tls
    ? await import('./tls.js').then(({makeCertificates}) =>
        makeCertificates([options.host, ...(options.tls?.hosts ?? [])]),
      )
    : undefined
  const server = certificates
    ? createHttpsServer({key: certificates.key, cert: certificates.cert}, listener)
    : createServer(listener)
  server.keepAliveTimeout = 15_000
  server.on('clientError', answerMalformed)
  await listen(server, options).catch(async (error: unknown) => {
    await certificates?.remove()
    throw error
  })
  const {port} = server.address() as AddressInfo
  return {
    baseUrl: `${certificates ? 'https' : 'http'}://${hostToConnect(options.host)}:${port}`,
    caFile: certificates?.caFile,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    businessIds,
    state,
    options,
    faults,
    webhooks,
    restored: saved !== undefined,
    close: async () => {
      await webhooks.close()
      await store?.save().catch(() => {})
      await new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
      await certificates?.remove()
    },
  }
}

/**
 * The state the emulator starts with: the state file's when there is one (then no seed), else
 * the seed data; the configured client added either way.
 */
async function openState(options: ResolvedEmulatorOptions): Promise<{
  state: EmulatorState
  saved: Awaited<ReturnType<typeof StateStore.load>> | undefined
  extras: SavedExtras | undefined
}> {
  const state = new EmulatorState(options.faultSeed)
  state.now = options.clock
  // A damaged state file throws StateFileError here: the emulator does not start over silently.
  const saved = options.stateFile ? await StateStore.load(options.stateFile) : undefined
  let extras: SavedExtras | undefined
  if (saved && options.stateFile) extras = StateStore.restore(options.stateFile, state, saved)
  else seedState(state, options)
  state.clients.set(options.clientId, options.clientSecret)
  return {state, saved, extras}
}

/** Applies each --fixtures set in turn; a set's problems are reported under its label. */
function applyFixtureSets(state: EmulatorState, options: ResolvedEmulatorOptions): void {
  for (const {label, set} of options.fixtures ?? []) {
    try {
      applyFixtures(state, set)
    } catch (error) {
      if (error instanceof FixtureError) throw new FixtureError(error.problems, label)
      throw error
    }
  }
}

/**
 * With --state: the store that keeps the state file current, written once at start when the
 * state is new, and again whenever the webhook settings change.
 */
async function openStore(
  options: ResolvedEmulatorOptions,
  state: EmulatorState,
  webhooks: WebhookHub,
  restored: boolean,
): Promise<StateStore | undefined> {
  if (!options.stateFile) return undefined
  const store = new StateStore(options.stateFile, state, async () => ({
    webhookUrl: webhooks.url ?? null,
    signingKey: await webhooks.signer.pem(),
  }))
  if (!restored) await store.save()
  webhooks.onChange = () => void store.save().catch(() => {})
  return store
}

interface HandlerParts {
  router: Router
  options: ResolvedEmulatorOptions
  faults: FaultPlan
  store: StateStore | undefined
}

/** Each request: its fault drawn, latency, the route's reply (or the spec's error body), sent. */
function requestHandler(parts: HandlerParts): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    // Undefined for a request target no URL can be made of (`http://[`): answered 400 below.
    const url = URL.parse(req.url ?? '/', 'http://emulator')
    const fault = url ? parts.faults.next(url.pathname) : undefined
    const reply = await routeReply(parts, req, url, fault)
    // The request was handled and its effects kept; the answer never arrives.
    if (reply === 'reset' || fault === 'reset-after') return void req.socket.destroy()
    send(res, fault === 'commit-5xx' ? commitFailure(parts.faults.commitStatus()) : reply)
  }
}

/** The route's reply to a request, or the error body it ends in; 'reset' when the fault drops it unread. */
async function routeReply(
  {router, options, store}: HandlerParts,
  req: IncomingMessage,
  url: URL | null,
  fault: ReturnType<FaultPlan['next']> | undefined,
): Promise<Reply | 'reset'> {
  try {
    const rawBody = await readBody(req)
    if (!url) throw new HttpError(400, 'The request target is not a path', {target: req.url})
    if (options.latencyMs > 0) await new Promise((r) => setTimeout(r, options.latencyMs))
    if (fault === 'reset-before') return 'reset'
    if (fault === '503' || fault === '429') {
      throw new HttpError(
        Number(fault),
        fault === '503' ? 'Service temporarily unavailable' : 'Too many requests',
        null,
        {'retry-after': String(options.retryAfterSeconds)},
      )
    }
    const {handler, params} = router.match(req.method ?? 'GET', url.pathname)
    const ctx: RequestContext = {
      method: req.method ?? 'GET',
      path: url.pathname,
      params,
      query: url.searchParams,
      headers: req.headers,
      rawBody,
    }
    const reply = await handler(ctx)
    // A change is on disk before its answer leaves (with --state).
    if (store && ctx.method !== 'GET' && ctx.method !== 'HEAD') await store.save()
    return reply
  } catch (error) {
    return error instanceof HttpError
      ? {status: error.status, body: error.body(), headers: error.headers}
      : {status: 500, body: {error: 'Internal error', data: String((error as Error)?.message ?? error)}}
  }
}

/** The answer a commit-5xx fault gives instead of the route's: the change was made all the same. */
function commitFailure(status: number): Reply {
  const error = status === 500 ? 'Internal error' : status === 502 ? 'Bad gateway' : 'Gateway timeout'
  return {status, body: {error, data: null}}
}

function send(res: ServerResponse, reply: Reply): void {
  const body = reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body)
  res.writeHead(reply.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...reply.headers,
  })
  res.end(body)
}

function listen(server: Server, options: ResolvedEmulatorOptions): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => resolve())
  })
}

/**
 * A request Node's HTTP parser refuses (an unknown method, a malformed request line or header)
 * never reaches the router: it is answered here in the spec's error shape instead of Node's bare
 * 400, and the connection closed, since the rest of its bytes cannot be trusted.
 */
function answerMalformed(error: NodeJS.ErrnoException & {rawPacket?: Buffer}, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy()
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400
  const body = JSON.stringify({error: `Malformed HTTP request (${error.code ?? 'parse error'})`, data: null})
  // The answer to a HEAD request has no body, even when the rest of the request was garbled.
  const head = error.rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD '
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${head ? '' : body}`,
  )
}
