/**
 * The emulator's POST /v0/business/{business_id}/journal-entries over HTTP: the spec's rules
 * answered with 422 and the {error, data} body naming the field, scope and business checks, and
 * the created entry kept with its amounts as the exact strings received.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {DEMO_IDS} from '../../src/emulator/seed.js'
import {start, tokenFor, type RunningEmulator} from '../helpers/emulator.js'

const BIZ = DEMO_IDS.business
const L = DEMO_IDS.ledgers

let emulator: RunningEmulator
let token: string
beforeAll(async () => {
  emulator = await start()
  token = await tokenFor(emulator)
})
afterAll(() => emulator.close())

async function post(
  body: unknown,
  options: {token?: string; business?: string} = {},
): Promise<{status: number; body: {error?: string; data?: unknown}}> {
  const res = await fetch(`${emulator.baseUrl}/v0/business/${options.business ?? BIZ}/journal-entries`, {
    method: 'POST',
    headers: {authorization: `Bearer ${options.token ?? token}`, 'content-type': 'application/json'},
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  return {status: res.status, body: (await res.json()) as {error?: string; data?: unknown}}
}

const line = (
  side: 'debit' | 'credit',
  amount: unknown,
  ledger: string = L.expenses,
  extra: Record<string, unknown> = {},
) => ({ledger_id: ledger, debit_credit: side, amount, ...extra})
const entry = (lines: unknown[], extra: Record<string, unknown> = {}) => ({
  description: 'Route test',
  datetime: '2026-03-01T09:00:00Z',
  lines,
  ...extra,
})

describe('POST /v0/business/{business_id}/journal-entries (emulator)', () => {
  it('creates a balanced entry, answering {data} with je_/le_ ids and the exact amounts', async () => {
    const eng = emulator.state.tagFields.get(BIZ)?.get('department')?.get('engineering') as string
    const res = await post(
      entry([
        line('debit', '0.1'),
        line('debit', '0.2', L.software, {tag_value_ids: [eng]}),
        line('credit', '0.30', L.cash, {description: 'paid'}),
      ]),
    )
    expect(res.status).toBe(201)
    const data = res.body.data as {
      id: string
      business_id: string
      review_status: string
      line_entries: Array<{
        id: string
        journal_entry_id: string
        amount: string
        tag_value_ids: string[]
        description: string
      }>
    }
    expect(data.id).toMatch(/^je_/)
    expect(data.business_id).toBe(BIZ)
    expect(data.review_status).toBe('bookkeeper_pending')
    expect(data.line_entries.map((l) => l.amount)).toEqual(['0.1', '0.2', '0.30'])
    for (const l of data.line_entries) {
      expect(l.id).toMatch(/^le_/)
      expect(l.journal_entry_id).toBe(data.id)
    }
    expect(data.line_entries[1]?.tag_value_ids).toEqual([eng])
    expect(emulator.state.journalEntries.get(BIZ, data.id)?.line_entries?.map((l) => l.amount)).toEqual([
      '0.1',
      '0.2',
      '0.30',
    ])
  })

  const rejections: Array<[string, unknown, string, string]> = [
    [
      'an unbalanced entry',
      entry([line('debit', '100.00'), line('credit', '99.99', L.cash)]),
      'lines',
      'does not balance: debits 100.00, credits 99.99',
    ],
    [
      'a missing debit line',
      entry([line('credit', '5', L.cash), line('credit', '5', L.cash)]),
      'lines',
      'has no debit line',
    ],
    ['a missing credit line', entry([line('debit', '5')]), 'lines', 'has no credit line'],
    [
      'an unknown ledger',
      entry([line('debit', '5', 'ldg_nope'), line('credit', '5', L.cash)]),
      'lines[0].ledger_id',
      'ledger ldg_nope not found',
    ],
    [
      "another business's ledger",
      entry([line('debit', '5', `${L.expenses}_${DEMO_IDS.otherBusiness.slice(9)}`), line('credit', '5', L.cash)]),
      'lines[0].ledger_id',
      'not found',
    ],
    [
      'an unknown tag value',
      entry([line('debit', '5', L.expenses, {tag_value_ids: ['tv_nope']}), line('credit', '5', L.cash)]),
      'lines[0].tag_value_ids[0]',
      'tag value tv_nope not found',
    ],
    [
      'a ledger id without its prefix',
      entry([line('debit', '5', 'expenses'), line('credit', '5', L.cash)]),
      'lines[0].ledger_id',
      'is not a ledger id',
    ],
    [
      'an amount sent as a JSON number',
      entry([line('debit', 5), line('credit', '5', L.cash)]),
      'lines[0].amount',
      'must be a decimal string',
    ],
    [
      'a negative amount',
      entry([line('debit', '-5'), line('credit', '-5', L.cash)]),
      'lines[0].amount',
      'must be a positive decimal string',
    ],
    [
      'a zero amount',
      entry([line('debit', '0'), line('credit', '0', L.cash)]),
      'lines[0].amount',
      'must be a positive decimal string',
    ],
    [
      'a bad side',
      entry([line('debit', '5'), {...line('credit', '5', L.cash), debit_credit: 'both'}]),
      'lines[1].debit_credit',
      'must be debit or credit',
    ],
    [
      'a datetime not in UTC',
      entry([line('debit', '5'), line('credit', '5', L.cash)], {datetime: '2026-03-01T09:00:00+02:00'}),
      'datetime',
      'UTC',
    ],
    [
      'a date that does not exist',
      entry([line('debit', '5'), line('credit', '5', L.cash)], {datetime: '2026-02-30T09:00:00Z'}),
      'datetime',
      'UTC ISO 8601',
    ],
    [
      'an hour that does not exist',
      entry([line('debit', '5'), line('credit', '5', L.cash)], {datetime: '2026-03-01T24:00:00Z'}),
      'datetime',
      'UTC ISO 8601',
    ],
    [
      'a year that is not plausible',
      entry([line('debit', '5'), line('credit', '5', L.cash)], {datetime: '0026-03-01T09:00:00Z'}),
      'datetime',
      'has the year 0026, which is not plausible for a journal entry',
    ],
    ['no lines', entry([], {lines: undefined}), 'lines', 'must be an array'],
  ]
  for (const [what, body, field, message] of rejections) {
    it(`answers 422 naming the field for ${what}`, async () => {
      const before = emulator.state.journalEntries.count(BIZ)
      const res = await post(body)
      expect(res.status).toBe(422)
      expect(res.body.error).toContain(message)
      expect(res.body.data).toEqual(expect.objectContaining({field}))
      expect(emulator.state.journalEntries.count(BIZ)).toBe(before)
    })
  }

  it('refuses a tag value listed twice on a line, as bk does (src/shared/journal-entry-rules.ts)', async () => {
    const eng = emulator.state.tagFields.get(BIZ)?.get('department')?.get('engineering') as string
    const before = emulator.state.journalEntries.count(BIZ)
    const res = await post(
      entry([line('debit', '5', L.expenses, {tag_value_ids: [eng, eng]}), line('credit', '5', L.cash)]),
    )
    expect(res.status).toBe(422)
    expect(res.body.error).toBe(`lines[0].tag_value_ids[1]: tag value ${eng} is listed twice`)
    expect(emulator.state.journalEntries.count(BIZ)).toBe(before)
  })

  it('answers 403 to a token without journal_entry:create, 401 without a token, 404 for an unknown business', async () => {
    const body = entry([line('debit', '5'), line('credit', '5', L.cash)])
    const narrow = await tokenFor(emulator, {scope: 'bill:create'})
    const forbidden = await post(body, {token: narrow})
    expect(forbidden.status).toBe(403)
    expect(forbidden.body).toEqual({
      error: 'Token lacks the scope journal_entry:create',
      data: {required_scope: 'journal_entry:create'},
    })
    const scoped = await tokenFor(emulator, {scope: 'journal_entry:create'})
    expect((await post(body, {token: scoped})).status).toBe(201)
    const otherBusiness = await tokenFor(emulator, {business_id: DEMO_IDS.otherBusiness})
    expect((await post(body, {token: otherBusiness})).status).toBe(403)
    expect((await post(body, {token: 'emu_nope'})).status).toBe(401)
    expect((await post(body, {business: 'biz_nope'})).status).toBe(404)
    expect((await post('{not json')).status).toBe(422)
  })
})
