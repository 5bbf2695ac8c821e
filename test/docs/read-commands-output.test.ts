/**
 * docs/read-commands.md shows `bk transactions get` as it prints: each line of the example (a
 * `...` stands for lines left out) is a line of the real output against the emulator, in order.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {ROOT, runShellLine} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

/** The example block whose first line is `$ COMMAND`: the command, and the lines it shows. */
function example(text: string, command: string): {command: string; shown: string[]} {
  const blocks = text.split('```').filter((_, i) => i % 2 === 1)
  const block = blocks.map((b) => b.replace(/^\n/, '').split('\n')).find((lines) => lines[0] === `$ ${command}`)
  if (!block) throw new Error(`no example of ${command}`)
  return {command, shown: block.slice(1).filter((l) => l !== '')}
}

describe('docs/read-commands.md', () => {
  it('shows transactions get as it prints, amounts and date included', async () => {
    const text = readFileSync(join(ROOT, 'docs', 'read-commands.md'), 'utf8')
    const {command, shown} = example(text, 'bk transactions get txn_demo_office_supplies')
    const result = await runShellLine(command, {env: envFor(emulator)})
    expect(result.code, result.stderr).toBe(0)
    const printed = result.stdout.split('\n')
    let at = 0
    for (const line of shown) {
      if (line.trim() === '...') continue
      const found = printed.indexOf(line, at)
      expect(found, `"${line}" in:\n${result.stdout}`).toBeGreaterThanOrEqual(at)
      at = found + 1
    }
  })
})
