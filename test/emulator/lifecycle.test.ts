import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {EVENT_FIELDS, EVENT_TYPES, TASK_TYPES} from '../../src/emulator/events.js'
import {start, tokenFor, type RunningEmulator} from '../helpers/emulator.js'
import {call, recordEvents} from './support.js'

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/

let emulator: RunningEmulator
let events: ReturnType<typeof recordEvents>
beforeAll(async () => {
  emulator = await start({seed: 'demo'})
  events = recordEvents(emulator)
})
afterAll(() => emulator.close())

describe('business lifecycle (/_emulator/businesses)', () => {
  it('creates a business without a token, emits BUSINESS_CREATED, and serves it on the API', async () => {
    events.length = 0
    const res = await call(emulator, 'POST', '/_emulator/businesses', {json: {name: 'Hooli', external_id: 'hooli-1'}})
    expect(res.status).toBe(201)
    const business = res.body.data
    expect(business).toEqual({
      id: expect.stringMatching(/^biz_/),
      external_id: 'hooli-1',
      name: 'Hooli',
      active: true,
      created_at: expect.any(String),
    })
    expect(emulator.state.businesses.get(business.id)).toEqual(business)
    expect(events).toEqual([
      {
        type: 'BUSINESS_CREATED',
        content: {business_id: business.id, business_external_id: 'hooli-1', timestamp: expect.stringMatching(ISO_UTC)},
      },
    ])
    // A token can be scoped to it, and the API lists it.
    const token = await tokenFor(emulator, {business_id: business.id})
    const listed = await call(emulator, 'GET', '/v0/business', {token})
    expect(listed.body.data).toEqual([business])
  })

  it('fills name and external id when the body is empty', async () => {
    const res = await call(emulator, 'POST', '/_emulator/businesses')
    expect(res.status).toBe(201)
    expect(res.body.data.external_id).toBe(`ext-${res.body.data.id.slice(4)}`)
    expect(res.body.data.name).toMatch(/^Business \d+$/)
  })

  it('activates an inactive business and deactivates an active one, each with its event', async () => {
    const created = (await call(emulator, 'POST', '/_emulator/businesses', {json: {name: 'Dormant', active: false}}))
      .body.data
    expect(created.active).toBe(false)
    events.length = 0
    const activated = await call(emulator, 'POST', `/_emulator/businesses/${created.id}/activate`)
    expect(activated.status).toBe(200)
    expect(activated.body.data).toMatchObject({id: created.id, active: true})
    expect(emulator.state.businesses.get(created.id)?.active).toBe(true)
    const deactivated = await call(emulator, 'POST', `/_emulator/businesses/${created.id}/deactivate`)
    expect(deactivated.status).toBe(200)
    expect(deactivated.body.data.active).toBe(false)
    expect(emulator.state.businesses.get(created.id)?.active).toBe(false)
    const content = {
      business_id: created.id,
      business_external_id: created.external_id,
      timestamp: expect.stringMatching(ISO_UTC),
    }
    expect(events).toEqual([
      {type: 'BUSINESS_ACTIVATED', content},
      {type: 'BUSINESS_DEACTIVATED', content},
    ])
  })

  it('answers 409 for activating an active business or deactivating an inactive one, and emits nothing', async () => {
    const [active] = emulator.businessIds as [string]
    const inactive = 'biz_demo_initech'
    expect(emulator.state.businesses.get(inactive)?.active).toBe(false)
    events.length = 0
    const again = await call(emulator, 'POST', `/_emulator/businesses/${active}/activate`)
    expect(again.status).toBe(409)
    expect(again.body).toEqual({
      error: `Business ${active} is already active`,
      data: {business_id: active, active: true},
    })
    const twice = await call(emulator, 'POST', `/_emulator/businesses/${inactive}/deactivate`)
    expect(twice.status).toBe(409)
    expect(twice.body).toEqual({
      error: `Business ${inactive} is already inactive`,
      data: {business_id: inactive, active: false},
    })
    expect(events).toEqual([])
    expect(emulator.state.businesses.get(active)?.active).toBe(true)
  })

  it('answers 404 for an unknown business and 422 or 409 for a bad creation', async () => {
    const missing = await call(emulator, 'POST', '/_emulator/businesses/biz_nope/activate')
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({error: 'Business biz_nope not found', data: {business_id: 'biz_nope'}})
    const size = emulator.state.businesses.size
    const badName = await call(emulator, 'POST', '/_emulator/businesses', {json: {name: 5}})
    expect(badName.status).toBe(422)
    expect(badName.body).toEqual({error: 'name must be a non-empty string', data: {field: 'name', value: 5}})
    const badActive = await call(emulator, 'POST', '/_emulator/businesses', {json: {active: 'yes'}})
    expect(badActive.status).toBe(422)
    expect(badActive.body.data).toEqual({field: 'active', value: 'yes'})
    const notObject = await call(emulator, 'POST', '/_emulator/businesses', {json: ['x']})
    expect(notObject.status).toBe(422)
    const taken = await call(emulator, 'POST', '/_emulator/businesses', {
      json: {external_id: emulator.state.businesses.get('biz_demo_acme')?.external_id},
    })
    expect(taken.status).toBe(409)
    expect(taken.body.data).toEqual({field: 'external_id', business_id: 'biz_demo_acme'})
    expect(emulator.state.businesses.size).toBe(size)
  })
})

