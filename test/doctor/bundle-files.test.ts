/**
 * `bk doctor --bundle DIR` in a folder others may write to: nothing planted there is followed,
 * overwritten or chmod'ed, and nothing secret leaves in the bundle (proxy credentials, with or
 * without a scheme; a token printed by the traced command).
 */
import {chmodSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {runBk, tempDir} from '../helpers/bk.js'

/** No service: the checks fail fast on a base URL nothing listens on; the bundle is still written. */
const OFFLINE = {
  BK_BASE_URL: 'http://127.0.0.1:9',
  BK_ENV: 'sandbox',
  BK_CLIENT_ID: 'client-id',
  BK_CLIENT_SECRET: 'bundle-test-client-secret',
}

function mode(path: string): number {
  return statSync(path).mode & 0o777
}

describe('bk doctor --bundle DIR', () => {
  it('does not follow a link planted at report.txt, nor write into a folder that is not empty', async () => {
    const dir = tempDir()
    const victim = join(tempDir(), 'victim.txt')
    writeFileSync(victim, 'precious\n')
    chmodSync(victim, 0o644)
    const bundle = join(dir, 'bundle')
    mkdirSync(bundle)
    chmodSync(bundle, 0o755)
    symlinkSync(victim, join(bundle, 'report.txt'))

    const result = await runBk(['doctor', '--bundle', bundle], {env: OFFLINE})
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain(`--bundle ${bundle}: is not empty`)
    expect(readFileSync(victim, 'utf8')).toBe('precious\n')
    expect(mode(victim)).toBe(0o644)
    expect(mode(bundle)).toBe(0o755)
  })

  it('refuses a file given as DIR with exit 2, and leaves it as it was', async () => {
    const file = join(tempDir(), 'not-a-folder')
    writeFileSync(file, 'mine\n')
    chmodSync(file, 0o644)
    const result = await runBk(['doctor', '--bundle', file], {env: OFFLINE})
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain(`--bundle ${file}: is not a folder`)
    expect(readFileSync(file, 'utf8')).toBe('mine\n')
    expect(mode(file)).toBe(0o644)
  })

  it('creates a new DIR 0700 with files 0600, and uses an empty folder of the user as it is', async () => {
    const fresh = join(tempDir(), 'new', 'bundle')
    const made = await runBk(['doctor', '--bundle', fresh], {env: OFFLINE})
    expect(made.stderr).toContain('Support bundle: 4 files')
    expect(mode(fresh)).toBe(0o700)
    for (const f of readdirSync(fresh)) expect(mode(join(fresh, f)), f).toBe(0o600)

    const empty = join(tempDir(), 'empty')
    mkdirSync(empty)
    chmodSync(empty, 0o755)
    const used = await runBk(['doctor', '--bundle', empty], {env: OFFLINE})
    expect(used.stderr).toContain('Support bundle: 4 files')
    expect(mode(empty)).toBe(0o755)
  })

  it('refuses to trace "auth token", whose output is the token itself', async () => {
    const bundle = join(tempDir(), 'bundle')
    for (const command of ['auth token', 'auth:token --json', 'bk auth token']) {
      const result = await runBk(['doctor', '--bundle', bundle, '--command', command], {env: OFFLINE})
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain('"auth token" prints an access token')
    }
  })

  it('keeps proxy credentials out of the bundle, with or without a scheme, and hides a value that is not a URL', async () => {
    const bundle = join(tempDir(), 'bundle')
    await runBk(['doctor', '--bundle', bundle], {
      env: {
        ...OFFLINE,
        HTTPS_PROXY: 'proxyuser:hunter2-no-scheme@proxy.example:3128',
        HTTP_PROXY: 'http://proxyuser:hunter3-bad-port@proxy.example:99999',
        ALL_PROXY: 'http://proxyuser:hunter4-scheme@proxy.example:3128',
      },
    })
    const everything = readdirSync(bundle)
      .map((f) => readFileSync(join(bundle, f), 'utf8'))
      .join('\n')
    for (const secret of ['hunter2-no-scheme', 'hunter3-bad-port', 'hunter4-scheme'])
      expect(everything).not.toContain(secret)
    const environment = JSON.parse(readFileSync(join(bundle, 'environment.json'), 'utf8')) as Record<string, string>
    expect(environment.HTTPS_PROXY).toBe('http://[user]:[redacted]@proxy.example:3128')
    expect(environment.HTTP_PROXY).toBe('(not a URL; value hidden)')
  })

  it('never prints a proxy value that does not parse, in any command', async () => {
    const result = await runBk(['businesses', 'list'], {
      env: {...OFFLINE, BK_BASE_URL: 'https://api.example.test', HTTPS_PROXY: 'http://u:hunter5-secret@proxy:99999'},
    })
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain('HTTPS_PROXY is not a URL (value hidden)')
    expect(result.stdout + result.stderr).not.toContain('hunter5')
  })
})
