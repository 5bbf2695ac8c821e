import {EventEmitter} from 'node:events'
import {createServer} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'

import {BkClient, type TokenSource} from '../../src/api/client.js'
import {Api} from '../../src/api/api.js'
import {
  ApiConnectionError,
  AuthenticationError,
  RequestNotBuiltError,
  ServiceUnavailableError,
  wasNotSent,
} from '../../src/api/errors.js'
import {classifyWriteFailure} from '../../src/api/outcome.js'
import {ClientCredentialsTokens} from '../../src/auth/tokens.js'
import {drop, reply, scriptedServer, type ScriptedServer} from '../helpers/scripted-server.js'
import {start, type RunningEmulator} from '../helpers/emulator.js'

const page = {data: [{id: 'biz_1'}], pagination: {next_page_token: null, previous_page_token: null}}
let server: ScriptedServer | undefined
let emulator: RunningEmulator | undefined
const clients: BkClient[] = []

function client(baseUrl: string, token?: TokenSource, debug?: (line: string) => void): BkClient {
  const c = new BkClient({baseUrl, token, retryBaseMs: 10, maxRetries: 3, debug})
  clients.push(c)
  return c
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()))
  await server?.close()
  await emulator?.close()
  server = undefined
  emulator = undefined
})

describe('retry policy', () => {
  it('retries a GET after 503 and succeeds', async () => {
    server = await scriptedServer([reply(503, {error: 'busy', data: null}, {'retry-after': '0'}), reply(200, page)])
    const res = await client(server.url).request({method: 'GET', path: '/v0/business'})
    expect(res.data).toEqual(page)
    expect(server.requests).toHaveLength(2)
  })

  it('gives up after maxRetries with a 7-exit error', async () => {
    server = await scriptedServer([reply(503, {error: 'down', data: null})])
    const err = await client(server.url)
      .request({method: 'GET', path: '/x'})
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ServiceUnavailableError)
    expect((err as ServiceUnavailableError).exitCode).toBe(7)
    expect(server.requests).toHaveLength(4)
  })

  it('retries a POST on 429 and 503, where the service did not act', async () => {
    server = await scriptedServer([
      reply(429, {error: 'slow down', data: null}, {'retry-after': '0'}),
      reply(503, {error: 'busy', data: null}),
      reply(200, {ok: true}),
    ])
    const res = await client(server.url).request({method: 'POST', path: '/x', json: [1]})
    expect(res.data).toEqual({ok: true})
    expect(server.requests).toHaveLength(3)
  })

  it('sends a prepared JSON text body byte for byte, the same on a retry', async () => {
    server = await scriptedServer([reply(503, {error: 'busy', data: null}), reply(200, {ok: true})])
    // Written as the caller wrote it: an amount's literal is not normalized by a parse and stringify.
    const jsonText = '[{"number":"B-1","lines":[{"amount":12.50}]}]'
    const trace: string[] = []
    const res = await client(server.url, undefined, (line) => trace.push(line)).request({
      method: 'POST',
      path: '/x',
      jsonText,
    })
    expect(res.data).toEqual({ok: true})
    expect(server.requests.map((r) => r.body)).toEqual([jsonText, jsonText])
    expect(server.requests[0]!.headers['content-type']).toBe('application/json')
    expect(trace.some((line) => line.includes('body [{"number":"B-1"'))).toBe(true)
  })

  it('never re-sends a POST whose connection dropped after it was sent', async () => {
    server = await scriptedServer([drop, reply(200, {ok: true})])
    const err = await client(server.url)
      .request({method: 'POST', path: '/x', json: [1]})
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ApiConnectionError)
    expect((err as ApiConnectionError).maybeSent).toBe(true)
    expect(server.requests).toHaveLength(1)
  })

  it('does not retry a POST on 502, whose outcome is unknown', async () => {
    server = await scriptedServer([reply(502, {error: 'bad gateway', data: null}), reply(200, {ok: true})])
    const err = await client(server.url)
      .request({method: 'POST', path: '/x', json: [1]})
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ServiceUnavailableError)
    expect(server.requests).toHaveLength(1)
  })

  it('re-sends a GET whose connection dropped', async () => {
    server = await scriptedServer([drop, reply(200, page)])
    const res = await client(server.url).request({method: 'GET', path: '/v0/business'})
    expect(res.data).toEqual(page)
    expect(server.requests).toHaveLength(2)
  })

  it('reports a refused connection as never sent', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const p = (probe.address() as {port: number}).port
        probe.close(() => resolve(p))
      })
    })
    const err = await client(`http://127.0.0.1:${port}`)
      .request({method: 'POST', path: '/x', json: [], maxRetries: 1})
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ApiConnectionError)
    expect((err as ApiConnectionError).maybeSent).toBe(false)
    expect((err as ApiConnectionError).code).toBe('connection_failed')
  })

  it('reports a request the HTTP client refuses as built as never sent, not retried', async () => {
    server = await scriptedServer([reply(200, page)])
    const err = await client(server.url, {get: async () => 'tok\r'})
      .request({method: 'POST', path: '/x', json: []})
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(RequestNotBuiltError)
    expect(wasNotSent(err)).toBe(true)
    expect((err as RequestNotBuiltError).message).toBe(
      'bk could not send POST /x: the HTTP client refused the request as built (invalid authorization header)',
    )
    // Nothing reached the server, and nothing was tried again.
    expect(server.requests).toHaveLength(0)
    expect(classifyWriteFailure(err)).toMatchObject({kind: 'not-acted', retry: false})
  })

  it('names the field path when a response does not match its schema', async () => {
    server = await scriptedServer([
      reply(200, {data: [{id: 'nope'}], pagination: {next_page_token: null, previous_page_token: null}}),
    ])
    const api = new Api(client(server.url))
    const err = await api.businesses
      .list()
      .first()
      .catch((e: unknown) => e)
    expect(String((err as Error).message)).toContain('data.0.id')
  })
})

