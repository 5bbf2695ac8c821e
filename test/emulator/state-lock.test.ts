/**
 * `bk emulator start --state FILE`: one emulator per state file (a second would write its own
 * state over the first's), and a state file made by hand refused as bad input (exit 2).
 */
import {createHash} from 'node:crypto'
import {truncateSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {runBk, tempDir} from '../helpers/bk.js'
import {startEmulatorProcess} from '../helpers/emulator-process.js'

/** A state file with a correct header around `body`, as someone could write by hand. */
function handMade(file: string, body: string): void {
  const bytes = Buffer.from(body)
  const sha256 = createHash('sha256').update(bytes).digest('hex')
  writeFileSync(
    file,
    JSON.stringify({format: 'bk-emulator-state', version: 1, bytes: bytes.length, sha256}) + '\n' + body,
  )
}

describe('bk emulator start --state', () => {
  it('refuses a second emulator on the same state file, naming the one that holds it', async () => {
    const state = join(tempDir(), 'emulator.state')
    const first = await startEmulatorProcess(['--seed', 'empty', '--state', state])
    try {
      const second = await runBk(['emulator', 'start', '--port', '0', '--seed', 'empty', '--state', state])
      expect(second.code, second.stderr).toBe(2)
      expect(second.stderr).toContain(`The emulator state file ${state} is in use by bk process ${first.child.pid}`)
    } finally {
      expect(await first.stop()).toBe(0)
    }
    // Stopped, it lets the next one in.
    const third = await startEmulatorProcess(['--seed', 'empty', '--state', state])
    expect(third.info.restored).toBe(true)
    expect(await third.stop()).toBe(0)
  })

  it('refuses a hand-made state file with exit 2, naming it', async () => {
    const dir = tempDir()
    for (const [name, body] of [
      ['not-json', '{"extras": '],
      ['array', '[]'],
      ['wrong-records', '{"extras": {}, "generator": {"counter": 1, "random": 2}, "bills": {"biz_1": 5}}'],
      ['no-generator', '{"extras": {}}'],
    ] as const) {
      const state = join(dir, `${name}.state`)
      handMade(state, body)
      const result = await runBk(['emulator', 'start', '--port', '0', '--state', state])
      expect(result.code, `${name}: ${result.stderr}`).toBe(2)
      expect(result.stderr).toContain(`${state} is not a usable emulator state file`)
    }
  })

  it('refuses a state file over its size limit before reading it, naming the file and the limit', async () => {
    // 200 MB, sparse: the refusal must come from its size, not from reading it.
    const state = join(tempDir(), 'huge.state')
    handMade(state, '{}')
    truncateSync(state, 200 * 1024 * 1024)
    const result = await runBk(['emulator', 'start', '--port', '0', '--state', state])
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain(
      `${state} is larger than 64 MB, the limit for emulator state files; nothing was read`,
    )
  })
})
