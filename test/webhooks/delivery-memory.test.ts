/**
 * What `bk webhooks listen` remembers: ids bounded by time, not by a count, kept across restarts
 * in its --state file, and a torn file refused.
 */
import {readFileSync, truncateSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {DeliveryMemory} from '../../src/webhooks/delivery-memory.js'
import {tempDir} from '../helpers/bk.js'

describe('DeliveryMemory', () => {
  it('still knows an id after 10,001 others, and forgets it once its window has passed', async () => {
    let now = 1_000_000
    const memory = await DeliveryMemory.open(undefined, {windowMs: 60_000, now: () => now})
    await memory.add('msg_first')
    for (let i = 0; i < 10_001; i++) await memory.add(`msg_${i}`)
    expect(memory.has('msg_first')).toBe(true)
    now += 60_001
    expect(memory.has('msg_first')).toBe(false)
    expect(memory.size).toBe(0)
  })

  it('keeps the ids and the last one in its file across a restart, and refuses the file torn', async () => {
    const file = join(tempDir(), 'listen.state')
    const first = await DeliveryMemory.open(file)
    await first.add('msg_a')
    await first.add('msg_b')
    const again = await DeliveryMemory.open(file)
    expect(again.has('msg_a')).toBe(true)
    expect(again.lastId).toBe('msg_b')

    const length = readFileSync(file).length
    truncateSync(file, length - 5)
    await expect(DeliveryMemory.open(file)).rejects.toThrow(/is a damaged listen state file: it is cut short/)
    expect(readFileSync(file).length).toBe(length - 5)
  })

  it('starts a catch-up before the oldest forward not acknowledged, kept across a restart, and keeps what came after it', async () => {
    let now = 1_000_000
    const file = join(tempDir(), 'listen.state')
    const first = await DeliveryMemory.open(file, {windowMs: 60_000, now: () => now})
    expect(first.catchUpFrom()).toBeNull()
    await first.forwarding('msg_a') // refused: never acknowledged
    await first.forwarding('msg_b')
    await first.add('msg_b')
    expect(first.catchUpFrom()).toEqual({since: null, firstId: 'msg_a', unacknowledged: ['msg_a']})
    await first.forwarding('msg_c') // killed during its forward
    await first.add('msg_a')
    expect(first.catchUpFrom()).toEqual({since: 'msg_b', unacknowledged: ['msg_c']})

    now += 60_001
    const again = await DeliveryMemory.open(file, {windowMs: 60_000, now: () => now})
    expect(again.catchUpFrom()).toEqual({since: 'msg_b', unacknowledged: ['msg_c']})
    // Past their window, the ids handled after the one waiting are still known, so not repeated.
    expect(again.has('msg_b')).toBe(true)
    await again.add('msg_c')
    expect(again.catchUpFrom()).toEqual({since: 'msg_c', unacknowledged: []})
    expect(again.has('msg_b')).toBe(false)
  })
})
