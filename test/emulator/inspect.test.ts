import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {start, tokenFor, type RunningEmulator} from '../helpers/emulator.js'
import {call} from './support.js'

let emulator: RunningEmulator
let token: string
const acme = 'biz_demo_acme'
const globex = 'biz_demo_globex'

beforeAll(async () => {
  emulator = await start({seed: 'demo'})
  token = await tokenFor(emulator)
})
afterAll(() => emulator.close())

async function createEntry(businessId: string, amount: string): Promise<string> {
  const ledger = (name: string) => emulator.state.ledgers.all(businessId).find((l) => l.name === name)?.id as string
  const res = await call(emulator, 'POST', `/v0/business/${businessId}/journal-entries`, {
    token,
    json: {
      description: `Accrual ${amount}`,
      datetime: '2026-03-01T00:00:00Z',
      lines: [
        {ledger_id: ledger('expenses'), description: 'expense', debit_credit: 'debit', amount, tag_value_ids: []},
        {ledger_id: ledger('cash'), description: 'cash', debit_credit: 'credit', amount, tag_value_ids: []},
      ],
    },
  })
  expect(res.status, res.text).toBeLessThan(300)
  return res.body.data.id as string
}

/** Creates one bill through the API and returns its id. */
async function createBill(businessId: string, number: string): Promise<string> {
  const own = (list: ReadonlyArray<{id: string; name: string}>, name: string) =>
    list.find((x) => x.name === name)?.id as string
  const res = await call(emulator, 'POST', `/v0/business/${businessId}/bills`, {
    token,
    json: [
      {
        business_id: businessId,
        number,
        description: 'Paper',
        issued_at: '2026-03-01T00:00:00Z',
        due_at: '2026-03-31T00:00:00Z',
        vendor_id: own(emulator.state.vendors.all(businessId), 'office'),
        currency: 'USD',
        lines: [{description: 'Paper', amount: 10, ledger_id: own(emulator.state.ledgers.all(businessId), 'expenses')}],
      },
    ],
  })
  expect(res.status, res.text).toBeLessThan(300)
  expect(res.body.errors, res.text).toEqual([])
  return res.body.data[0].id as string
}

