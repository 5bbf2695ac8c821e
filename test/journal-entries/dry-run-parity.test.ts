/**
 * `journal-entries create --dry-run` and the emulator apply one list of rules
 * (src/shared/journal-entry-rules.ts): every journal-entries YAML of the repo is checked with --dry-run
 * and then created against the emulator, and the file is accepted by dry-run iff the emulator
 * created every entry (create sends nothing from a file with a problem). The fixtures name only
 * ledgers of the emulator's seed, the one thing dry-run cannot check offline.
 */
import {copyFileSync, readdirSync} from 'node:fs'
import {basename, join} from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {ROOT, runBk, tempDir} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

const BIZ = 'biz_demo_acme'
const FILES = [
  'examples/journal-entries.yaml',
  ...readdirSync(join(ROOT, 'test/fixtures/journal-entries'))
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => `test/fixtures/journal-entries/${f}`),
]

let emulator: RunningEmulator
beforeEach(async () => {
  emulator = await start()
})
afterEach(() => emulator.close())

const created = () =>
  emulator.state.journalEntries.all(BIZ).filter((e) => !emulator.state.seeded.journalEntries.has(e.id)).length

describe('bk journal-entries create --dry-run and the emulator', () => {
  it.each(FILES)('%s: dry-run accepts iff the emulator creates every entry', async (name) => {
    // A copy, so that the resume log is not written beside the repo's file.
    const file = join(tempDir('bk-je-parity-'), basename(name))
    copyFileSync(join(ROOT, name), file)
    const env = envFor(emulator, BIZ)
    const dry = await runBk(['journal-entries', 'create', file, '--dry-run', '--json'], {env})
    expect([0, 2], dry.stderr).toContain(dry.code)
    const real = await runBk(['journal-entries', 'create', file, '--json'], {env})
    const doc = JSON.parse(dry.stdout) as {files?: Array<{entries: number}>}
    const entries = (doc.files ?? []).reduce((n, f) => n + f.entries, 0)
    const accepted = dry.code === 0
    expect({accepted, created: accepted ? created() === entries && real.code === 0 : created() === 0}).toEqual({
      accepted,
      created: true,
    })
  })
})
