import fc from 'fast-check'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {start, tokenFor, type RunningEmulator} from '../helpers/emulator.js'
import {parseJsonExact} from '../../src/shared/exact-json.js'
import {amountLiteral, amountProblem} from '../../src/bills/amount.js'
import {parseMoney, toJsonNumber} from '../../src/shared/money.js'

const BIZ = 'biz_demo_acme'
let emulator: RunningEmulator
let token: string
beforeAll(async () => {
  emulator = await start()
  token = await tokenFor(emulator)
})
afterAll(() => emulator.close())

async function post(
  body: string,
  auth = token,
): Promise<{
  status: number
  json: {
    data: Array<Record<string, unknown>>
    errors: Array<{error: string; bill_number: string | null}>
    error?: string
  }
}> {
  const res = await fetch(`${emulator.baseUrl}/v0/business/${BIZ}/bills`, {
    method: 'POST',
    headers: {authorization: `Bearer ${auth}`, 'content-type': 'application/json'},
    body,
  })
  return {status: res.status, json: (await res.json()) as never}
}

const bill = (over: Record<string, unknown> = {}) => ({
  number: 'E-1',
  vendor_id: 'ven_demo_office',
  currency: 'EUR',
  lines: [{amount: 10, ledger_id: 'ldg_demo_expenses'}],
  ...over,
})

describe('emulator POST /v0/business/{id}/bills', () => {
  it('needs the bill:create scope and bounds the body at 100 bills', async () => {
    const readOnly = await tokenFor(emulator, {scope: 'transaction:read'})
    expect((await post('[]', readOnly)).status).toBe(403)
    expect((await post('[]', 'nope')).status).toBe(401)
    const many = await post(JSON.stringify(Array.from({length: 101}, (_, i) => bill({number: `M-${i}`}))))
    expect(many.status).toBe(422)
    expect(many.json.error).toContain('At most 100 bills')
    expect(emulator.state.bills.all(BIZ).some((b) => b.number === 'M-0')).toBe(false)
  })

  it('creates the valid bills and reports each invalid one by number', async () => {
    const body = [
      bill({
        number: 'OK-1',
        lines: [
          {amount: 0.1, ledger_id: 'ldg_demo_expenses'},
          {amount: 0.2, ledger_id: 'ldg_demo_software'},
        ],
        tags: {
          department: [
            {value: 'engineering', amount: 0.1},
            {value: 'new-dept', amount: 0.2},
          ],
        },
      }),
      bill({number: 'BAD-vendor', vendor_id: 'ven_nope'}),
      bill({number: 'BAD-lines', lines: []}),
      bill({number: 'BAD-ledger', lines: [{amount: 1, ledger_id: 'ldg_nope'}]}),
      bill({number: 'BAD-currency', currency: 'EURO'}),
      bill({number: 'BAD-date', issued_at: '05/01/2026'}),
      bill({number: 'BAD-tagfield', tags: {colour: 'red'}}),
      bill({
        number: 'BAD-alloc',
        lines: [{amount: 0.3, ledger_id: 'ldg_demo_expenses'}],
        tags: {
          department: [
            {value: 'sales', amount: 0.1},
            {value: 'engineering', amount: 0.21},
          ],
        },
      }),
      {vendor_id: 'ven_demo_office', lines: [{amount: 1, ledger_id: 'ldg_demo_expenses'}]},
    ]
    const res = await post(JSON.stringify(body))
    expect(res.status).toBe(200)
    expect(res.json.data.map((b) => b.number)).toEqual(['OK-1'])
    const errors = new Map(res.json.errors.map((e) => [e.bill_number, e.error]))
    expect(errors.get('BAD-vendor')).toContain('vendor ven_nope does not exist')
    expect(errors.get('BAD-lines')).toContain('at least one line')
    expect(errors.get('BAD-ledger')).toContain('ledger ldg_nope does not exist')
    expect(errors.get('BAD-currency')).toContain('currency: is not an ISO 4217 currency code')
    expect(errors.get('BAD-date')).toContain('ISO 8601')
    expect(errors.get('BAD-tagfield')).toContain('tag field "colour" does not exist')
    expect(errors.get('BAD-alloc')).toContain('tags.department: allocates 0.31 in total, more than the bill total 0.3')
    expect(errors.get(null)).toContain('number: is required')
    const created = res.json.data[0]!
    expect(created.id).toMatch(/^bil_/)
    expect(created.total_amount).toBe(0.3)
    expect(
      (created.lines as Array<{id: string; bill_id: string}>).every(
        (l) => l.id.startsWith('bln_') && l.bill_id === created.id,
      ),
    ).toBe(true)
    expect(created.tags).toEqual({
      department: [
        {amount: '0.1', value: 'engineering'},
        {amount: '0.2', value: 'new-dept'},
      ],
    })
    expect(emulator.state.tagFields.get(BIZ)?.get('department')?.get('new-dept')).toMatch(/^tv_/)
    expect(emulator.state.bills.all(BIZ).filter((b) => b.number?.startsWith('BAD-'))).toEqual([])
  })

  it('reports a date that does not exist as a per-bill error', async () => {
    const res = await post(
      JSON.stringify([
        bill({number: 'D-ok', due_at: '2026-02-28T00:00:00Z'}),
        bill({number: 'D-bad', due_at: '2026-02-30T00:00:00Z'}),
      ]),
    )
    expect(res.status).toBe(200)
    expect(res.json.data.map((b) => b.number)).toEqual(['D-ok'])
    expect(res.json.errors).toEqual([
      {bill_number: 'D-bad', error: expect.stringContaining('due_at: is not an ISO 8601 datetime')},
    ])
  })

  it('applies the rules bk checks before sending (src/shared/bill-rules.ts), as the JSON text reads', async () => {
    const ok = '"vendor_id":"ven_demo_office","lines":[{"amount":10,"ledger_id":"ldg_demo_expenses"}]'
    const res = await post(
      `[${[
        `{"number":"R-ok",${ok}}`,
        `{"number":"R-twice","number":"R-2",${ok}}`,
        `{"number":"R-field","colour":"red",${ok}}`,
        `{"number":"R-offset","issued_at":"2026-01-31T09:00:00+01:00",${ok}}`,
        `{"number":"R-string","tags":{"department":[{"value":"sales","amount":"5"}]},${ok}}`,
        `{"number":"R-huge","vendor_id":"ven_demo_office","lines":[{"amount":1e400,"ledger_id":"ldg_demo_expenses"}]}`,
      ].join(',')}]`,
    )
    expect(res.status).toBe(200)
    expect(res.json.data.map((b) => b.number)).toEqual(['R-ok'])
    expect(res.json.errors).toEqual([
      {bill_number: 'R-twice', error: expect.stringContaining('number: has the key "number" twice')},
      {bill_number: 'R-field', error: expect.stringContaining('colour: is not a field of the spec')},
      {bill_number: 'R-offset', error: expect.stringContaining('issued_at: is not in UTC')},
      {bill_number: 'R-string', error: expect.stringContaining('tags.department[0].amount: must be a JSON number')},
      {bill_number: 'R-huge', error: expect.stringContaining('lines[0].amount: is beyond the range')},
    ])
  })

  it('reads amounts from the JSON text exactly', () => {
    expect(parseJsonExact('{"a":[0.1,-2.50e1,"3"],"b":"x\\"1"}')).toEqual({
      a: [{text: '0.1'}, {text: '-2.50e1'}, '3'],
      b: 'x"1',
    })
  })
})

