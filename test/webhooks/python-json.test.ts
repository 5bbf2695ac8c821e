import fc from 'fast-check'
import {describe, expect, it} from 'vitest'

import {JsonNumber, JsonSyntaxError} from '../../src/shared/exact-json.js'
import {pythonFloatRepr, pythonJsonDumps, pythonJsonFromText} from '../../src/shared/python-json.js'
import {deliveries, delivery} from './helpers.js'

describe('Python json.dumps from the raw text', () => {
  it.each(deliveries.filter((d) => d.name !== 'python-numbers').map((d) => [d.name, d] as const))(
    'rebuilds what Python wrote for the %s sample from its compact UTF-8 re-encoding',
    (_name, d) => {
      expect(d.received).not.toBe(d.body)
      expect(pythonJsonFromText(d.received)).toBe(d.body)
      // Python's own output is a fixed point.
      expect(pythonJsonFromText(d.body)).toBe(d.body)
    },
  )

  it('keeps number literals as written, unlike a JS round trip', () => {
    const raw = '{"a":1.0,"b":1e-05,"c":[1.50, -0.0, 12345678901234567890]}'
    expect(pythonJsonFromText(raw)).toBe('{"a": 1.0, "b": 1e-05, "c": [1.50, -0.0, 12345678901234567890]}')
    expect(JSON.stringify(JSON.parse(raw))).not.toContain('1.0')
  })

  it("normalises numbers as json.loads + json.dumps does in 'python' mode (the python-numbers fixture)", () => {
    const d = delivery('python-numbers')
    expect(pythonJsonFromText(d.received)).not.toBe(d.body)
    expect(pythonJsonFromText(d.received, {numbers: 'python'})).toBe(d.body)
  })

  it('escapes as Python does: non-ASCII, surrogate pairs, control characters, quotes; not the slash', () => {
    expect(pythonJsonFromText('"é😀/\\u0001\\"\\\\\\t\u007f"')).toBe('"\\u00e9\\ud83d\\ude00/\\u0001\\"\\\\\\t\\u007f"')
    expect(pythonJsonFromText('"\\ud800"')).toBe('"\\ud800"')
    expect(pythonJsonFromText(' { } ')).toBe('{}')
    expect(pythonJsonFromText('[ ]')).toBe('[]')
  })

  it('refuses text that is not JSON, naming where', () => {
    expect(() => pythonJsonFromText('{"a":1,}')).toThrow(JsonSyntaxError)
    expect(() => pythonJsonFromText('{"a":01}')).toThrow(/character/)
    expect(() => pythonJsonFromText('"tab\there"')).toThrow(/Control character/)
    expect(() => pythonJsonFromText('[1] x')).toThrow(/Extra data/)
  })

  it('is a fixed point and keeps the parsed value, for any JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const once = pythonJsonFromText(JSON.stringify(value))
        expect(pythonJsonFromText(once)).toBe(once)
        expect(JSON.parse(once)).toEqual(JSON.parse(JSON.stringify(value)))
      }),
      {numRuns: 300},
    )
  })
})

describe('Python json.dumps from JS values', () => {
  it("prints floats as Python's repr", () => {
    const cases: Array<[number, string]> = [
      [1e-5, '1e-05'],
      [1.5e-7, '1.5e-07'],
      [1e16, '1e+16'],
      [1e22, '1e+22'],
      [0.0001, '0.0001'],
      [1234.5, '1234.5'],
      [0.1, '0.1'],
      [-0, '-0.0'],
      [123456789.125, '123456789.125'],
      [1.7976931348623157e308, '1.7976931348623157e+308'],
      [5e-324, '5e-324'],
    ]
    for (const [n, text] of cases) expect(pythonFloatRepr(n)).toBe(text)
  })

  it.each(['ascii', 'non-ascii', 'emoji', 'escapes'])(
    'writes what Python wrote for the %s sample from its JS value',
    (name) => {
      const d = delivery(name)
      expect(pythonJsonDumps(JSON.parse(d.received))).toBe(d.body)
    },
  )

  it('keeps key order, skips undefined members, and writes JsonNumber as given', () => {
    expect(pythonJsonDumps({b: 1, a: [true, null, 'x'], u: undefined, f: new JsonNumber('1.0')})).toBe(
      '{"b": 1, "a": [true, null, "x"], "f": 1.0}',
    )
  })
})