describe('POST /_emulator/events (trigger)', () => {
  it('emits every event type of the spec with exactly its content fields, filled plausibly', async () => {
    const listed = await call(emulator, 'GET', '/_emulator/events')
    expect(listed.body.data).toEqual(EVENT_TYPES)
    expect(EVENT_TYPES).toHaveLength(13)
    for (const type of EVENT_TYPES) {
      events.length = 0
      const res = await call(emulator, 'POST', '/_emulator/events', {json: {type}})
      expect(res.status).toBe(202)
      expect(events).toEqual([{type, content: res.body.data.content}])
      const content = events[0]?.content ?? {}
      expect(Object.keys(content)).toEqual([...EVENT_FIELDS[type]])
      // BUSINESS_CREATED announces a new business (created with it); the others name the first.
      const business = type === 'BUSINESS_CREATED' ? String(content.business_id) : 'biz_demo_acme'
      if (type === 'BUSINESS_CREATED') expect(business).not.toBe('biz_demo_acme')
      if ('business_id' in content) expect(content.business_id).toBe(business)
      if ('business_external_id' in content)
        expect(content.business_external_id).toBe(emulator.state.businesses.get(business)?.external_id)
      if ('timestamp' in content) expect(content.timestamp).toMatch(ISO_UTC)
      if ('document_id' in content) expect(content.document_id).toMatch(/^doc_/)
      if ('transaction_id' in content) expect(content.transaction_id).toMatch(/^txn_/)
      if (type === 'STATEMENT_IMPORTED') expect(content.account_id).toMatch(/^eac_/)
      else if ('account_id' in content) expect(content.account_id).toEqual(expect.any(String))
      if (type === 'TASK_REQUEST') {
        expect((content.task_types as string[]).length).toBeGreaterThan(0)
        for (const t of content.task_types as string[]) expect(TASK_TYPES).toContain(t)
      }
    }
  })

  it('keeps the content given and fills the rest from that business', async () => {
    events.length = 0
    const res = await call(emulator, 'POST', '/_emulator/events', {
      json: {
        type: 'BUSINESS_DEACTIVATED',
        content: {business_id: 'biz_demo_globex', timestamp: '2026-02-01T10:00:00Z'},
      },
    })
    expect(res.status).toBe(202)
    expect(events).toEqual([
      {
        type: 'BUSINESS_DEACTIVATED',
        content: {
          business_id: 'biz_demo_globex',
          business_external_id: emulator.state.businesses.get('biz_demo_globex')?.external_id,
          timestamp: '2026-02-01T10:00:00Z',
        },
      },
    ])
    // A triggered business event makes its transition, as the spec's table says.
    expect(emulator.state.businesses.get('biz_demo_globex')?.active).toBe(false)
    const tasks = await call(emulator, 'POST', '/_emulator/events', {
      json: {type: 'TASK_REQUEST', content: {task_types: ['request_statement', 'other']}},
    })
    expect(tasks.body.data).toEqual({
      type: 'TASK_REQUEST',
      content: {business_id: 'biz_demo_acme', task_types: ['request_statement', 'other']},
    })
  })

  it('answers 422 naming the allowed types for an unknown or missing type', async () => {
    events.length = 0
    for (const body of [{type: 'BUSINESS_EXPLODED'}, {}, {type: 5}]) {
      const res = await call(emulator, 'POST', '/_emulator/events', {json: body})
      expect(res.status).toBe(422)
      expect(res.body.error).toBe(`type must be one of ${EVENT_TYPES.join(', ')}`)
      expect(res.body.data).toEqual({field: 'type', value: body.type ?? null, allowed: EVENT_TYPES})
    }
    expect(events).toEqual([])
  })

  it('answers 422 for task types outside the spec list and other bad content', async () => {
    events.length = 0
    const cases: Array<[unknown, string]> = [
      [{type: 'TASK_REQUEST', content: {task_types: ['request_receipt', 'walk_the_dog']}}, 'content.task_types'],
      [{type: 'TASK_REQUEST', content: {task_types: []}}, 'content.task_types'],
      [{type: 'TASK_REQUEST', content: {task_types: 'other'}}, 'content.task_types'],
      [{type: 'BUSINESS_CREATED', content: {business_id: 'acme'}}, 'content.business_id'],
      [{type: 'RECEIPT_MATCHED', content: {timestamp: 'yesterday'}}, 'content.timestamp'],
      [{type: 'STATEMENT_IMPORTED', content: {account_id: 'item_123'}}, 'content.account_id'],
      [{type: 'TASKS_REQUEST_COMPLETED', content: {task_types: ['other']}}, 'content'],
      [{type: 'TASK_REQUEST', content: ['other']}, 'content'],
    ]
    for (const [body, field] of cases) {
      const res = await call(emulator, 'POST', '/_emulator/events', {json: body})
      expect(res.status, JSON.stringify(body)).toBe(422)
      expect(res.body.data.field).toBe(field)
    }
    const bad = await call(emulator, 'POST', '/_emulator/events', {
      json: {type: 'TASK_REQUEST', content: {task_types: ['walk_the_dog']}},
    })
    expect(bad.body.error).toBe(`content.task_types: expected one of ${TASK_TYPES.join(', ')}`)
    expect(events).toEqual([])
  })
})
