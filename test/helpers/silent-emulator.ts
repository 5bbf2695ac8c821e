/**
 * An emulator that drops every request, before or after handling it, so that the outcome of each
 * bill sent is never known (unconfirmed), with a token for the demo business; the tests lift the
 * faults (`options.faultRate = 0`, read on each request) once the unconfirmed bills are made.
 */
import {expect} from 'vitest'

import {DEMO_IDS} from '../../src/emulator/seed.js'
import {start, type RunningEmulator} from './emulator.js'

export interface SilentEmulator {
  emulator: RunningEmulator
  /** The environment that points bk at it, as the demo business. */
  env: Record<string, string>
  /** The demo business's bills whose number starts with `prefix`. */
  stored(prefix: string): Array<{id: string; number: unknown}>
  /** Asserts that the bills PREFIX-1 … PREFIX-count each exist exactly once. */
  expectEachOnce(prefix: string, count: number): void
}

/** Drops before or after handling, at random (`faultSeed`), unless `faultKinds` says only one. */
export async function startSilentEmulator(
  faultSeed: number,
  faultKinds: ReadonlyArray<'reset-before' | 'reset-after'> = ['reset-before', 'reset-after'],
): Promise<SilentEmulator> {
  const emulator = await start({faultRate: 1, faultSeed, faultKinds})
  const token = `silent-token-${faultSeed}`
  emulator.state.tokens.set(token, {
    clientId: emulator.clientId,
    businessId: DEMO_IDS.business,
    expiresAt: Date.now() + 3_600_000,
  })
  const stored = (prefix: string) =>
    emulator.state.bills.all(DEMO_IDS.business).filter((b) => String(b.number).startsWith(`${prefix}-`))
  return {
    emulator,
    env: {BK_BASE_URL: emulator.baseUrl, BK_ACCESS_TOKEN: token, BK_BUSINESS_ID: DEMO_IDS.business},
    stored,
    expectEachOnce(prefix, count) {
      const counts = new Map<string, number>()
      for (const b of stored(prefix)) counts.set(String(b.number), (counts.get(String(b.number)) ?? 0) + 1)
      expect(counts.size).toBe(count)
      for (const [number, n] of counts) expect(n, number).toBe(1)
    },
  }
}
