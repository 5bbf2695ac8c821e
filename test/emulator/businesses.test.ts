import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {start, tokenFor, type RunningEmulator} from '../helpers/emulator.js'
import {call} from './support.js'

interface Page {
  data: Array<{id: string; external_id: string; name: string; active: boolean}>
  pagination: {next_page_token: string | null; previous_page_token: string | null}
}

let emulator: RunningEmulator
let token: string
beforeAll(async () => {
  emulator = await start({seed: 'demo'})
  token = await tokenFor(emulator)
})
afterAll(() => emulator.close())

const list = (query: string, t = token) =>
  call<Page & {error?: string | null}>(emulator, 'GET', `/v0/business${query}`, {token: t})
const ids = (page: Page) => page.data.map((b) => b.id)

describe('GET /v0/business pagination', () => {
  it('walks forward to the end, then back to the start, with opaque cursors', async () => {
    const [a, b, c] = emulator.businessIds as [string, string, string]
    expect(emulator.businessIds.length).toBe(3)
    const p1 = (await list('?page_size=1')).body
    expect(ids(p1)).toEqual([a])
    expect(p1.pagination.previous_page_token).toBeNull()
    expect(p1.pagination.next_page_token).toMatch(/^[A-Za-z0-9_-]+$/)
    expect(p1.pagination.next_page_token).not.toContain(a)
    const p2 = (await list(`?page_size=1&page_token=${p1.pagination.next_page_token}`)).body
    expect(ids(p2)).toEqual([b])
    const p3 = (await list(`?page_size=1&page_token=${p2.pagination.next_page_token}`)).body
    expect(ids(p3)).toEqual([c])
    expect(p3.pagination.next_page_token).toBeNull()
    const back2 = (await list(`?page_size=1&page_token=${p3.pagination.previous_page_token}`)).body
    expect(ids(back2)).toEqual([b])
    const back1 = (await list(`?page_size=1&page_token=${back2.pagination.previous_page_token}`)).body
    expect(ids(back1)).toEqual([a])
    expect(back1.pagination.previous_page_token).toBeNull()
    expect(back1.pagination.next_page_token).not.toBeNull()
  })

  it('gives every business once on a page of 50 by default', async () => {
    const res = await list('')
    expect(res.status).toBe(200)
    expect(ids(res.body)).toEqual(emulator.businessIds)
    expect(res.body.pagination).toEqual({next_page_token: null, previous_page_token: null})
  })

  it('keeps cursors stable when a business is added between pages', async () => {
    const fresh = await start({seed: 'demo'})
    try {
      const t = await tokenFor(fresh)
      const get = (q: string) => call<Page>(fresh, 'GET', `/v0/business${q}`, {token: t})
      const p1 = (await get('?page_size=2')).body
      const seen = ids(p1)
      const created = await call(fresh, 'POST', '/_emulator/businesses', {json: {name: 'Added Between Pages'}})
      expect(created.status).toBe(201)
      const newId = created.body.data.id as string
      const p2 = (await get(`?page_size=2&page_token=${p1.pagination.next_page_token}`)).body
      // No business of page 1 repeats and none of the seeded ones vanishes.
      expect([...seen, ...ids(p2)].filter((id) => id !== newId)).toEqual(fresh.businessIds)
      expect(new Set([...seen, ...ids(p2)]).size).toBe(seen.length + ids(p2).length)
      // Going back from page 2 still gives page 1's rows in order, plus the new one if it sorts there.
      const back = (await get(`?page_size=2&page_token=${p2.pagination.previous_page_token}`)).body
      const all = (await get('?page_size=100')).body
      expect(ids(all)).toContain(newId)
      expect(ids(all)).toEqual([...ids(all)].sort())
      const before = ids(all).slice(0, ids(all).indexOf(ids(p2)[0] as string))
      expect(ids(back)).toEqual(before.slice(-2))
      expect(back.pagination.previous_page_token === null).toBe(before.length <= 2)
    } finally {
      await fresh.close()
    }
  })

  it('refuses page_size 0 and 101 with 422 and accepts 1 and 100', async () => {
    for (const size of [0, 101, -1]) {
      const res = await list(`?page_size=${size}`)
      expect(res.status).toBe(422)
      expect(res.body).toEqual({error: 'page_size must be between 1 and 100', data: {field: 'page_size', value: size}})
    }
    const notInt = await list('?page_size=ten')
    expect(notInt.status).toBe(422)
    expect(notInt.body.error).toBe('page_size must be an integer')
    for (const size of [1, 100]) expect((await list(`?page_size=${size}`)).status).toBe(200)
  })

  it('refuses a page_token reused with other filters, and a forged one', async () => {
    const p1 = (await list('?page_size=1')).body
    const scoped = await tokenFor(emulator, {business_id: emulator.businessIds[0] as string})
    const reused = await list(`?page_size=1&page_token=${p1.pagination.next_page_token}`, scoped)
    expect(reused.status).toBe(422)
    expect(reused.body).toEqual({
      error: 'page_token belongs to a query with other filters',
      data: {field: 'page_token'},
    })
    const forged = await list('?page_token=not-a-cursor')
    expect(forged.status).toBe(422)
    expect(forged.body).toEqual({error: 'Invalid page_token', data: {field: 'page_token', value: 'not-a-cursor'}})
  })
})

describe('routing errors', () => {
  it('answers 404 with the error body for an unknown path', async () => {
    const res = await call(emulator, 'GET', '/v0/nowhere', {token})
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toBe('application/json')
    expect(res.body).toEqual({error: 'No route for GET /v0/nowhere', data: null})
  })

  it('answers 405 with the error body for a known path with another method', async () => {
    const res = await call(emulator, 'DELETE', '/v0/business', {token})
    expect(res.status).toBe(405)
    expect(res.body).toEqual({error: 'Method DELETE is not allowed on /v0/business', data: null})
    const token405 = await call(emulator, 'GET', '/v0/auth/token')
    expect(token405.status).toBe(405)
  })

  it('answers 422 for a malformed JSON body', async () => {
    const res = await call(emulator, 'POST', '/_emulator/businesses', {
      body: '{"name":',
      headers: {'content-type': 'application/json'},
    })
    expect(res.status).toBe(422)
    expect(res.body.error).toMatch(/^Request body is not valid JSON/)
    expect(res.body.data).toBeNull()
  })
})