describe('tokens against the emulator', () => {
  it('renews an expired token before using it', async () => {
    // One clock for bk and the service, moved past the token's second of life instead of waited.
    let now = Date.now()
    const clock = () => now
    emulator = await start({tokenTtlSeconds: 1, clock})
    const em = emulator
    const tokenApi = new Api(client(em.baseUrl))
    const tokens = new ClientCredentialsTokens(
      () => tokenApi.auth.token({clientId: em.clientId, clientSecret: em.clientSecret}),
      undefined,
      clock,
    )
    const trace: string[] = []
    const api = new Api(client(em.baseUrl, tokens, (line) => trace.push(line)))
    const first = await tokens.get()
    await api.businesses.list().first()
    now += 1_100
    await api.businesses.list().first()
    const second = await tokens.get()
    expect(second).not.toBe(first)
    expect(em.state.tokens.size).toBe(2)
    // Renewed before the request, not after the service refused the expired token: no 401 answer
    // and no renewal on one (the trace's bodies and timings hold digits that may read "401").
    expect(trace.filter((line) => /^(← 401 | {2}401: )/.test(line))).toEqual([])
  })

  it('renews once on 401 and retries once', async () => {
    emulator = await start()
    const em = emulator
    const tokenApi = new Api(client(em.baseUrl))
    const tokens = new ClientCredentialsTokens(
      () => tokenApi.auth.token({clientId: em.clientId, clientSecret: em.clientSecret}),
      undefined,
    )
    const api = new Api(client(em.baseUrl, tokens))
    await api.businesses.list().first()
    em.state.tokens.clear() // the service forgets every token: the next call meets a 401
    const res = await api.businesses.list().first()
    expect(res.data.length).toBeGreaterThan(0)
    expect(em.state.tokens.size).toBe(1)
  })

  it('stops after one renewal when the service keeps answering 401', async () => {
    emulator = await start()
    let renewals = 0
    const refused: TokenSource = {
      get: async () => 'emu_not-a-token',
      renew: async () => (renewals++, 'emu_still-not-a-token'),
    }
    const err = await new Api(client(emulator.baseUrl, refused)).businesses
      .list()
      .first()
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(AuthenticationError)
    expect((err as AuthenticationError).exitCode).toBe(3)
    expect(renewals).toBe(1)
  })
})

describe('waiting between retries', () => {
  it('leaves no abort listener behind on a signal shared by many requests', async () => {
    server = await scriptedServer([reply(503, {error: 'busy', data: null}, {'retry-after': '0'}), reply(200, page)])
    const controller = new AbortController()
    const c = client(server.url)
    for (let i = 0; i < 3; i++) await c.request({method: 'GET', path: '/v0/business', signal: controller.signal})
    expect(server.requests.length).toBe(4) // one 503 and its retry, then two plain requests
    // undici keeps one listener of its own on the signal; the retry waits must add none.
    expect(EventEmitter.getEventListeners(controller.signal, 'abort').length).toBeLessThanOrEqual(1)
  })
})
