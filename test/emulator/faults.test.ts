import {describe, expect, it} from 'vitest'

import {start} from '../helpers/emulator.js'
import {call, credentials, recordEvents} from './support.js'

type Outcome = '503' | '429' | '5xx' | 'dropped' | 'ok'

describe('fault injection', () => {
  it('with fault rate 1 every request meets one of the five faults, reproducibly per seed', async () => {
    const runOnce = async () => {
      const emulator = await start({faultRate: 1, faultSeed: 42, retryAfterSeconds: 3})
      try {
        const outcomes: Outcome[] = []
        for (let i = 0; i < 40; i++) {
          try {
            const res = await call(emulator, 'POST', '/v0/auth/token', {form: credentials(emulator)})
            expect(['503', '429', '500', '502', '504']).toContain(String(res.status))
            expect(res.body).toEqual({error: expect.any(String), data: null})
            if (res.status === 503 || res.status === 429) {
              // Both carry Retry-After.
              expect(res.headers.get('retry-after')).toBe('3')
              outcomes.push(String(res.status) as Outcome)
            } else {
              outcomes.push('5xx')
            }
          } catch (error) {
            expect(String((error as Error).cause ?? error)).toMatch(/socket|closed|reset|terminated/i)
            outcomes.push('dropped')
          }
        }
        const counts = {...emulator.faults.counts}
        // The inspection route reports the same counters, and is itself never faulted.
        const inspected = await call(emulator, 'GET', '/_emulator/faults')
        expect(inspected.status).toBe(200)
        expect(inspected.body.data).toEqual({
          rate: 1,
          seed: 42,
          kinds: ['503', '429', 'reset-before', 'reset-after', 'commit-5xx'],
          counts,
        })
        // A token was committed for each reset-after and commit-5xx and for nothing else: the
        // effect of a request handled before the fault is kept, one dropped before handling is not.
        const stored = await call(emulator, 'GET', '/_emulator/counts')
        return {outcomes, counts, tokens: stored.body.data.tokens as number}
      } finally {
        await emulator.close()
      }
    }
    const first = await runOnce()
    const {outcomes, counts, tokens} = first
    expect(counts['503']).toBeGreaterThan(0)
    expect(counts['429']).toBeGreaterThan(0)
    expect(counts['reset-before']).toBeGreaterThan(0)
    expect(counts['reset-after']).toBeGreaterThan(0)
    expect(counts['commit-5xx']).toBeGreaterThan(0)
    expect(counts['503'] + counts['429'] + counts['reset-before'] + counts['reset-after'] + counts['commit-5xx']).toBe(
      40,
    )
    expect(outcomes.filter((o) => o === '5xx').length).toBe(counts['commit-5xx'])
    expect(outcomes.filter((o) => o === '503').length).toBe(counts['503'])
    expect(outcomes.filter((o) => o === '429').length).toBe(counts['429'])
    expect(outcomes.filter((o) => o === 'dropped').length).toBe(counts['reset-before'] + counts['reset-after'])
    expect(tokens).toBe(counts['reset-after'] + counts['commit-5xx'])
    // The same seed gives the same faults in the same order.
    expect((await runOnce()).outcomes).toEqual(outcomes)
  })

  it('reset-after commits a business creation and reset-before does not', async () => {
    const emulator = await start({
      seed: 'empty',
      faultRate: 1,
      faultSeed: 7,
      faultKinds: ['503', '429', 'reset-before', 'reset-after'],
    })
    const events = recordEvents(emulator)
    try {
      const seen = {'reset-before': 0, 'reset-after': 0}
      for (let i = 0; seen['reset-before'] < 2 || seen['reset-after'] < 2; i++) {
        expect(i).toBeLessThan(100)
        const before = {...emulator.faults.counts}
        const name = `Faulted ${i}`
        const outcome = await call(emulator, 'POST', '/_emulator/businesses', {json: {name}}).then(
          (r) => r.status,
          () => 'dropped',
        )
        const kind = (Object.keys(before) as Array<keyof typeof before>).find(
          (k) => emulator.faults.counts[k] === before[k] + 1,
        )
        const stored = [...emulator.state.businesses.values()].some((b) => b.name === name)
        if (kind === 'reset-after') {
          expect(outcome).toBe('dropped')
          expect(stored).toBe(true)
          expect(events.at(-1)).toMatchObject({type: 'BUSINESS_CREATED'})
          seen[kind]++
        } else if (kind === 'reset-before') {
          expect(outcome).toBe('dropped')
          expect(stored).toBe(false)
          seen[kind]++
        } else {
          expect(outcome).toBe(Number(kind))
          expect(stored).toBe(false)
        }
      }
      // The token-free inspection routes are never faulted, even at rate 1.
      const counts = await call(emulator, 'GET', '/_emulator/counts')
      expect(counts.status).toBe(200)
      expect(counts.body.data.businesses).toBe(1 + emulator.faults.counts['reset-after'])
      expect(events.length).toBe(emulator.faults.counts['reset-after'])
    } finally {
      await emulator.close()
    }
  })

  it('never faults with fault rate 0 and still answers with added latency', async () => {
    const emulator = await start({latencyMs: 30})
    try {
      for (let i = 0; i < 5; i++)
        expect((await call(emulator, 'POST', '/v0/auth/token', {form: credentials(emulator)})).status).toBe(200)
      expect(emulator.faults.counts).toEqual({'503': 0, '429': 0, 'reset-before': 0, 'reset-after': 0, 'commit-5xx': 0})
      expect(emulator.state.tokens.size).toBe(5)
    } finally {
      await emulator.close()
    }
  })
})
