/**
 * A file bk cannot read is the user's to fix, never "report it": the error names the file and why,
 * with the exit code of bad input (2) or of configuration (3), and nothing is sent.
 */
import {mkdirSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

describe('files bk cannot read', () => {
  it('bk api --input of a missing file or a folder: exit 2, naming it, nothing sent', async () => {
    const dir = tempDir()
    const missing = join(dir, 'missing.json')
    const entries = () => emulator.state.journalEntries.all(emulator.businessIds[0] as string).length
    const before = entries()
    const res = await runBk(['api', 'POST', '/v0/business/{business_id}/journal-entries', '--input', missing], {
      env: envFor(emulator),
    })
    expect(res.code).toBe(2)
    expect(res.stderr).toContain(`Cannot read --input ${missing}: no such file`)
    expect(res.stderr).not.toContain('report it')
    const folder = await runBk(
      ['api', 'POST', '/v0/business/{business_id}/journal-entries', '--input', dir, '--json'],
      {
        env: envFor(emulator),
      },
    )
    expect(folder.code).toBe(2)
    expect(parseJsonOutput<{error: string; code: string}>(folder)).toMatchObject({
      error: `Cannot read --input ${dir}: it is a folder`,
      code: 'invalid_input',
    })
    expect(entries()).toBe(before)
  })

  it('a config.json that is a folder: exit 3, naming it and the way out', async () => {
    const configDir = tempDir()
    mkdirSync(join(configDir, 'config.json'))
    const res = await runBk(['profiles', 'list'], {configDir})
    expect(res.code).toBe(3)
    expect(res.stderr).toContain(`Cannot read ${join(configDir, 'config.json')}: it is a folder`)
    expect(res.stderr).toContain('BK_CONFIG_DIR')
    expect(res.stderr).not.toContain('report it')
  })
})
