/**
 * startEmulator(): the emulated service on a loopback port. Every request goes through latency,
 * fault injection, the router and the spec's error body; the state is in `emulator.state`.
 */
import {createServer, type IncomingMessage, type ServerResponse} from 'node:http'
import {createServer as createHttpsServer} from 'node:https'
import type {AddressInfo} from 'node:net'

import {createFaultPlan, type FaultPlan} from './faults.js'
import {HttpError, readBody, type Reply} from './http.js'
import {resolveOptions, type EmulatorOptions, type ResolvedEmulatorOptions} from './options.js'
import {Router} from './router.js'
import {registerRoutes} from './routes/index.js'
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
  close(): Promise<void>
}

export async function startEmulator(input: EmulatorOptions = {}): Promise<RunningEmulator> {
  const options = resolveOptions(input)
  const state = new EmulatorState(options.faultSeed)
  state.clients.set(options.clientId, options.clientSecret)
  const businessIds = seedState(state, options)
  const webhooks = new WebhookHub(state, options)
  state.events = webhooks
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

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://emulator')
    let reply: Reply
    const fault = faults.next(url.pathname)
    try {
      const rawBody = await readBody(req)
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
    close: async () => {
      await webhooks.close()
      await new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
      await certificates?.remove()
    },
  }
}
