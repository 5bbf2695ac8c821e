/**
 * The map language's arithmetic is decimal.js's: compiled expressions agree with the same sums
 * computed directly over generated values, and with the fixed vocabulary they replace
 * (`quantity` × `unit_price`, `line_net` + `line_tax`) on the same rows through the real binary.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import fc from 'fast-check'
import {describe, expect, it} from 'vitest'

import {compileExpression, parseExpression, type Type} from '../../src/bills/expression/compile.js'
import {datePattern, parseDateAs, roundMoney} from '../../src/bills/formats.js'
import {Decimal, type Money} from '../../src/shared/money.js'
import {runBk, tempDir} from '../helpers/bk.js'

const COLUMNS = ['A', 'B', 'C']
const context = {
  column: (name: string) => {
    const i = COLUMNS.indexOf(name)
    return i === -1 ? undefined : i
  },
  number: (text: string) => ({ok: true as const, value: text}),
  date: (text: string) => parseDateAs(text, 'YYYY-MM-DD'),
  places: 2,
}
const compile = (text: string, want: Type = 'number') =>
  compileExpression(
    parseExpression(text, (o) => `test:${o}`),
    want,
    context,
  )

/** A decimal with up to 6 places, as text: what a cell of an export holds. */
const decimalText = fc
  .tuple(fc.bigInt({min: -(10n ** 12n), max: 10n ** 12n}), fc.integer({min: 0, max: 6}))
  .map(([n, places]) => new Decimal(n.toString()).dividedBy(new Decimal(10).pow(places)).toFixed())

describe('expressions agree with decimal.js', () => {
  it('(A + B) * C - A / 4 and round()', () => {
    const run = compile('([A] + [B]) * [C] - [A] / 4')
    const rounded = compile('round(([A] + [B]) * [C], 2)')
    fc.assert(
      fc.property(decimalText, decimalText, decimalText, (a, b, c) => {
        const [A, B, C] = [a, b, c].map((t) => new Decimal(t))
        const direct = A!.plus(B!).times(C!).minus(A!.dividedBy(4))
        expect((run([a, b, c]) as Money).equals(direct)).toBe(true)
        const half = A!.plus(B!).times(C!).toDecimalPlaces(2, Decimal.ROUND_HALF_UP)
        expect((rounded([a, b, c]) as Money).equals(half)).toBe(true)
      }),
    )
  })

  it('if() with comparisons, negation and a discount', () => {
    const run = compile('if([A] < [B], -[C], [C] * (1 - [B] / 100))')
    fc.assert(
      fc.property(decimalText, decimalText, decimalText, (a, b, c) => {
        const [A, B, C] = [a, b, c].map((t) => new Decimal(t))
        const direct = A!.lessThan(B!) ? C!.neg() : C!.times(new Decimal(1).minus(B!.dividedBy(100)))
        expect((run([a, b, c]) as Money).equals(direct)).toBe(true)
      }),
    )
  })

  it('a date plus days is the calendar day', () => {
    const run = compile('[A] + days([B])', 'date')
    fc.assert(
      fc.property(fc.integer({min: 0, max: 20000}), fc.integer({min: -400, max: 400}), (start, days) => {
        const date = new Date(Date.UTC(2000, 0, 1) + start * 86_400_000).toISOString().slice(0, 10)
        const expected = (Date.UTC(2000, 0, 1) + (start + days) * 86_400_000) / 86_400_000
        expect(run([date, String(days), ''])).toBe(expected)
      }),
    )
  })

  it('roundMoney rounds half away from zero', () => {
    expect(roundMoney(new Decimal('-2.345'), 2).toFixed()).toBe('-2.35')
    expect(roundMoney(new Decimal('2.345'), 2).toFixed()).toBe('2.35')
  })
})

