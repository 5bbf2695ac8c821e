/**
 * startEmulator(): the emulated service on a loopback port. Every request goes through latency,
 * fault injection, the router and the spec's error body; the state is in `emulator.state`.
 */
import {createServer, STATUS_CODES, type IncomingMessage, type ServerResponse} from 'node:http'
import {createServer as createHttpsServer} from 'node:https'
import type {AddressInfo} from 'node:net'
import type {Duplex} from 'node:stream'

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
  const state = new EmulatorState(options.faultSeed)
  state.now = options.clock
  // A damaged state file throws StateFileError here: the emulator does not start over silently.
  const saved = options.stateFile ? await StateStore.load(options.stateFile) : undefined
  let extras: SavedExtras | undefined
  if (saved && options.stateFile) extras = StateStore.restore(options.stateFile, state, saved)
  else seedState(state, options)
  state.clients.set(options.clientId, options.clientSecret)
  const webhooks = new WebhookHub(state, options, extras?.signingKey ?? undefined)
  if (!options.webhookUrl && extras?.webhookUrl) webhooks.url = extras.webhookUrl
  state.events = webhooks
  if (!saved) {
    for (const {label, set} of options.fixtures ?? []) {
      try {
        applyFixtures(state, set)
      } catch (error) {
        if (error instanceof FixtureError) throw new FixtureError(error.problems, label)
        throw error
      }
    }
  }
  const businessIds = [...state.businesses.keys()]
  const store = options.stateFile
    ? new StateStore(options.stateFile, state, async () => ({
        webhookUrl: webhooks.url ?? null,
        signingKey: await webhooks.signer.pem(),
      }))
    : undefined
  if (store && !saved) await store.save()
  if (store) webhooks.onChange = () => void store.save().catch(() => {})
  const router = new Router()
  const faults = createFaultPlan(options)
  const context = {router, state, options, faults, webhooks}
  registerRoutes(context)

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

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Undefined for a request target no URL can be made of (`http://[`): answered 400 below.
    const url = URL.parse(req.url ?? '/', 'http://emulator')
    let reply: Reply
    const fault = url ? faults.next(url.pathname) : undefined
    try {
      const rawBody = await readBody(req)
      if (!url) throw new HttpError(400, 'The request target is not a path', {target: req.url})
      if (options.latencyMs > 0) await new Promise((r) => setTimeout(r, options.latencyMs))
      if (fault === 'reset-before') return void req.socket.destroy()
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
      reply = await handler(ctx)
      // A change is on disk before its answer leaves (with --state).
      if (store && ctx.method !== 'GET' && ctx.method !== 'HEAD') await store.save()
    } catch (error) {
      reply =
        error instanceof HttpError
          ? {status: error.status, body: error.body(), headers: error.headers}
          : {status: 500, body: {error: 'Internal error', data: String((error as Error)?.message ?? error)}}
    }
    // The request was handled and its effects kept; the answer never arrives.
    if (fault === 'reset-after') return void req.socket.destroy()
    if (fault === 'commit-5xx') {
      const status = faults.commitStatus()
      reply = {
        status,
        body: {
          error: status === 500 ? 'Internal error' : status === 502 ? 'Bad gateway' : 'Gateway timeout',
          data: null,
        },
      }
    }
    const body =
      reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body)
    res.writeHead(reply.status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      ...reply.headers,
    })
    res.end(body)
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => resolve())
  }).catch(async (error: unknown) => {
    await certificates?.remove()
    throw error
  })
  const {port} = server.address() as AddressInfo
  const host = options.host.includes(':') ? `[${options.host}]` : options.host
  return {
    baseUrl: `${certificates ? 'https' : 'http'}://${host}:${port}`,
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
