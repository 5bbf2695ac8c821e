/**
 * Notification ids (the svc-id of a delivery) identify one webhook request: a listener with a
 * state file drops an id it handled. So a reset of the emulator and a fresh start never give an
 * id out again, through `bk emulator start`, `bk emulator trigger` and `bk webhooks replay`.
 */
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'
import {startEmulatorProcess, type EmulatorProcess} from '../helpers/emulator-process.js'

let running: EmulatorProcess | undefined
afterEach(async () => {
  await running?.stop()
  running = undefined
})

async function triggerTwice(emulator: EmulatorProcess): Promise<string[]> {
  for (let i = 0; i < 2; i++) {
    const res = await runBk(['emulator', 'trigger', 'TASKS_REQUEST_COMPLETED'], {env: emulator.env()})
    expect(res.code, res.stderr).toBe(0)
  }
  const replay = await runBk(['webhooks', 'replay', '--json'], {env: emulator.env()})
  expect(replay.code, replay.stderr).toBe(0)
  return parseJsonOutput<{items: Array<{id: string}>}>(replay).items.map((i) => i.id)
}

describe('emulator notification ids', () => {
  it('are not given out again after a reset to the seed, nor by a fresh start', async () => {
    running = await startEmulatorProcess(['--seed', 'empty'])
    const first = await triggerTwice(running)
    const reset = await fetch(`${running.info.baseUrl}/_emulator/reset`, {
      method: 'POST',
      headers: {'content-type': 'application/json'},
      body: JSON.stringify({what: 'all'}),
    })
    expect(reset.status).toBe(200)
    const afterReset = await triggerTwice(running)
    await running.stop()
    running = await startEmulatorProcess(['--seed', 'empty'])
    const afterRestart = await triggerTwice(running)

    const all = [...first, ...afterReset, ...afterRestart]
    expect(all).toHaveLength(6)
    expect(new Set(all).size).toBe(6)
    // Later ids still sort after earlier ones (replay --since places an id by comparing them).
    expect([...all].sort()).toEqual(all)
  })

  it('sort after those a state file kept, once loaded again', async () => {
    const state = join(tempDir(), 'emulator.state')
    running = await startEmulatorProcess(['--seed', 'empty', '--state', state])
    const before = await triggerTwice(running)
    await running.stop()
    running = await startEmulatorProcess(['--seed', 'empty', '--state', state])
    const after = await triggerTwice(running)
    expect(after.slice(0, 2)).toEqual(before)
    expect(after[2]! > before[1]!).toBe(true)
    expect(after[3]! > after[2]!).toBe(true)
  })
})
