import {createPublicKey, generateKeyPairSync} from 'node:crypto'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {keyFromJwks} from '../../src/webhooks/jwks.js'
import {verifyWebhook} from '../../src/webhooks/verify.js'
import {tempDir} from '../helpers/bk.js'
import {start, tokenFor, type RunningEmulator} from '../helpers/emulator.js'
import {recordingServer, type RecordingServer} from './helpers.js'

// Loosely typed on purpose: the tests check the shapes.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any

async function getJson(
  emulator: RunningEmulator,
  path: string,
  token?: string,
): Promise<{status: number; body: Loose}> {
  const res = await fetch(emulator.baseUrl + path, {headers: token ? {authorization: `Bearer ${token}`} : {}})
  return {status: res.status, body: await res.json()}
}

describe('emulator webhook delivery', () => {
  let app: RecordingServer
  let emulator: RunningEmulator | undefined
  beforeAll(async () => {
    app = await recordingServer()
  })
  afterEach(async () => {
    await emulator?.close()
    emulator = undefined
    app.requests.length = 0
  })
  afterAll(() => app.close())

  it('signs each delivery with the published key, over svc-id + "." + the json.dumps body', async () => {
    emulator = await start({webhookUrl: app.url, seed: 'empty'})
    emulator.state.events.emit('TASK_REQUEST', {business_id: 'biz_1', task_types: ['request_receipt'], note: 'façade'})
    await app.waitFor(1)
    const req = app.requests[0]!
    expect(req.body).toBe(
      '{"type": "TASK_REQUEST", "content": {"business_id": "biz_1", "task_types": ["request_receipt"], "note": "fa\\u00e7ade"}}',
    )
    const jwks = await getJson(emulator, '/.well-known/jwks.json')
    expect(jwks.status).toBe(200)
    const {key} = keyFromJwks(jwks.body, 'jwks')
    const id = req.headers['svc-id'] as string
    expect(id).toBe(emulator.state.notifications[0]?.id)
    expect(verifyWebhook({id, signature: req.headers['svc-signature'] as string, body: req.body, key})).toMatchObject({
      valid: true,
      as: 'raw',
    })
    await emulator.webhooks.idle()
    expect(emulator.state.notifications[0]).toMatchObject({status: 'sent'})
  })

  it('retries a failing delivery at 10 s, 20 s, … scaled, then succeeds; gives up with status error after 5 attempts', async () => {
    // Notification 1 fails twice then succeeds; notification 2 always fails.
    const failures = new Map<string, number>()
    app.respond = (r) => {
      const id = r.headers['svc-id'] as string
      const n = (failures.get(id) ?? 0) + 1
      failures.set(id, n)
      if (JSON.parse(r.body).content.always_fail) return 500
      return n <= 2 ? 503 : 200
    }
    emulator = await start({webhookUrl: app.url, seed: 'empty', timeScale: 0.005})
    emulator.state.events.emit('BUSINESS_CREATED', {business_id: 'biz_a'})
    emulator.state.events.emit('BUSINESS_CREATED', {business_id: 'biz_b', always_fail: true})
    await emulator.webhooks.idle()
    const [a, b] = emulator.state.notifications
    expect(a?.attempts.map((x) => x.status)).toEqual([503, 503, 200])
    expect(a?.status).toBe('sent')
    expect(b?.attempts.map((x) => x.status)).toEqual([500, 500, 500, 500, 500])
    expect(b?.status).toBe('error')
    expect(b?.attempts.map((x) => x.delayMs)).toEqual([0, 50, 100, 200, 400])
    // At the receiving end: the attempts of b arrived in order, each after at least its delay.
    const atApp = app.requests.filter((r) => r.headers['svc-id'] === b?.id).map((r) => r.at)
    expect(atApp).toHaveLength(5)
    for (let i = 1; i < atApp.length; i++)
      expect(atApp[i]! - atApp[i - 1]!).toBeGreaterThanOrEqual(50 * 2 ** (i - 1) - 5)
    expect(app.requests.filter((r) => r.headers['svc-id'] === a?.id)).toHaveLength(3)
  })

  it('retries when nothing listens at the URL, and keeps notifications pending without a URL', async () => {
    emulator = await start({webhookUrl: 'http://127.0.0.1:9/nothing', seed: 'empty', timeScale: 0.001})
    emulator.state.events.emit('BUSINESS_ACTIVATED', {business_id: 'biz_c'})
    await emulator.webhooks.idle()
    expect(emulator.state.notifications[0]?.attempts).toHaveLength(5)
    expect(emulator.state.notifications[0]?.attempts[0]?.status).toBeNull()
    expect(emulator.state.notifications[0]?.status).toBe('error')
    await emulator.close()
    emulator = await start({seed: 'empty'})
    emulator.state.events.emit('BUSINESS_ACTIVATED', {business_id: 'biz_c'})
    expect(emulator.state.notifications[0]).toMatchObject({status: 'pending', attempts: []})
  })

  it('signs with the key of options.keyFile', async () => {
    const {privateKey, publicKey} = generateKeyPairSync('rsa', {modulusLength: 2048})
    const file = join(tempDir(), 'key.pem')
    writeFileSync(file, privateKey.export({type: 'pkcs8', format: 'pem'}))
    emulator = await start({seed: 'empty', keyFile: file})
    const jwks = await getJson(emulator, '/.well-known/jwks.json')
    expect(jwks.body.keys[0].n).toBe((publicKey.export({format: 'jwk'}) as {n: string}).n)
    expect(createPublicKey({key: jwks.body.keys[0], format: 'jwk'}).equals(publicKey)).toBe(true)
  })
})

