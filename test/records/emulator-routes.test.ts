/**
 * The emulator's read/edit routes over HTTP, rule by rule: page-size bounds, inclusive due
 * dates, status filters, cursors both ways, include, document associations, task deletion with
 * the spec's {message, data} body, and the receipt-rule defaults.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {DEMO_RECORD_IDS} from '../../src/emulator/seed-records.js'
import {start, tokenFor, type RunningEmulator} from '../helpers/emulator.js'
import {call as rawCall} from '../emulator/support.js'

let emulator: RunningEmulator
let token: string
let biz: string

beforeAll(async () => {
  emulator = await start()
  biz = emulator.businessIds[0] as string
  token = await tokenFor(emulator)
})
afterAll(() => emulator.close())

/** The shared raw call with this file's token; a string body is sent as is, as JSON. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw HTTP bodies, checked field by field
type RawBody = any

async function call(
  method: string,
  path: string,
  options: {body?: unknown; token?: string} = {},
): Promise<{status: number; body: RawBody}> {
  const {body} = options
  const res = await rawCall(emulator, method, path, {
    token: options.token ?? token,
    ...(typeof body === 'string'
      ? {body, headers: {'content-type': 'application/json'}}
      : body === undefined
        ? {}
        : {json: body}),
  })
  return {status: res.status, body: res.body}
}

const invoices = (query = '') => call('GET', `/v0/business/${biz}/invoice${query}`)

describe('GET …/invoice', () => {
  it('defaults to 100 per page and bounds page_size to 1..100', async () => {
    expect((await invoices()).body.data).toHaveLength(100)
    expect((await invoices('?page_size=1')).body.data).toHaveLength(1)
    expect((await invoices('?page_size=100')).body.data).toHaveLength(100)
    for (const bad of ['0', '101', '-1', 'ten']) {
      const res = await invoices(`?page_size=${bad}`)
      expect(res.status).toBe(422)
      expect(res.body).toEqual({error: expect.stringContaining('page_size'), data: expect.anything()})
    }
  })

  it('includes invoices due exactly at either bound', async () => {
    const all = emulator.state.invoices.all(biz)
    const target = all[10]!.due_at as string
    const res = await invoices(`?due_at_start=${encodeURIComponent(target)}&due_at_end=${encodeURIComponent(target)}`)
    expect(res.status).toBe(200)
    const expected = all.filter((i) => Date.parse(i.due_at as string) === Date.parse(target)).map((i) => i.id)
    expect(expected.length).toBeGreaterThan(0)
    expect(res.body.data.map((i: {id: string}) => i.id)).toEqual(expected)
    // One millisecond past either bound excludes them.
    const after = new Date(Date.parse(target) + 1).toISOString()
    const end = '2026-12-31T23:59:59Z'
    const res2 = await invoices(`?due_at_start=${after}&due_at_end=${encodeURIComponent(end)}&page_size=100`)
    const later = all.filter(
      (i) => Date.parse(i.due_at as string) > Date.parse(target) && Date.parse(i.due_at as string) <= Date.parse(end),
    )
    // Not vacuous: the page holds the later invoices, and only those.
    expect(later.length).toBeGreaterThan(0)
    expect(res2.body.data.length).toBe(Math.min(later.length, 100))
    expect(res2.body.data.every((i: {due_at: string}) => Date.parse(i.due_at) > Date.parse(target))).toBe(true)
  })

  it('filters by a date range, inclusive at both ends, across pages', async () => {
    const start = '2026-03-01T00:00:00Z'
    const end = '2026-03-31T00:00:00Z'
    const expected = emulator.state.invoices
      .all(biz)
      .filter((i) => {
        const d = Date.parse(i.due_at as string)
        return d >= Date.parse(start) && d <= Date.parse(end)
      })
      .map((i) => i.id)
    const got: string[] = []
    let tokenParam = ''
    for (;;) {
      const res = await invoices(`?due_at_start=${start}&due_at_end=${end}&page_size=7${tokenParam}`)
      got.push(...res.body.data.map((i: {id: string}) => i.id))
      if (!res.body.pagination.next_page_token) break
      tokenParam = `&page_token=${res.body.pagination.next_page_token}`
    }
    expect(got).toEqual(expected)
    expect(expected.some((id) => emulator.state.invoices.get(biz, id)!.due_at === end)).toBe(true)
  })

  it('refuses dates that are not ISO 8601, and a start after the end', async () => {
    for (const bad of ['2026-13-01', '01/03/2026', '2026-02-30', 'tomorrow']) {
      const res = await invoices(`?due_at_start=${encodeURIComponent(bad)}`)
      expect(res.status).toBe(422)
      expect(res.body.data).toEqual({field: 'due_at_start', value: bad})
    }
    expect((await invoices('?due_at_start=2026-05-01&due_at_end=2026-04-01')).status).toBe(422)
  })

  it('filters by comma-separated statuses and refuses unknown ones', async () => {
    const res = await invoices('?status=paid,void&page_size=100')
    const expected = emulator.state.invoices
      .all(biz)
      .filter((i) => i.status === 'paid' || i.status === 'void')
      .slice(0, 100)
      .map((i) => i.id)
    expect(res.body.data.map((i: {id: string}) => i.id)).toEqual(expected)
    expect(new Set(res.body.data.map((i: {status: string}) => i.status))).toEqual(new Set(['paid', 'void']))
    const bad = await invoices('?status=paid,bogus')
    expect(bad.status).toBe(422)
    expect(bad.body.error).toContain('bogus')
  })

  it('pages forward to the end and back to the start with the same items', async () => {
    const pages: string[][] = []
    let res = await invoices('?page_size=40&status=open')
    expect(res.body.pagination.previous_page_token).toBeNull()
    pages.push(res.body.data.map((i: {id: string}) => i.id))
    while (res.body.pagination.next_page_token) {
      res = await invoices(`?page_size=40&status=open&page_token=${res.body.pagination.next_page_token}`)
      pages.push(res.body.data.map((i: {id: string}) => i.id))
    }
    expect(pages.length).toBeGreaterThan(1)
    expect(pages.flat()).toEqual(
      emulator.state.invoices
        .all(biz)
        .filter((i) => i.status === 'open')
        .map((i) => i.id),
    )
    const back: string[][] = [pages.at(-1)!]
    while (res.body.pagination.previous_page_token) {
      res = await invoices(`?page_size=40&status=open&page_token=${res.body.pagination.previous_page_token}`)
      back.unshift(res.body.data.map((i: {id: string}) => i.id))
    }
    expect(back).toEqual(pages)
    // A cursor made for one filter is refused with another.
    const first = await invoices('?page_size=5&status=open')
    expect(
      (await invoices(`?page_size=5&status=paid&page_token=${first.body.pagination.next_page_token}`)).status,
    ).toBe(422)
  })

  it('needs invoice:read and the right business', async () => {
    const narrow = await tokenFor(emulator, {scope: 'refund:read'})
    expect((await call('GET', `/v0/business/${biz}/invoice`, {token: narrow})).status).toBe(403)
    const other = await tokenFor(emulator, {business_id: emulator.businessIds[1] as string})
    expect((await call('GET', `/v0/business/${biz}/invoice`, {token: other})).status).toBe(403)
    expect((await call('GET', '/v0/business/biz_missing/invoice')).status).toBe(404)
  })
})

describe('GET …/refunds', () => {
  const refunds = (query = '') => call('GET', `/v0/business/${biz}/refunds${query}`)
  it('defaults to 50 per page, bounds page_size and filters by status', async () => {
    expect(emulator.state.refunds.count(biz)).toBeGreaterThan(50)
    expect((await refunds()).body.data).toHaveLength(50)
    expect((await refunds('?page_size=0')).status).toBe(422)
    expect((await refunds('?page_size=101')).status).toBe(422)
    for (const status of ['pending', 'completed', 'voided']) {
      const res = await refunds(`?status=${status}&page_size=100`)
      const stored = emulator.state.refunds.all(biz).filter((r) => r.status === status).length
      expect(stored, `seeded ${status} refunds`).toBeGreaterThan(0)
      expect(res.body.data.length).toBe(Math.min(stored, 100))
      expect(res.body.data.every((r: {status: string}) => r.status === status)).toBe(true)
    }
    const two = await refunds('?status=pending,voided&page_size=100')
    expect(new Set(two.body.data.map((r: {status: string}) => r.status))).toEqual(new Set(['pending', 'voided']))
    const bad = await refunds('?status=refunded')
    expect(bad.status).toBe(422)
    expect(bad.body.error).toContain('refunded')
  })
})

describe('GET …/transactions/{id}', () => {
  it("embeds each payment's invoice only with include=invoice_payments.invoice", async () => {
    const path = `/v0/business/${biz}/transactions/${DEMO_RECORD_IDS.transaction}`
    const plain = await call('GET', path)
    expect(plain.status).toBe(200)
    expect(plain.body.data.invoice_payments.length).toBe(2)
    expect(plain.body.data.invoice_payments[0].invoice).toBeUndefined()
    const full = await call('GET', `${path}?include=invoice_payments.invoice`)
    for (const p of full.body.data.invoice_payments) {
      expect(p.invoice.id).toBe(p.invoice_id)
      expect(p.invoice).toEqual(JSON.parse(JSON.stringify(emulator.state.invoices.get(biz, p.invoice_id))))
    }
    expect((await call('GET', `${path}?include=refund_payments`)).status).toBe(422)
    expect((await call('GET', `/v0/business/${biz}/transactions/txn_missing`)).status).toBe(404)
    expect((await call('GET', `/v0/business/${biz}/transactions/${encodeURIComponent('txn_bad id')}`)).status).toBe(422)
  })
})

describe('DELETE …/document-association/{id}', () => {
  it('unlinks eac_, txn_ and je_ ids in one request and refuses any other kind', async () => {
    const doc = emulator.state.documents.get(biz, DEMO_RECORD_IDS.document)!
    const before = [...doc.associations]
    const bad = await call(
      'DELETE',
      `/v0/business/${biz}/document-association/${doc.id}?entity_ids=${before[0]},bil_1,inv_2`,
    )
    expect(bad.status).toBe(422)
    expect(bad.body.data.invalid).toEqual(['bil_1', 'inv_2'])
    expect(bad.body.error).toContain('bil_1')
    expect([...doc.associations]).toEqual(before)
    expect((await call('DELETE', `/v0/business/${biz}/document-association/${doc.id}`)).status).toBe(422)
    expect((await call('DELETE', `/v0/business/${biz}/document-association/doc_missing?entity_ids=txn_1`)).status).toBe(
      404,
    )
    const res = await call(
      'DELETE',
      `/v0/business/${biz}/document-association/${doc.id}?entity_ids=${before.join(',')},je_never`,
    )
    expect(res.status).toBe(200)
    expect(res.body.data).toEqual({document_id: doc.id, unlinked: before, not_linked: ['je_never'], associations: []})
    expect(doc.associations.size).toBe(0)
  })
})

describe('DELETE …/task/{id}', () => {
  it('deletes an open task, 404s an unknown one, and refuses a completed one with {message, data}', async () => {
    const path = (id: string) => `/v0/business/${biz}/task/${id}`
    const done = await call('DELETE', path(DEMO_RECORD_IDS.completedTask))
    expect(done.status).toBe(409)
    expect(done.body).toEqual({message: expect.stringContaining('completed'), data: DEMO_RECORD_IDS.completedTask})
    expect(emulator.state.tasks.get(biz, DEMO_RECORD_IDS.completedTask)).toBeDefined()
    const missing = await call('DELETE', path('tsk_missing'))
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({error: expect.stringContaining('tsk_missing'), data: {task_id: 'tsk_missing'}})
    const narrow = await tokenFor(emulator, {scope: 'document:delete'})
    expect((await call('DELETE', path(DEMO_RECORD_IDS.openTask), {token: narrow})).status).toBe(403)
    const ok = await call('DELETE', path(DEMO_RECORD_IDS.openTask))
    expect(ok).toEqual({status: 200, body: {data: {id: DEMO_RECORD_IDS.openTask, deleted: true}}})
    expect(emulator.state.tasks.get(biz, DEMO_RECORD_IDS.openTask)).toBeUndefined()
  })
})

describe('PATCH …/rules/receipts', () => {
  it('starts from the defaults, changes only the fields sent, treats null as omitted', async () => {
    const b = emulator.businessIds[1] as string
    const patch = (body: unknown) => call('PATCH', `/v0/business/${b}/rules/receipts`, {body})
    expect(emulator.state.receiptConfigs.has(b)).toBe(false)
    expect(await patch({threshold_amount: '12.50'})).toEqual({
      status: 200,
      body: {is_enabled: true, threshold_amount: 12.5},
    })
    expect((await patch({is_enabled: false})).body).toEqual({is_enabled: false, threshold_amount: 12.5})
    expect((await patch({is_enabled: null, threshold_amount: null})).body).toEqual({
      is_enabled: false,
      threshold_amount: 12.5,
    })
    expect((await patch({threshold_amount: 0})).body).toEqual({is_enabled: false, threshold_amount: 0})
    expect((await patch({threshold_amount: '+007.'})).body).toEqual({is_enabled: false, threshold_amount: 7})
    expect((await patch({})).body).toEqual({is_enabled: false, threshold_amount: 7})
    const c = emulator.businessIds[2] as string
    expect((await call('PATCH', `/v0/business/${c}/rules/receipts`, {body: {is_enabled: false}})).body).toEqual({
      is_enabled: false,
      threshold_amount: 0,
    })
  })

  it('refuses what the spec does not allow, changing nothing', async () => {
    const patch = (body: unknown) => call('PATCH', `/v0/business/${biz}/rules/receipts`, {body})
    await patch({is_enabled: true, threshold_amount: 5})
    for (const body of [
      {threshold_amount: -1},
      {threshold_amount: '-1'},
      {threshold_amount: 'abc'},
      {threshold_amount: ''},
      {threshold_amount: '1e3'},
      {threshold_amount: '.'},
      {threshold_amount: '12345678901234567'},
      {is_enabled: 'yes'},
      {enabled: true},
      [1],
      'null',
    ]) {
      const res = await patch(body)
      expect(res.status, JSON.stringify(body)).toBe(422)
      expect(Object.keys(res.body).sort()).toEqual(['data', 'error'])
    }
    expect(emulator.state.receiptConfigs.get(biz)).toEqual({is_enabled: true, threshold_amount: 5})
    const narrow = await tokenFor(emulator, {scope: 'invoice:read'})
    expect((await call('PATCH', `/v0/business/${biz}/rules/receipts`, {body: {}, token: narrow})).status).toBe(403)
  })
})
