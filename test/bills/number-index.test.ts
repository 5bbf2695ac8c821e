/**
 * The set of bill numbers seen in a file (src/bills/number-index.ts): every number is new once,
 * and again it answers the line it was first seen on, through every growth of its table.
 */
import {describe, expect, it} from 'vitest'

import {NumberIndex} from '../../src/bills/number-index.js'

describe('NumberIndex', () => {
  it('answers 0 for a new number and the first line for one seen, across growths', () => {
    const index = new NumberIndex(16)
    const numbers = Array.from({length: 50_000}, (_, i) => `INV-${i}`)
    const firstSeen = numbers.map((n, i) => index.addOrGet(n, i + 2))
    expect(firstSeen.every((line) => line === 0)).toBe(true)
    const again = numbers.map((n, i) => index.addOrGet(n, i + 100_000))
    expect(again).toEqual(numbers.map((_, i) => i + 2))
  })

  it('keeps a number first seen on line 0 (no line) as seen', () => {
    const index = new NumberIndex()
    expect(index.addOrGet('B-1', 0)).toBe(0)
    expect(index.addOrGet('B-1', 7)).toBe(1)
    expect(index.addOrGet('b-1', 8)).toBe(0)
  })
})