describe('emulator inspection routes', () => {
  it('need no token and count every collection, in total and per business', async () => {
    const res = await call(emulator, 'GET', '/_emulator/counts')
    expect(res.status).toBe(200)
    const counts = res.body.data as Record<string, number>
    expect(counts.businesses).toBe(3)
    expect(counts.clients).toBe(1)
    expect(counts.invoices).toBe(emulator.state.invoices.count())
    expect(counts.invoices).toBeGreaterThan(100)
    expect(counts.tagValues).toBe(3 * 5)
    for (const key of [
      'vendors',
      'ledgers',
      'customers',
      'bills',
      'journalEntries',
      'transactions',
      'refunds',
      'documents',
      'tasks',
      'receiptConfigs',
      'tokens',
    ]) {
      expect(counts[key], key).toEqual(expect.any(Number))
    }
    const mine = (await call(emulator, 'GET', `/_emulator/counts?business_id=${acme}`)).body.data as Record<
      string,
      number
    >
    expect(mine.invoices).toBe(emulator.state.invoices.count(acme))
    expect(mine.invoices).toBeLessThan(counts.invoices as number)
    expect(mine.tagValues).toBe(5)
    expect(mine).not.toHaveProperty('businesses')
    const unknown = await call(emulator, 'GET', '/_emulator/counts?business_id=biz_nope')
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual({error: 'Business biz_nope not found', data: {business_id: 'biz_nope'}})
  })

  it('list the journal entries and bills created, per business', async () => {
    const seededEntries = emulator.state.journalEntries.count(acme)
    const je1 = await createEntry(acme, '12.50')
    const je2 = await createEntry(globex, '7.25')
    const bill = await createBill(acme, 'B-1')
    const entries = await call(emulator, 'GET', `/_emulator/businesses/${acme}/journal-entries`)
    expect(entries.status).toBe(200)
    expect(entries.body.count).toBe(1)
    expect(entries.body.data.map((e: {id: string}) => e.id)).toEqual([je1])
    expect(entries.body.data[0].line_entries.map((l: {amount: string}) => l.amount)).toEqual(['12.50', '12.50'])
    const withSeed = await call(emulator, 'GET', `/_emulator/businesses/${acme}/journal-entries?include_seed=true`)
    expect(withSeed.body.count).toBe(seededEntries + 1)
    const other = await call(emulator, 'GET', `/_emulator/businesses/${globex}/journal-entries`)
    expect(other.body.data.map((e: {id: string}) => e.id)).toEqual([je2])
    const bills = await call(emulator, 'GET', `/_emulator/businesses/${acme}/bills`)
    expect(bills.body).toEqual({data: [expect.objectContaining({id: bill, number: 'B-1'})], count: 1})
    expect((await call(emulator, 'GET', `/_emulator/businesses/${globex}/bills`)).body).toEqual({data: [], count: 0})
    const missing = await call(emulator, 'GET', '/_emulator/businesses/biz_nope/bills')
    expect(missing.status).toBe(404)
  })

  it('reset "created" forgets the bills and journal entries created and keeps the rest', async () => {
    await createEntry(acme, '1.00')
    await createBill(globex, 'B-2')
    const seededEntries =
      (await call(emulator, 'GET', `/_emulator/businesses/${acme}/journal-entries?include_seed=true`)).body.count -
      (await call(emulator, 'GET', `/_emulator/businesses/${acme}/journal-entries`)).body.count
    const created = (await call(emulator, 'POST', '/_emulator/businesses', {json: {name: 'Survivor'}})).body.data
      .id as string
    const invoices = emulator.state.invoices.count()
    const res = await call(emulator, 'POST', '/_emulator/reset')
    expect(res.status).toBe(200)
    expect(res.body.data.reset).toBe('created')
    expect(res.body.data.counts.bills).toBe(0)
    expect(emulator.state.bills.count()).toBe(0)
    expect(emulator.state.journalEntries.count(acme)).toBe(seededEntries)
    expect(emulator.state.journalEntries.count(globex)).toBe(0)
    expect((await call(emulator, 'GET', `/_emulator/businesses/${acme}/journal-entries`)).body.count).toBe(0)
    expect(emulator.state.invoices.count()).toBe(invoices)
    expect(emulator.state.businesses.has(created)).toBe(true)
  })

  it('reset "all" goes back to the seed with the same ids and keeps tokens valid', async () => {
    const initial = (await call(emulator, 'GET', '/_emulator/counts')).body.data as Record<string, number>
    const firstInvoices = emulator.state.invoices
      .all(acme)
      .slice(0, 5)
      .map((i) => i.id)
    const tagValues = JSON.stringify([
      ...(emulator.state.tagFields.get(acme)?.get('department') ?? new Map()).entries(),
    ])
    await createEntry(acme, '3.00')
    const created = (await call(emulator, 'POST', '/_emulator/businesses', {json: {name: 'Ephemeral'}})).body.data
      .id as string
    const res = await call(emulator, 'POST', '/_emulator/reset', {json: {what: 'all'}})
    expect(res.status).toBe(200)
    expect(res.body.data.reset).toBe('all')
    expect(emulator.state.businesses.has(created)).toBe(false)
    expect([...emulator.state.businesses.keys()]).toEqual(emulator.businessIds)
    const after = (await call(emulator, 'GET', '/_emulator/counts')).body.data as Record<string, number>
    // Everything matches the seed except what earlier tests created (a business, its
    // BUSINESS_CREATED notification, journal entries): the notification log is emptied too.
    const ignore = {businesses: 0, tokens: 0, journalEntries: 0, notifications: 0}
    expect({...after, ...ignore}).toEqual({...initial, ...ignore})
    expect(initial.notifications).toBeGreaterThan(0)
    expect(after.notifications).toBe(0)
    expect(after.businesses).toBe(3)
    expect(
      emulator.state.invoices
        .all(acme)
        .slice(0, 5)
        .map((i) => i.id),
    ).toEqual(firstInvoices)
    expect(JSON.stringify([...(emulator.state.tagFields.get(acme)?.get('department') ?? new Map()).entries()])).toBe(
      tagValues,
    )
    expect((await call(emulator, 'GET', '/v0/business', {token})).status).toBe(200)
    expect((await call(emulator, 'GET', `/_emulator/businesses/${acme}/journal-entries`)).body.count).toBe(0)
  })

  it('refuses an unknown reset kind with 422 and changes nothing', async () => {
    await createBill(acme, 'B-3')
    const res = await call(emulator, 'POST', '/_emulator/reset', {json: {what: 'everything'}})
    expect(res.status).toBe(422)
    expect(res.body).toEqual({
      error: 'what must be one of created, all',
      data: {field: 'what', value: 'everything', allowed: ['created', 'all']},
    })
    expect(emulator.state.bills.count()).toBe(1)
  })

  it('list themselves at GET /_emulator, and each listed route exists', async () => {
    const res = await call(emulator, 'GET', '/_emulator')
    expect(res.status).toBe(200)
    const routes = res.body.data as Array<{method: string; path: string}>
    expect(routes.length).toBe(14)
    for (const route of routes) {
      // No emulator route takes PATCH: 405 proves the path exists (an unknown one is 404).
      const probe = await call(emulator, 'PATCH', route.path.replace('{business_id}', acme))
      expect(probe.status, route.path).toBe(405)
    }
  })

  it('report the fault settings and counters', async () => {
    const res = await call(emulator, 'GET', '/_emulator/faults')
    expect(res.body).toEqual({
      data: {
        rate: 0,
        seed: 1,
        kinds: ['503', '429', 'reset-before', 'reset-after', 'commit-5xx'],
        counts: {'503': 0, '429': 0, 'reset-before': 0, 'reset-after': 0, 'commit-5xx': 0},
      },
    })
  })

  it('with the real event sink, lifecycle and triggered events become webhook notifications', async () => {
    const created = (
      await call(emulator, 'POST', '/_emulator/businesses', {json: {name: 'Notified', external_id: 'notified-1'}})
    ).body.data.id as string
    await call(emulator, 'POST', `/_emulator/businesses/${created}/deactivate`)
    await call(emulator, 'POST', '/_emulator/events', {json: {type: 'RECEIPT_MATCHED'}})
    const res = await call(emulator, 'GET', '/v0/tenant/webhook/notifications?page_size=100', {token})
    expect(res.status).toBe(200)
    const messages = (res.body.data as Array<{notification: {type: string; content: Record<string, unknown>}}>)
      .map((n) => n.notification)
      .slice(-3)
    expect(messages).toEqual([
      {
        type: 'BUSINESS_CREATED',
        content: {business_id: created, business_external_id: 'notified-1', timestamp: expect.any(String)},
      },
      {
        type: 'BUSINESS_DEACTIVATED',
        content: {business_id: created, business_external_id: 'notified-1', timestamp: expect.any(String)},
      },
      {
        type: 'RECEIPT_MATCHED',
        content: {
          document_id: expect.stringMatching(/^doc_/),
          transaction_id: expect.stringMatching(/^txn_/),
          timestamp: expect.any(String),
        },
      },
    ])
  })
})
