import {describe, expect, it} from 'vitest'

import {parseIsoDatetime, toUtcText} from '../src/shared/datetime.js'

const parse = (text: string) => {
  const r = parseIsoDatetime(text)
  if (!r.ok) throw new Error(`${text}: ${r.problem}`)
  return r.value
}

describe('parseIsoDatetime', () => {
  it.each([
    ['2026-13-01', 'date'],
    ['2025-02-29', 'date'],
    ['2026-04-31', 'date'],
    ['2026-01-01T24:00:00Z', 'time'],
    ['2026-01-01T10:60Z', 'time'],
    ['2026-01-01T10:00:00+25:00', 'time'],
    ['2026-1-1', 'syntax'],
    ['1 March 2026', 'syntax'],
    ['2026-01-01T10', 'syntax'],
  ])('refuses %s (%s)', (text, problem) => {
    expect(parseIsoDatetime(text)).toEqual({ok: false, problem})
  })

  it('accepts a leap day and a date alone as midnight UTC', () => {
    const v = parse('2024-02-29')
    expect(v.time).toBeUndefined()
    expect(toUtcText(v)).toBe('2024-02-29T00:00:00Z')
    expect(v.epochMs).toBe(Date.UTC(2024, 1, 29))
  })

  it('reads offsets in all three forms and converts across midnight', () => {
    expect(toUtcText(parse('2026-03-01T01:30:00+02:00'))).toBe('2026-02-28T23:30:00Z')
    expect(toUtcText(parse('2026-03-01T01:30:00+0530'))).toBe('2026-02-28T20:00:00Z')
    expect(toUtcText(parse('2026-12-31T22:00-05'))).toBe('2027-01-01T03:00:00Z')
    expect(parse('2026-03-01T01:30:00-05:00').offsetMinutes).toBe(-300)
  })

  it('keeps the fraction as written and fills in seconds', () => {
    expect(toUtcText(parse('2026-03-01T09:30:00.123456Z'))).toBe('2026-03-01T09:30:00.123456Z')
    expect(toUtcText(parse('2026-03-01t09:30z'))).toBe('2026-03-01T09:30:00Z')
    expect(toUtcText(parse('2026-03-01T09:30:00.5+01:00'))).toBe('2026-03-01T08:30:00.5Z')
  })

  it('tells a missing zone from UTC', () => {
    expect(parse('2026-03-01T09:30:00').offsetMinutes).toBeUndefined()
    expect(parse('2026-03-01T09:30:00Z').offsetMinutes).toBe(0)
    expect(parse('2026-03-01T09:30:00').epochMs).toBe(parse('2026-03-01T09:30:00Z').epochMs)
  })

  it('keeps a year below 100 as written (Date.UTC would read 0026 as 1926)', () => {
    expect(toUtcText(parse('0026-01-31T09:00:00+01:00'))).toBe('0026-01-31T08:00:00Z')
    expect(parse('0099-12-31').epochMs).toBe(new Date('0099-12-31T00:00:00Z').getTime())
    // Year 0 is a leap year in ISO 8601; 1900 is not.
    expect(parseIsoDatetime('0000-02-29').ok).toBe(true)
  })
})