describe('date patterns', () => {
  it.each([
    ['DD-MM-YYYY', '05-02-2026', '2026-02-05'],
    ['MM/DD/YY', '2/5/26', '2026-02-05'],
    ['D.M.YYYY', '5.2.2026', '2026-02-05'],
    ['YYYYMMDD', '20260205', '2026-02-05'],
    ['DDMMYYYY', '05022026', '2026-02-05'],
  ])('%s reads %s', (pattern, text, iso) => {
    expect(parseDateAs(text, pattern)).toEqual({ok: true, value: `${iso}T00:00:00Z`})
  })

  it('DDMM takes the year given, and a fiscal year starting on 1 July moves earlier days to the next year', () => {
    const fiscal = {year: 2025, fiscalStart: {month: 7, day: 1}, from: 'test'}
    expect(parseDateAs('0502', 'DDMM', fiscal)).toEqual({ok: true, value: '2026-02-05T00:00:00Z'})
    expect(parseDateAs('0107', 'DDMM', fiscal)).toEqual({ok: true, value: '2025-07-01T00:00:00Z'})
    expect(parseDateAs('3006', 'DDMM', fiscal)).toEqual({ok: true, value: '2026-06-30T00:00:00Z'})
    expect(parseDateAs('501', 'DDMM', {year: 2026, from: 'test'})).toEqual({ok: true, value: '2026-01-05T00:00:00Z'})
    expect(parseDateAs('0502', 'DDMM')).toMatchObject({ok: false})
  })

  it('refuses what is not a pattern', () => {
    for (const bad of ['DD/DD/YYYY', 'DMYYYY', 'YYYY', 'DD//MM']) expect(typeof datePattern(bad)).toBe('string')
  })
})

describe('expressions agree with the fixed vocabulary on the same rows (real binary)', () => {
  const row = fc.record({
    quantity: fc.integer({min: 1, max: 999}).chain((n) => fc.constantFrom(String(n), `${n}.5`, `${n}.25`)),
    price: fc
      .tuple(fc.integer({min: 1, max: 10_000_000}), fc.integer({min: 0, max: 3}))
      .map(([n, places]) => new Decimal(n).dividedBy(new Decimal(10).pow(places)).toFixed()),
    tax: fc.integer({min: 0, max: 99_999}).map((n) => new Decimal(n).dividedBy(100).toFixed()),
  })

  it('quantity × unit_price and line_net + line_tax, as expressions, send the same amounts', async () => {
    const rows = fc.sample(fc.array(row, {minLength: 200, maxLength: 200}), {numRuns: 1, seed: 27})[0]!
    const dir = tempDir('bk-maplang-prop-')
    const csv = [
      'Vendor,Ref,Account,Qty,Price,Tax',
      ...rows.map((r, i) => `ven_demo_office,B-${i},ldg_demo_expenses,${r.quantity},${r.price},${r.tax}`),
    ]
    writeFileSync(join(dir, 'bills.csv'), csv.join('\n') + '\n')
    const base = ['columns:', '  Vendor: vendor_id', '  Ref: number', '  Account: line_ledger_id']
    const maps = {
      'product.yaml': [...base, '  Qty: quantity', '  Price: unit_price', '  Tax: ~'],
      'product-expr.yaml': [...base, 'compute:', '  line_amount: "[Qty] * [Price]"', 'ignore: [Tax]'],
      'gross.yaml': [...base, '  Qty: ~', '  Price: line_net', '  Tax: line_tax', 'amounts: gross'],
      'gross-expr.yaml': [...base, 'compute:', '  line_amount: "[Price] + [Tax]"', '  line_metadata:qty: "[Qty]"'],
    }
    const amounts: Record<string, unknown> = {}
    for (const [name, lines] of Object.entries(maps)) {
      writeFileSync(join(dir, name), [...lines, 'defaults: {currency: EUR}', ''].join('\n'))
      const result = await runBk(
        ['bills', 'import', 'bills.csv', '--map', name, '--dry-run', '--show', '1000', '-b', 'biz_demo_acme'],
        {cwd: dir},
      )
      expect(result.code, result.stderr).toBe(0)
      amounts[name] = (JSON.parse(result.stdout) as Array<{lines: Array<{amount: number}>}>).map(
        (b) => b.lines[0]!.amount,
      )
    }
    expect(amounts['product-expr.yaml']).toEqual(amounts['product.yaml'])
    expect(amounts['gross-expr.yaml']).toEqual(amounts['gross.yaml'])
    // And both are decimal.js's own: quantity × price, rounded half away from zero to cents.
    const direct = rows.map((r) =>
      new Decimal(r.quantity).times(r.price).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toNumber(),
    )
    expect(amounts['product.yaml']).toEqual(direct)
  })
})
