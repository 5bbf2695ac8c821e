/**
 * The pure balance check (no binary needed): generated balanced sets of decimal lines pass, and
 * any perturbation of one amount fails, including amounts with more digits than a double holds.
 */
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'

import {checkBalance, parseAmount, type BalanceLine} from '../../src/shared/journal-entry-rules.js'
import {Decimal} from '../../src/shared/money.js'

/** A positive decimal as text: up to 22 integer digits and 0 to 6 decimals, never zero. */
const amountText = fc
  .tuple(fc.bigInt({min: 0n, max: 10n ** 22n}), fc.integer({min: 0, max: 6}))
  .filter(([units]) => units > 0n)
  .map(([units, scale]) => {
    const digits = units.toString().padStart(scale + 1, '0')
    return scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`
  })

const balancedLines = fc
  .tuple(fc.array(amountText, {minLength: 1, maxLength: 6}), fc.array(amountText, {minLength: 1, maxLength: 6}))
  .chain(([debits, credits]) => {
    const lines: BalanceLine[] = [
      ...debits.map((amount) => ({side: 'debit' as const, amount})),
      ...credits.map((amount) => ({side: 'credit' as const, amount})),
    ]
    const diff = debits
      .reduce((s, a) => s.plus(a), new Decimal(0))
      .minus(credits.reduce((s, a) => s.plus(a), new Decimal(0)))
    if (diff.isPositive() && !diff.isZero()) lines.push({side: 'credit', amount: diff.toFixed()})
    if (diff.isNegative()) lines.push({side: 'debit', amount: diff.abs().toFixed()})
    return fc.shuffledSubarray(lines, {minLength: lines.length, maxLength: lines.length})
  })

describe('checkBalance', () => {
  it('passes every generated balanced set of decimal lines', () => {
    fc.assert(
      fc.property(balancedLines, (lines) => {
        for (const l of lines) expect(parseAmount(l.amount).ok).toBe(true)
        const result = checkBalance(lines)
        expect(result.problems).toEqual([])
        expect(result.ok).toBe(true)
        expect(result.debits).toBe(result.credits)
      }),
      {numRuns: 300},
    )
  })

  it('fails when any one amount is perturbed, however slightly, and gives both totals and the difference', () => {
    const perturbation = fc.tuple(fc.nat(), fc.integer({min: 1, max: 9}), fc.integer({min: 0, max: 8}), fc.boolean())
    fc.assert(
      fc.property(balancedLines, perturbation, (lines, [pick, digit, exponent, up]) => {
        const i = pick % lines.length
        const line = lines[i] as BalanceLine
        const delta = new Decimal(digit).times(new Decimal(10).pow(-exponent))
        let changed = up ? new Decimal(line.amount).plus(delta) : new Decimal(line.amount).minus(delta)
        if (!changed.isPositive() || changed.isZero()) changed = new Decimal(line.amount).plus(delta)
        const perturbed = lines.map((l, j) => (j === i ? {...l, amount: changed.toFixed()} : l))
        const result = checkBalance(perturbed)
        expect(result.ok).toBe(false)
        expect(result.problems.map((p) => p.kind)).toEqual(['unbalanced'])
        const message = result.problems[0]?.message ?? ''
        expect(message).toContain(`debits ${result.debits}, credits ${result.credits}, difference `)
        expect(new Decimal(result.difference).abs().equals(delta)).toBe(true)
      }),
      {numRuns: 300},
    )
  })

  it('0.1 + 0.2 debit balances 0.3 credit; 0.30000000000000004 does not', () => {
    const lines: BalanceLine[] = [
      {side: 'debit', amount: '0.1'},
      {side: 'debit', amount: '0.2'},
      {side: 'credit', amount: '0.3'},
    ]
    expect(checkBalance(lines).ok).toBe(true)
    const off = checkBalance([...lines.slice(0, 2), {side: 'credit', amount: '0.30000000000000004'}])
    expect(off.ok).toBe(false)
    expect(off.problems[0]?.message).toBe(
      'does not balance: debits 0.30000000000000000, credits 0.30000000000000004, difference 0.00000000000000004 (credits higher)',
    )
  })

  it('keeps amounts beyond a double exact: 9007199254740993 is not 9007199254740992', () => {
    expect(Number('9007199254740993')).toBe(Number('9007199254740992'))
    const result = checkBalance([
      {side: 'debit', amount: '9007199254740993'},
      {side: 'credit', amount: '9007199254740992'},
    ])
    expect(result.ok).toBe(false)
    expect(result.difference).toBe('1.00')
  })

  it('needs a debit and a credit line', () => {
    expect(checkBalance([{side: 'debit', amount: '1'}]).problems.map((p) => p.kind)).toEqual([
      'no_credit',
      'unbalanced',
    ])
    expect(
      checkBalance([
        {side: 'credit', amount: '1'},
        {side: 'credit', amount: '1'},
      ]).problems.map((p) => p.kind),
    ).toEqual(['no_debit', 'unbalanced'])
  })
})

describe('parseAmount', () => {
  it.each([['120.50'], ['0.01'], ['12345678901234567890123.456789']])('accepts %s', (text) => {
    const r = parseAmount(text)
    expect(r.ok && r.value.toFixed()).toBe(new Decimal(text).toFixed())
  })
  it.each([['0'], ['-1'], ['1,000'], ['1e3'], ['.5'], ['5.'], ['+5'], [''], ['abc'], ['0x10']])(
    'rejects %s',
    (text) => {
      expect(parseAmount(text).ok).toBe(false)
    },
  )
})
