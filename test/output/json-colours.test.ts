/**
 * --json output: JSON.stringify's text when no oclif theme colours it, and in the theme's colours
 * when the user has one (theme.json in bk's config folder) and colour is on.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {stripVTControlCharacters} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runBk, tempDir} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

const args = ['transactions', 'get', 'txn_demo_invoice_payments', '--json']

describe('--json output', () => {
  it('is the document as JSON.stringify writes it, with or without colour, when no theme colours it', async () => {
    for (const colour of [{}, {FORCE_COLOR: '1'}]) {
      const res = await runBk(args, {env: {...envFor(emulator), ...colour}})
      expect(res.code, res.stderr).toBe(0)
      expect(res.stdout).toBe(JSON.stringify(JSON.parse(res.stdout), null, 2) + '\n')
    }
  })

  it("is in the colours of the user's oclif theme when colour is on", async () => {
    const configDir = tempDir()
    writeFileSync(join(configDir, 'theme.json'), JSON.stringify({json: {key: 'blue', string: 'green'}}))
    const res = await runBk(args, {configDir, env: {...envFor(emulator), FORCE_COLOR: '1'}})
    expect(res.code, res.stderr).toBe(0)
    expect(res.stdout).toContain('\u001b[34m"id"\u001b[39m')
    expect(res.stdout).toContain('\u001b[32m"txn_demo_invoice_payments"\u001b[39m')
    // Without the colours, the same document.
    const plain = stripVTControlCharacters(res.stdout)
    expect(JSON.parse(plain).id).toBe('txn_demo_invoice_payments')
  })
})
