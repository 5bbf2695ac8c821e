/**
 * A code cache bk did not make for this user is never run. V8 checks only a cached script's
 * source length, its own version and its flags, so a file planted in the cache folder would run
 * any program in place of bk, with the user's credentials in reach. Each test plants V8's data of
 * a program that writes a marker file under bk's header, and checks that the marker never
 * appears and that bk still works; a control shows the same data does run when bk takes it, so
 * that a missing marker means bk refused it.
 */
import {chmodSync, chownSync, existsSync, mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {runBk, tempDir} from '../helpers/bk.js'
import {
  buildId,
  cacheFileIn,
  type Dirs,
  freshDirs,
  keyOf,
  KEY,
  plantedCode,
  plantedUnauthenticated,
  writeCache,
} from './cache-files.js'

/** `bk help`, twice, with these folders: it must work each time, and the marker must not appear. */
async function helpWorksAndMarkerAbsent(dirs: Dirs, marker: string): Promise<void> {
  for (let run = 0; run < 2; run++) {
    const result = await runBk(['help'], {configDir: dirs.config, env: {BK_CACHE_DIR: dirs.cache}})
    expect(existsSync(marker), 'the planted code ran').toBe(false)
    expect(result).toMatchObject({code: 0, stderr: ''})
    expect(result.stdout).toContain('USAGE')
  }
}

/** A cache folder whose help cache holds the planted code, authenticated with `key`. */
function plant(dirs: Dirs, key: Buffer, code: Buffer): void {
  mkdirSync(join(dirs.cache, 'code-cache', KEY), {recursive: true, mode: 0o700})
  writeCache(cacheFileIn(dirs.cache), key, {bundle: buildId(), kind: 'help', chunks: [['bk.cjs', code.length]]}, code)
}

/** Folders where a first `bk help` has made the user's key. */
async function withKey(): Promise<Dirs> {
  const dirs = freshDirs()
  await runBk(['help'], {configDir: dirs.config, env: {BK_CACHE_DIR: dirs.cache}})
  return dirs
}

const posix = process.platform !== 'win32'
/** Tests that run bk two dozen times: the limit guards against a hang, sized for a busy machine. */
const LOOP_TIMEOUT = 600_000

describe('a planted code cache', () => {
  it('control: the planted data runs in place of bk when authenticated with the user own key', async () => {
    const dirs = await withKey()
    const marker = join(tempDir(), 'marker')
    plant(dirs, keyOf(dirs), plantedCode(marker))
    await runBk(['help'], {configDir: dirs.config, env: {BK_CACHE_DIR: dirs.cache}})
    expect(existsSync(marker)).toBe(true)
  })

  it('in a fresh cache folder, with a header anyone can compute: not run', async () => {
    const marker = join(tempDir(), 'marker')
    const code = plantedCode(marker)
    for (const dirs of [freshDirs(), await withKey()]) {
      mkdirSync(join(dirs.cache, 'code-cache', KEY), {recursive: true, mode: 0o700})
      plantedUnauthenticated(cacheFileIn(dirs.cache), code)
      await helpWorksAndMarkerAbsent(dirs, marker)
    }
  })

  it('as a restored cache that brings its own key: not run, whether the user has a key or not', async () => {
    const marker = join(tempDir(), 'marker')
    const code = plantedCode(marker)
    for (const dirs of [freshDirs(), await withKey()]) {
      const own = Buffer.alloc(32, 7)
      // The key where a cache folder could carry it: bk reads its key from the config folder only.
      writeFileSync(join(dirs.cache, 'code-cache.key'), own, {mode: 0o600})
      mkdirSync(join(dirs.cache, 'code-cache', KEY), {recursive: true, mode: 0o700})
      writeFileSync(join(dirs.cache, 'code-cache', KEY, 'code-cache.key'), own, {mode: 0o600})
      plant(dirs, own, code)
      await helpWorksAndMarkerAbsent(dirs, marker)
    }
  })

  it('with the config folder inside the cache folder (a restore would bring the key): no cache', async () => {
    const cache = tempDir()
    const dirs = {cache, config: join(cache, 'config')}
    const marker = join(tempDir(), 'marker')
    const own = Buffer.alloc(32, 7)
    mkdirSync(dirs.config, {mode: 0o700})
    writeFileSync(join(dirs.config, 'code-cache.key'), own, {mode: 0o600})
    plant(dirs, own, plantedCode(marker))
    await helpWorksAndMarkerAbsent(dirs, marker)
  })

  it.skipIf(!posix)(
    'in a folder or file others may write, or with a key others may read: passed over',
    async () => {
      const marker = join(tempDir(), 'marker')
      const code = plantedCode(marker)
      const cases: [string, (dirs: Dirs) => void][] = [
        ['cache folder 0777', (d) => chmodSync(join(d.cache, 'code-cache', KEY), 0o777)],
        ['cache folder 0770', (d) => chmodSync(join(d.cache, 'code-cache', KEY), 0o770)],
        ['code-cache folder 0757', (d) => chmodSync(join(d.cache, 'code-cache'), 0o757)],
        ['BK_CACHE_DIR 0775', (d) => chmodSync(d.cache, 0o775)],
        ['cache file 0666', (d) => chmodSync(cacheFileIn(d.cache), 0o666)],
        ['cache file 0620', (d) => chmodSync(cacheFileIn(d.cache), 0o620)],
        ['key 0640', (d) => chmodSync(join(d.config, 'code-cache.key'), 0o640)],
        ['key 0604', (d) => chmodSync(join(d.config, 'code-cache.key'), 0o604)],
      ]
      for (const [name, spoil] of cases) {
        const dirs = await withKey()
        // Authenticated with the user's own key: only the mode stands between it and V8.
        plant(dirs, keyOf(dirs), code)
        spoil(dirs)
        await helpWorksAndMarkerAbsent(dirs, marker).catch((e: Error) => {
          throw new Error(`${name}: ${e.message}`)
        })
      }
    },
    LOOP_TIMEOUT,
  )

  it.skipIf(!posix || process.getuid?.() !== 0)(
    'made by another user (a folder or file they own): passed over',
    async () => {
      const marker = join(tempDir(), 'marker')
      const code = plantedCode(marker)
      const nobody = 65534
      const cases: [string, (dirs: Dirs) => void][] = [
        ['cache folder', (d) => chownSync(join(d.cache, 'code-cache', KEY), nobody, nobody)],
        ['cache file', (d) => chownSync(cacheFileIn(d.cache), nobody, nobody)],
        ['BK_CACHE_DIR', (d) => chownSync(d.cache, nobody, nobody)],
        ['key', (d) => chownSync(join(d.config, 'code-cache.key'), nobody, nobody)],
      ]
      for (const [name, spoil] of cases) {
        const dirs = await withKey()
        plant(dirs, keyOf(dirs), code)
        spoil(dirs)
        await helpWorksAndMarkerAbsent(dirs, marker).catch((e: Error) => {
          throw new Error(`${name}: ${e.message}`)
        })
      }
    },
    LOOP_TIMEOUT,
  )
})
