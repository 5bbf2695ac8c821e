import fc from 'fast-check'
import {describe, expect, it} from 'vitest'

import {JsonNumber, JsonSyntaxError, parseJsonExact, parseJsonTree} from '../src/shared/exact-json.js'

/** The exact value with each JsonNumber through Number(), to compare with JSON.parse. */
const asNumbers = (value: unknown): unknown => {
  if (value instanceof JsonNumber) return Number(value.text)
  if (Array.isArray(value)) return value.map(asNumbers)
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asNumbers(v)]))
  return value
}

describe('parseJsonExact', () => {
  it('reads what JSON.parse reads, numbers kept as their text', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 2), (value, indent) => {
        const text = JSON.stringify(value, null, indent)
        expect(asNumbers(parseJsonExact(text))).toEqual(JSON.parse(text))
      }),
      {numRuns: 500},
    )
    const proto = parseJsonExact('{"__proto__": {"x": 1}, "y": 2}') as Record<string, unknown>
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype)
    expect(Object.keys(proto)).toEqual(['__proto__', 'y'])
    expect(parseJsonExact('[1.50, -0, 1E+5, 12345678901234567890]')).toEqual([
      new JsonNumber('1.50'),
      new JsonNumber('-0'),
      new JsonNumber('1E+5'),
      new JsonNumber('12345678901234567890'),
    ])
  })

  it('refuses NaN and Infinity, which the webhook tree (Python json.loads) accepts', () => {
    for (const text of ['NaN', '[Infinity]', '{"a": -Infinity}']) {
      expect(() => parseJsonExact(text)).toThrow(JsonSyntaxError)
      expect(() => parseJsonTree(text)).not.toThrow()
    }
  })

  it('refuses what JSON.parse refuses, naming the position', () => {
    for (const text of ['', '[01]', '[1.]', '{"a":1,}', '"tab\there"', '[1] x', '{"a" 1}']) {
      expect(() => JSON.parse(text)).toThrow()
      expect(() => parseJsonExact(text)).toThrow(/at character \d+$/)
    }
  })
})