describe('GET /v0/tenant/webhook/notifications', () => {
  let emulator: RunningEmulator
  let token: string
  beforeAll(async () => {
    emulator = await start({seed: 'empty'})
    token = await tokenFor(emulator)
    const states = ['sent', 'error', 'pending', 'sent', 'error'] as const
    states.forEach((status, i) => {
      emulator.state.events.emit('BUSINESS_CREATED', {business_id: `biz_${i}`, rate: 1.5})
      emulator.state.notifications[i]!.status = status
    })
  })
  afterAll(() => emulator.close())

  it('lists records {id, datetime, notification} in creation order, paginated both ways', async () => {
    const first = await getJson(emulator, '/v0/tenant/webhook/notifications?page_size=2', token)
    expect(first.status).toBe(200)
    expect(first.body.data).toHaveLength(2)
    expect(Object.keys(first.body.data[0])).toEqual(['id', 'datetime', 'notification'])
    expect(first.body.data[0].notification).toEqual({
      type: 'BUSINESS_CREATED',
      content: {business_id: 'biz_0', rate: 1.5},
    })
    const second = await getJson(
      emulator,
      `/v0/tenant/webhook/notifications?page_size=2&page_token=${first.body.pagination.next_page_token}`,
      token,
    )
    expect(second.body.data.map((n: {id: string}) => n.id)).toEqual(
      emulator.state.notifications.slice(2, 4).map((n) => n.id),
    )
    const back = await getJson(
      emulator,
      `/v0/tenant/webhook/notifications?page_size=2&page_token=${second.body.pagination.previous_page_token}`,
      token,
    )
    expect(back.body.data.map((n: {id: string}) => n.id)).toEqual(first.body.data.map((n: {id: string}) => n.id))
  })

  it('webhook_id returns those created after it; status filters, comma-separated', async () => {
    const ids = emulator.state.notifications.map((n) => n.id)
    const after = await getJson(emulator, `/v0/tenant/webhook/notifications?webhook_id=${ids[1]}`, token)
    expect(after.body.data.map((n: {id: string}) => n.id)).toEqual(ids.slice(2))
    const errors = await getJson(emulator, '/v0/tenant/webhook/notifications?status=error,pending', token)
    expect(errors.body.data.map((n: {id: string}) => n.id)).toEqual([ids[1], ids[2], ids[4]])
    const both = await getJson(emulator, `/v0/tenant/webhook/notifications?status=error&webhook_id=${ids[1]}`, token)
    expect(both.body.data.map((n: {id: string}) => n.id)).toEqual([ids[4]])
  })

  it('answers 404 for an unknown webhook_id, 422 for a bad status or page size, 401 without a token, 403 without the scope', async () => {
    expect((await getJson(emulator, '/v0/tenant/webhook/notifications?webhook_id=msg_nope', token)).status).toBe(404)
    const bad = await getJson(emulator, '/v0/tenant/webhook/notifications?status=sent,lost', token)
    expect(bad).toMatchObject({status: 422, body: {error: expect.stringContaining('lost')}})
    expect((await getJson(emulator, '/v0/tenant/webhook/notifications?page_size=101', token)).status).toBe(422)
    expect((await getJson(emulator, '/v0/tenant/webhook/notifications')).status).toBe(401)
    const narrow = await tokenFor(emulator, {scope: 'invoice:read'})
    expect((await getJson(emulator, '/v0/tenant/webhook/notifications', narrow)).status).toBe(403)
    const scoped = await tokenFor(emulator, {scope: 'webhook:read'})
    expect((await getJson(emulator, '/v0/tenant/webhook/notifications', scoped)).status).toBe(200)
  })
})
