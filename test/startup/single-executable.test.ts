/**
 * bk as one file (scripts/build-sea.js), built here from this checkout's dist/ and run from a
 * folder with no Node on PATH, as docs/install.md promises: --version, `emulator start`, a bill
 * import against it, and --jq (jq's WebAssembly is one of the executable's assets). Skipped, with
 * the reason printed, where Node cannot make one (another platform, a Node without the SEA fuse);
 * BK_REQUIRE_SEA=1 (.ci/run) makes that a failure. BK_SEA_EXECUTABLE names one built already
 * (.ci/run builds it once, for the .deb too, and runs the suite on three Nodes against it).
 */
import {copyFileSync, readdirSync, symlinkSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

// @ts-expect-error: a build script in plain JavaScript, without types.
import {buildSea, seaUnsupported} from '../../scripts/build-sea.js'
import {ROOT, parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'
import {startEmulatorProcess, type EmulatorProcess} from '../helpers/emulator-process.js'

const unsupported = process.env.BK_SEA_EXECUTABLE ? undefined : (seaUnsupported as () => string | undefined)()
if (unsupported) {
  if (process.env.BK_REQUIRE_SEA === '1') throw new Error(`BK_REQUIRE_SEA=1 but ${unsupported}`)
  console.log(`Skipping the single executable tests: ${unsupported}.`)
}

let bk: string
let env: Record<string, string>
let home: string
let emulator: EmulatorProcess | undefined
beforeAll(async () => {
  if (unsupported) return
  const built =
    process.env.BK_SEA_EXECUTABLE ??
    (await (buildSea as (out: string) => Promise<string>)(join(tempDir('bk-sea-'), 'out')))
  // A folder of its own with bk in it, and a PATH of that folder alone: nothing of Node to find.
  const bin = tempDir('bk-sea-bin-')
  symlinkSync(built, join(bin, 'bk'))
  bk = join(bin, 'bk')
  home = tempDir('bk-sea-home-')
  env = {PATH: bin, HOME: home, BK_CACHE_DIR: tempDir('bk-sea-cache-')}
}, 300_000)
afterAll(async () => {
  await emulator?.stop()
})

describe.skipIf(Boolean(unsupported))('the single executable, with no Node on PATH', () => {
  it('has no node on its PATH', () => {
    expect(readdirSync(env.PATH!)).toEqual(['bk'])
  })

  it('prints its version', async () => {
    const r = await runBk(['--version'], {executable: bk, env, cwd: home})
    expect(r.stderr).toBe('')
    expect(r.stdout).toMatch(/^bk\/\d+\.\d+\.\d+ linux-x64 node-v\d+/)
    expect(r.code).toBe(0)
  })

  it("runs bk's own child scripts (BK_RUN_SCRIPT stands for node -e), packages found among its files", async () => {
    const script = `process.stdout.write(typeof require('@napi-rs/keyring').AsyncEntry)`
    const r = await runBk([], {executable: bk, env: {...env, BK_RUN_SCRIPT: script}, cwd: home})
    expect(r.stderr).toBe('')
    expect(r.stdout).toBe('function')
    expect(r.code).toBe(0)
  })

  it('starts the emulator, imports the README example bills into it, and filters with --jq', async () => {
    const work = tempDir('bk-sea-work-')
    copyFileSync(join(ROOT, 'examples', 'bills.csv'), join(work, 'bills.csv'))
    emulator = await startEmulatorProcess([], tempDir(), {executable: bk, env, cwd: work})
    const imported = await runBk(['bills', 'import', 'bills.csv', '--json'], {
      executable: bk,
      cwd: work,
      env: {...env, ...emulator.env()},
    })
    expect(imported.stderr).toBe('')
    expect(parseJsonOutput<{created: number; failed: number}>(imported)).toMatchObject({created: 30, failed: 0})
    expect(imported.code).toBe(0)

    // A dry run parses its file on the reading worker, a script among the executable's files.
    const checked = await runBk(['bills', 'import', 'bills.csv', '--dry-run', '--json'], {
      executable: bk,
      cwd: work,
      env,
    })
    expect(checked.stderr).toBe('')
    expect(parseJsonOutput<{rows: number; valid: number}>(checked)).toMatchObject({valid: 30})
    expect(checked.code).toBe(0)

    const filtered = await runBk(['transactions', 'get', 'txn_demo_invoice_payments', '--jq', '{id}'], {
      executable: bk,
      cwd: work,
      env: {...env, ...emulator.env()},
    })
    expect(filtered.stderr).toBe('')
    // Only the key the filter kept: jq ran, in its worker, from the executable's assets.
    expect(parseJsonOutput(filtered)).toEqual({id: 'txn_demo_invoice_payments'})
    expect(filtered.code).toBe(0)
  })
})