describe('bill amount checks', () => {
  it('agree with money.ts parseMoney/toJsonNumber on any decimal text', () => {
    const text = fc
      .tuple(fc.constantFrom('', '-', '+'), fc.stringMatching(/^\d{0,18}$/), fc.option(fc.stringMatching(/^\d{0,8}$/)))
      .map(([sign, int, frac]) => `${sign}${int}${frac === null ? '' : '.' + frac}`)
    // Where JavaScript's own writing of a number differs from the text: zeros, signs, exponents.
    const edges = fc
      .tuple(
        fc.constantFrom('', '-', '+'),
        fc.constantFrom('', '0', '00', '1', '10', '100000000000000000000', '1000000000000000000000'),
        fc.constantFrom('', '.', '.0', '.5', '.50', '.000001', '.0000001', '.00000012', '.1000'),
      )
      .map((parts) => parts.join(''))
    fc.assert(
      fc.property(fc.oneof(text, edges, fc.string()), (t) => {
        const ours = amountProblem(t.trim()) // the assembler trims cells, as parseMoney does
        const theirs = parseMoney(t, {asJsonNumber: true})
        expect(ours === undefined).toBe(theirs.ok)
        // The body's literal is the one JSON.stringify writes for the number the service reads.
        if (theirs.ok) expect(amountLiteral(t.trim())).toBe(JSON.stringify(toJsonNumber(theirs.value)))
      }),
      {numRuns: 3000},
    )
  })

  it('name the digits of an amount written with an exponent, when they are few', () => {
    expect(amountProblem('1e3')).toBe('is not a decimal amount (exponents are not accepted; write 1000)')
    expect(amountProblem('-1.25E-2')).toBe('is not a decimal amount (exponents are not accepted; write -0.0125)')
    // Too many digits to print: the advice stays general.
    expect(amountProblem('1e999999999')).toBe(
      'is not a decimal amount (exponents are not accepted; write the digits, such as 1500)',
    )
  })
})
