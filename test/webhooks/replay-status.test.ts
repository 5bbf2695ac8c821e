/**
 * bk webhooks replay shows each notification's delivery status, which the spec's record does not
 * carry: bk looks each up in the list filtered by status. Statuses are set in the emulator's
 * state, so every combination is on one small page boundary.
 */
import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'

import {parseJsonOutput, runBk} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

vi.setConfig({testTimeout: 240_000})

let emulator: RunningEmulator
let env: Record<string, string | undefined>
const STATUSES = ['pending', 'sent', 'sent', 'error', 'pending', 'error', 'sent'] as const
beforeAll(async () => {
  emulator = await start()
  env = envFor(emulator, null)
  for (let i = 0; i < STATUSES.length; i++) {
    const res = await fetch(`${emulator.baseUrl}/_emulator/events`, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: JSON.stringify({type: 'TASK_REQUEST'}),
    })
    expect(res.status).toBe(202)
  }
  const records = emulator.state.notifications.slice(-STATUSES.length)
  records.forEach((n, i) => (n.status = STATUSES[i] as (typeof STATUSES)[number]))
})
afterAll(() => emulator.close())

interface ReplayJson {
  items: Array<{id: string; status: string}>
}

const expected = (keep: (s: string) => boolean = () => true) =>
  emulator.state.notifications.filter((n) => keep(n.status)).map((n) => ({id: n.id, status: n.status}))

describe('bk webhooks replay: delivery status', () => {
  it('gives each notification its status, across pages', async () => {
    const res = await runBk(['webhooks', 'replay', '--page-size', '2', '--json'], {env})
    expect(res.code, res.stderr).toBe(0)
    const items = parseJsonOutput<ReplayJson>(res).items.map((i) => ({id: i.id, status: i.status}))
    expect(items).toEqual(expected())
    expect(new Set(items.map((i) => i.status))).toEqual(new Set(['pending', 'sent', 'error']))
  })

  it('with --status, only those, each with its own', async () => {
    const res = await runBk(['webhooks', 'replay', '--status', 'error,pending', '--page-size', '1', '--json'], {env})
    const items = parseJsonOutput<ReplayJson>(res).items.map((i) => ({id: i.id, status: i.status}))
    expect(items).toEqual(expected((s) => s === 'error' || s === 'pending'))
  })

  it('--since an id the service does not hold: exit 4, a hint with no flag replay lacks', async () => {
    const res = await runBk(['webhooks', 'replay', '--since', 'msg_nope'], {env})
    expect(res.code, res.stderr).toBe(4)
    expect(res.stderr).toContain('Webhook notification msg_nope not found')
    expect(res.stderr).toContain('Hint: `bk webhooks replay` without --since lists the notifications')
    expect(res.stderr).not.toContain('--business')
  })

  it('after --since, and for people: a status column', async () => {
    const since = emulator.state.notifications[2]!.id
    const res = await runBk(['webhooks', 'replay', '--since', since], {env})
    expect(res.code, res.stderr).toBe(0)
    const lines = res.stdout.trim().split('\n')
    const after = emulator.state.notifications.slice(3)
    expect(lines).toHaveLength(after.length)
    // Id, time (as the tables write it), status and type: no JSON body, which is in --json.
    after.forEach((n, i) =>
      expect(lines[i]).toMatch(
        new RegExp(`^${n.id}  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d(:\\S+)?Z  ${n.status} +TASK_REQUEST$`),
      ),
    )
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80)
  })
})
