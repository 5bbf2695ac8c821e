/**
 * config.json and credentials.json are changed under a lock: twelve `profiles add` started at
 * once (a provisioning script) keep every profile and every secret.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {runBk, tempDir} from '../helpers/bk.js'

const COUNT = 12

describe('concurrent profile changes', () => {
  it('twelve profiles add at once keep every profile and every secret', async () => {
    const configDir = tempDir('bk-profiles-race-')
    const results = await Promise.all(
      Array.from({length: COUNT}, (_, i) =>
        runBk(
          [
            'profiles',
            'add',
            `p${i}`,
            '--env',
            'local',
            '--client-id',
            `client-${i}`,
            '--insecure-storage',
            '--client-secret-stdin',
          ],
          {configDir, input: `secret-${i}`, timeoutMs: 100_000},
        ),
      ),
    )
    for (const r of results) expect(r.code, r.stderr).toBe(0)
    const config = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')) as {
      profiles: Record<string, {clientId: string}>
    }
    const credentials = JSON.parse(readFileSync(join(configDir, 'credentials.json'), 'utf8')) as Record<string, string>
    for (let i = 0; i < COUNT; i++) {
      expect(config.profiles[`p${i}`]?.clientId, `profile p${i}`).toBe(`client-${i}`)
      expect(credentials[`p${i}/client_secret`], `secret of p${i}`).toBe(`secret-${i}`)
    }
  })
})
