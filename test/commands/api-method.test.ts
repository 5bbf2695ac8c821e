/**
 * `bk api` takes its method as gh api does (`bk api PATH`, `-X METHOD`) as well as before PATH
 * (`bk api GET PATH`); a slip in the method is named before anything is sent.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {DEMO_IDS} from '../../src/emulator/seed.js'
import {parseJsonOutput, runBk} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

const receipts = `/v0/business/${DEMO_IDS.business}/rules/receipts`

describe('bk api and its method', () => {
  it('reads PATH alone as a GET, with or without its first slash', async () => {
    const env = envFor(emulator)
    const named = await runBk(['api', 'GET', '/v0/business', '--json'], {env})
    expect(named.code, named.stderr).toBe(0)
    for (const path of ['/v0/business', 'v0/business']) {
      const alone = await runBk(['api', path, '--json'], {env})
      expect(alone.code, alone.stderr).toBe(0)
      expect(parseJsonOutput(alone)).toEqual(parseJsonOutput(named))
    }
  })

  it('takes -X as gh api does, and fields never turn a GET into a write', async () => {
    const env = envFor(emulator)
    const patched = await runBk(['api', '-X', 'PATCH', receipts, '-f', 'threshold_amount=42.50', '--json'], {env})
    expect(patched.code, patched.stderr).toBe(0)
    expect(emulator.state.receiptConfigs.get(DEMO_IDS.business)).toMatchObject({threshold_amount: 42.5})
    // gh would send this as a POST; bk sends a GET with the field in its query string, which
    // the service refuses (no such query parameter): the rule is not changed.
    const read = await runBk(['api', receipts, '-f', 'is_enabled=false'], {env})
    expect(read.code).toBe(5)
    expect(read.stderr).toContain(`from GET ${receipts}`)
    expect(emulator.state.receiptConfigs.get(DEMO_IDS.business)).toMatchObject({
      is_enabled: true,
      threshold_amount: 42.5,
    })
  })

  it('names a mistyped method, a missing path and two methods, exit 2', async () => {
    const env = envFor(emulator)
    const typo = await runBk(['api', 'PSOT', '/v0/business'], {env})
    expect(typo.code).toBe(2)
    expect(typo.stderr).toBe(
      'Error: Unknown HTTP method: "PSOT"\nHint: Did you mean POST? It takes GET, POST, PATCH, PUT, DELETE.\n',
    )
    const bare = await runBk(['api', 'DELETE'], {env})
    expect(bare.code).toBe(2)
    expect(bare.stderr).toContain('Error: Missing PATH after DELETE')
    const both = await runBk(['api', '-X', 'PATCH', 'GET', '/v0/business'], {env})
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('Error: GET and --method PATCH name two methods')
  })
})
