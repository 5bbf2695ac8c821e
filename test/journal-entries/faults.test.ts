/**
 * Reliability: against an emulator that drops connections (before and after handling a request)
 * and answers 503/429, repeated `create --resume` runs never post an entry twice, and every
 * entry ends either created once or reported as unconfirmed.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {DEMO_IDS} from '../../src/emulator/seed.js'
import {parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

const L = DEMO_IDS.ledgers
const COUNT = 12

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start({faultRate: 0.35, faultSeed: 7, retryAfterSeconds: 0})
})
afterAll(() => emulator.close())

interface Out {
  created: Array<{index: number}>
  skipped: Array<{index: number}>
  failed: Array<{index: number}>
  unconfirmed: Array<{index: number}>
}

describe('journal-entries create under injected faults', () => {
  it('never posts an entry twice across re-runs with --resume', async () => {
    const file = join(tempDir('bk-je-faults-'), 'faults.yaml')
    writeFileSync(
      file,
      'entries:\n' +
        Array.from(
          {length: COUNT},
          (_, i) =>
            `  - description: Fault ${i + 1}\n    datetime: 2026-04-01T00:00:00Z\n    lines:\n      - {ledger_id: ${L.expenses}, debit: ${i + 1}.25}\n      - {ledger_id: ${L.cash}, credit: ${i + 1}.25}\n`,
        ).join(''),
    )
    let last: Out | undefined
    for (let run = 0; run < 12; run++) {
      const result = await runBk(['journal-entries', 'create', file, '--json', ...(run === 0 ? [] : ['--resume'])], {
        env: envFor(emulator),
      })
      const body = parseJsonOutput<Out & {details?: Out}>(result)
      const out = body.details ?? body
      // An error before any posting (the token request failing) has no details: run again.
      if (!('created' in out)) continue
      last = out
      if (out.created.length === 0 && out.failed.length === 0 && result.code !== 7) break
    }
    expect(emulator.faults.counts['reset-after'] + emulator.faults.counts['reset-before']).toBeGreaterThan(0)
    expect(last).toBeDefined()
    expect(last?.skipped.length).toBeGreaterThan(0)
    const stored = emulator.state.journalEntries
      .all(DEMO_IDS.business)
      .filter((e) => e.description?.startsWith('Fault '))
    const counts = new Map<string, number>()
    for (const e of stored) counts.set(e.description as string, (counts.get(e.description as string) ?? 0) + 1)
    for (const [description, n] of counts) expect(n, description).toBe(1)
    const unconfirmed = new Set((last as Out).unconfirmed.map((u) => u.index))
    const skipped = new Set((last as Out).skipped.map((u) => u.index))
    for (let i = 1; i <= COUNT; i++) {
      const exists = counts.has(`Fault ${i}`)
      // Each entry is either known created (skipped on the last run) or unconfirmed; never unsent.
      expect(skipped.has(i) || unconfirmed.has(i), `entry ${i}`).toBe(true)
      if (skipped.has(i)) expect(exists, `entry ${i}`).toBe(true)
    }
  }, 240_000)
  it('never re-sends an entry the service answered 500, 502 or 504 after committing it', async () => {
    // Every request is handled and committed, then answered with a 5xx, as a gateway may answer.
    const faulty = await start({faultRate: 1, faultKinds: ['commit-5xx']})
    try {
      // The token request is committed too: its token is in the emulator's state.
      await fetch(`${faulty.baseUrl}/v0/auth/token`, {
        method: 'POST',
        headers: {'content-type': 'application/x-www-form-urlencoded'},
        body: new URLSearchParams({
          client_id: faulty.clientId,
          client_secret: faulty.clientSecret,
          business_id: DEMO_IDS.business,
        }),
      })
      const [token] = [...faulty.state.tokens.keys()]
      expect(token).toBeDefined()
      const env = {BK_BASE_URL: faulty.baseUrl, BK_ACCESS_TOKEN: token, BK_BUSINESS_ID: DEMO_IDS.business}
      const file = join(tempDir('bk-je-commit5xx-'), 'gateway.yaml')
      writeFileSync(
        file,
        'entries:\n' +
          [1, 2, 3]
            .map(
              (i) =>
                `  - description: Gateway ${i}\n    datetime: 2026-04-01T00:00:00Z\n    lines:\n      - {ledger_id: ${L.expenses}, debit: ${i}.00}\n      - {ledger_id: ${L.cash}, credit: ${i}.00}\n`,
            )
            .join(''),
      )
      let last: Out | undefined
      for (let run = 0; run < 4; run++) {
        const result = await runBk(['journal-entries', 'create', file, '--json', ...(run === 0 ? [] : ['--resume'])], {
          env,
        })
        const body = parseJsonOutput<Out & {details?: Out}>(result)
        last = body.details ?? body
      }
      expect(faulty.faults.counts['commit-5xx']).toBeGreaterThan(3)
      const stored = faulty.state.journalEntries
        .all(DEMO_IDS.business)
        .filter((e) => e.description?.startsWith('Gateway '))
      // Each entry was posted exactly once, and each is reported as unconfirmed, not failed.
      expect(stored.map((e) => e.description).sort()).toEqual(['Gateway 1', 'Gateway 2', 'Gateway 3'])
      expect(last?.failed).toEqual([])
      expect(last?.unconfirmed.map((u) => u.index).sort()).toEqual([1, 2, 3])
    } finally {
      await faulty.close()
    }
  })

  it('an entry whose token request failed was not sent: failed, and --resume sends it', async () => {
    // Every request is answered 500, 502 or 504, the token request too: no entry can leave.
    const faulty = await start({faultRate: 1, faultKinds: ['commit-5xx']})
    try {
      const file = join(tempDir('bk-je-token-5xx-'), 'token.yaml')
      writeFileSync(
        file,
        `entries:\n  - description: Token 1\n    datetime: 2026-04-01T00:00:00Z\n    lines:\n      - {ledger_id: ${L.expenses}, debit: 1.00}\n      - {ledger_id: ${L.cash}, credit: 1.00}\n`,
      )
      const first = await runBk(['journal-entries', 'create', file, '--json'], {env: envFor(faulty)})
      expect(first.code).toBe(7)
      const body = parseJsonOutput<{details: Out}>(first)
      expect(body.details.unconfirmed).toEqual([])
      expect(body.details.failed.map((f) => f.index)).toEqual([1])
      // The service comes back: the entry is sent once.
      faulty.faults.next = () => undefined
      const resumed = await runBk(['journal-entries', 'create', file, '--resume', '--json'], {env: envFor(faulty)})
      expect(resumed.code, resumed.stdout).toBe(0)
      const stored = faulty.state.journalEntries.all(DEMO_IDS.business).filter((e) => e.description === 'Token 1')
      expect(stored).toHaveLength(1)
    } finally {
      await faulty.close()
    }
  })
})
