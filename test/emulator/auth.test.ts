import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {start, type RunningEmulator} from '../helpers/emulator.js'
import {call, credentials} from './support.js'

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

async function token(form: Record<string, string> = {}): Promise<string> {
  const res = await call(emulator, 'POST', '/v0/auth/token', {form: credentials(emulator, form)})
  expect(res.status).toBe(200)
  return res.body.access_token as string
}

describe('POST /v0/auth/token', () => {
  it('issues a bearer token with its lifetime for form-encoded client credentials', async () => {
    const res = await call(emulator, 'POST', '/v0/auth/token', {form: credentials(emulator)})
    expect(res.status).toBe(200)
    expect(res.body).toEqual({access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600})
    expect(emulator.state.tokens.has(res.body.access_token)).toBe(true)
  })

  it('accepts only a form-encoded body', async () => {
    const res = await call(emulator, 'POST', '/v0/auth/token', {json: credentials(emulator)})
    expect(res.status).toBe(422)
    expect(res.body).toEqual({
      error: expect.stringContaining('application/x-www-form-urlencoded'),
      data: {content_type: 'application/json'},
    })
  })

  it('answers 401 with the error body for an unknown client or a wrong secret', async () => {
    for (const form of [
      {client_id: 'nobody', client_secret: emulator.clientSecret},
      {client_id: emulator.clientId, client_secret: 'wrong'},
    ]) {
      const res = await call(emulator, 'POST', '/v0/auth/token', {form})
      expect(res.status).toBe(401)
      expect(res.body).toEqual({error: 'Invalid client credentials', data: null})
    }
  })

  it('answers 422 naming the missing fields', async () => {
    for (const form of [{client_id: emulator.clientId}, {client_secret: emulator.clientSecret}, {}]) {
      const res = await call(emulator, 'POST', '/v0/auth/token', {form})
      expect(res.status).toBe(422)
      expect(res.body.error).toContain('client_id and client_secret are required')
      expect(res.body.data).toEqual({fields: ['client_id', 'client_secret']})
    }
  })

  it('answers 404 with the error body for a token scoped to an unknown business', async () => {
    const res = await call(emulator, 'POST', '/v0/auth/token', {form: credentials(emulator, {business_id: 'biz_nope'})})
    expect(res.status).toBe(404)
    expect(res.body).toEqual({error: 'Business biz_nope not found', data: {business_id: 'biz_nope'}})
  })

  it('refuses a scope not written <resource>:<action>', async () => {
    const res = await call(emulator, 'POST', '/v0/auth/token', {
      form: credentials(emulator, {scope: 'business:read everything'}),
    })
    expect(res.status).toBe(422)
    expect(res.body.data).toEqual({scope: ['everything']})
  })
})

describe('bearer tokens on the API', () => {
  it('answers 401 without a token or with an unknown one', async () => {
    for (const t of [undefined, 'emu_not_a_token']) {
      const res = await call(emulator, 'GET', '/v0/business', t === undefined ? {} : {token: t})
      expect(res.status).toBe(401)
      expect(res.body).toEqual({error: expect.any(String), data: null})
    }
  })

  it('a scope-limited token gets 403 without the scope and 200 with it', async () => {
    const without = await call(emulator, 'GET', '/v0/business', {
      token: await token({scope: 'bill:create journal_entry:create'}),
    })
    expect(without.status).toBe(403)
    expect(without.body).toEqual({
      error: 'Token lacks the scope business:read',
      data: {required_scope: 'business:read'},
    })
    const withScope = await call(emulator, 'GET', '/v0/business', {
      token: await token({scope: 'bill:create business:read'}),
    })
    expect(withScope.status).toBe(200)
    expect(withScope.body.data.length).toBe(emulator.businessIds.length)
  })

  it('a business-scoped token gets 403 on another business and 200 on its own', async () => {
    const [mine, other] = emulator.businessIds as [string, string]
    const scoped = await token({business_id: mine})
    const denied = await call(emulator, 'GET', `/v0/business/${other}/invoice`, {token: scoped})
    expect(denied.status).toBe(403)
    expect(denied.body).toEqual({error: `Token is limited to business ${mine}`, data: {business_id: other}})
    const allowed = await call(emulator, 'GET', `/v0/business/${mine}/invoice?page_size=1`, {token: scoped})
    expect(allowed.status).toBe(200)
    const listed = await call(emulator, 'GET', '/v0/business', {token: scoped})
    expect(listed.body.data.map((b: {id: string}) => b.id)).toEqual([mine])
  })

  it('answers 404 with the error body for an unknown business in the path', async () => {
    const res = await call(emulator, 'GET', '/v0/business/biz_missing/invoice', {token: await token()})
    expect(res.status).toBe(404)
    expect(res.body).toEqual({error: 'Business biz_missing not found', data: {business_id: 'biz_missing'}})
  })
})

describe('token lifetime', () => {
  it('honours expires_in: a token is refused with 401 once it has expired', async () => {
    let now = Date.now()
    const shortLived = await start({tokenTtlSeconds: 1, clock: () => now})
    try {
      const res = await call(shortLived, 'POST', '/v0/auth/token', {form: credentials(shortLived)})
      expect(res.body.expires_in).toBe(1)
      const t = res.body.access_token as string
      expect((await call(shortLived, 'GET', '/v0/business', {token: t})).status).toBe(200)
      now += 1_100 // the emulator's clock, moved past the token's second of life
      const expired = await call(shortLived, 'GET', '/v0/business', {token: t})
      expect(expired.status).toBe(401)
      expect(expired.body).toEqual({error: 'Access token expired', data: null})
    } finally {
      await shortLived.close()
    }
  })
})
