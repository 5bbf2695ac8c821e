/**
 * The help bin/run.js keeps (bin/help-cache.js): a request asked for again prints what the first
 * printed without loading the bundle, and anything help depends on that differs (the environment,
 * the arguments) gets oclif's own answer; a failing request, or a damaged file, is never printed.
 */
import {readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {ROOT, runBk, tempDir} from '../helpers/bk.js'

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {version: string}).version
const KEY = `bk-${VERSION}-node-${process.versions.node}-${process.arch}`

function keptFiles(cacheDir: string): string[] {
  try {
    return readdirSync(join(cacheDir, 'code-cache', KEY, 'help')).map((f) =>
      join(cacheDir, 'code-cache', KEY, 'help', f),
    )
  } catch {
    return []
  }
}

describe('kept help', () => {
  it('is printed by the next identical request, byte for byte, and comes from the kept file', async () => {
    const dir = tempDir()
    const configDir = tempDir()
    const args = ['businesses', 'list', '--help']
    const first = await runBk(args, {env: {BK_CACHE_DIR: dir}, configDir})
    expect(first).toMatchObject({code: 0, stderr: ''})
    expect(first.stdout).toContain('USAGE')
    const [file] = keptFiles(dir)
    expect(keptFiles(dir)).toHaveLength(1)
    const again = await runBk(args, {env: {BK_CACHE_DIR: dir}, configDir})
    expect(again).toEqual(first)

    // The file is what is printed: a changed text (same key) shows, which proves no oclif ran.
    const text = readFileSync(file!, 'utf8')
    writeFileSync(file!, text.slice(0, text.indexOf('\n') + 1) + 'kept text\n')
    expect((await runBk(args, {env: {BK_CACHE_DIR: dir}, configDir})).stdout).toBe('kept text\n')
  })

  it('is not printed for another environment, other arguments, or a key that does not match', async () => {
    const dir = tempDir()
    const configDir = tempDir()
    const args = ['businesses', 'list', '--help']
    const wide = await runBk(args, {env: {BK_CACHE_DIR: dir}, configDir})
    // Narrower columns: oclif wraps differently, and that is what is printed.
    const narrow = await runBk(args, {env: {BK_CACHE_DIR: dir, OCLIF_COLUMNS: '40'}, configDir})
    const fresh = await runBk(args, {env: {BK_CACHE_DIR: tempDir(), OCLIF_COLUMNS: '40'}, configDir})
    expect(narrow.stdout).not.toBe(wide.stdout)
    expect(narrow.stdout).toBe(fresh.stdout)
    const other = await runBk(['invoices', 'list', '--help'], {env: {BK_CACHE_DIR: dir}, configDir})
    expect(other.stdout).toContain('bk invoices list')

    for (const file of keptFiles(dir)) writeFileSync(file, '{"argv":[]}\nnot this\n')
    expect(await runBk(args, {env: {BK_CACHE_DIR: dir}, configDir})).toEqual(wide)
    // Written anew, with its own key.
    expect(await runBk(args, {env: {BK_CACHE_DIR: dir}, configDir})).toEqual(wide)
  })

  it('keeps at most 64 requests: a full folder starts again with the newest', async () => {
    const dir = tempDir()
    const args = ['businesses', 'list', '--help']
    await runBk(args, {env: {BK_CACHE_DIR: dir}})
    const folder = join(dir, 'code-cache', KEY, 'help')
    for (let i = 0; i < 63; i++) writeFileSync(join(folder, `filler-${i}.txt`), 'x\n')
    await runBk(args, {env: {BK_CACHE_DIR: dir, ANOTHER_REQUEST: '1'}})
    expect(keptFiles(dir)).toHaveLength(1)
    expect(readFileSync(keptFiles(dir)[0]!, 'utf8')).toContain('ANOTHER_REQUEST')
  })

  it('is never kept from a failing request', async () => {
    const dir = tempDir()
    for (let run = 0; run < 2; run++) {
      const result = await runBk(['nope', '--help'], {env: {BK_CACHE_DIR: dir}})
      expect(result.code).toBe(2)
      expect(result.stderr).toContain('nope')
    }
    expect(keptFiles(dir)).toEqual([])
  })

  it("follows the user's theme.json", async () => {
    const dir = tempDir()
    const configDir = tempDir()
    const args = ['businesses', 'list', '--help']
    const env = {BK_CACHE_DIR: dir, FORCE_COLOR: '1'}
    const plain = await runBk(args, {env, configDir})
    writeFileSync(join(configDir, 'theme.json'), JSON.stringify({flag: 'red', sectionHeader: 'green'}))
    const themed = await runBk(args, {env, configDir})
    const fresh = await runBk(args, {env: {...env, BK_CACHE_DIR: tempDir()}, configDir})
    expect(themed.stdout).not.toBe(plain.stdout)
    expect(themed.stdout).toBe(fresh.stdout)
  })
})
