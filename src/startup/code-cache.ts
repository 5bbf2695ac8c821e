/**
 * The build loaded with a V8 code cache kept in the user's cache folder (cache-location.ts).
 *
 * Each kind of run (run-kind.ts) has a cache file of its own, holding the code that kind compiled
 * in each chunk it loaded: V8 reads a script's cache whole, so one file for every command in use
 * would cost each run the others' code. The first run of a kind writes a note (a file with no
 * chunks); the second writes V8's data, at exit, so that a command run once (a first run after
 * install, a one-off) does not pay for writing code that no later run would read. A later run
 * that loads a chunk the file lacks (another path through the same command) writes it anew, with
 * the chunks it did not load kept as they were.
 *
 * A cache is used only when it is the user's own (private-files.ts) and authenticated with the
 * user's key (cache-file.ts); one that is stale, damaged, planted or cannot be written is passed
 * over without a word, and written anew when it may be: it may make bk faster, never fail it.
 */
import {closeSync, readdirSync, readFileSync, renameSync, rmSync, writeSync} from 'node:fs'
import {join} from 'node:path'

import {type CacheContents, decodeCacheFile, encodeCacheFile} from './cache-file.js'
import {cacheKey, readCacheKey} from './cache-key.js'
import type {CacheLocation} from './cache-location.js'
import {type LoadedBuild, loadBuild} from './chunk-loader.js'
import {createPrivateFile, isPrivateFolderChain, readPrivateFile} from './private-files.js'

export interface CodeCacheRun {
  location: CacheLocation
  kind: string
  /** The kind's file name in the cache folder. */
  fileName: string
  /** Called before V8's data is taken at exit (to set the V8 flags a start has). */
  beforeWrite?: () => void
  /** Whether V8's flags are now those a start has (false once a run has changed them). */
  startFlags?: () => boolean
}

/**
 * Kinds are words a user typed: one whose name is long, or one past this many files (so that a
 * stream of mistyped commands cannot fill the folder), is not cached.
 */
const MAX_FILE_NAME = 128
const MAX_FILES = 64

/** The exports of the build's entry, `file`, loaded with the kind's code cache. */
export function requireWithCodeCache(file: string, run: CodeCacheRun): unknown {
  const source = readFileSync(file, 'latin1')
  // The entry's first line names the whole build (scripts/bundle.js).
  const bundle = source.slice(0, source.indexOf('\n'))
  const {location, kind, fileName} = run
  if (!isPrivateFolderChain(location.base, location.folder)) return loadBuild(file, new Map(), source).exports
  const cacheFile = join(location.folder, fileName)
  const contents = readCache(location.keyFile, cacheFile, {bundle, kind})
  const build = loadBuild(file, contents?.chunks ?? new Map(), source, run.startFlags)
  if (fileName.length < MAX_FILE_NAME) {
    process.once('exit', () => {
      // A chunk compiled under other flags cannot be cached: written, the next run would refuse it.
      if ([...build.loaded.values()].every((c) => c.cached || !c.cacheable)) return
      if (!contents && countCacheFiles(location.folder) >= MAX_FILES) return
      run.beforeWrite?.()
      const key = cacheKey(location.keyFile)
      if (!key) return
      const chunks = contents ? allChunks(build, contents) : new Map<string, Buffer>()
      writeCacheFile(cacheFile, encodeCacheFile(key, {bundle, kind, chunks}))
    })
  }
  return build.exports
}

/** The kind's cache, when there is one that is the user's own, for this build and kind. */
function readCache(
  keyFile: string,
  cacheFile: string,
  expected: {bundle: string; kind: string},
): CacheContents | undefined {
  const key = readCacheKey(keyFile)
  const bytes = key && readPrivateFile(cacheFile)
  return key && bytes ? decodeCacheFile(key, bytes, expected) : undefined
}

/**
 * What a kind's file holds when written anew: V8's data for every chunk this run compiled under a
 * start's flags (what it had cached, and what this run added), and the data kept for the others.
 */
function allChunks(build: LoadedBuild, contents: CacheContents): Map<string, Buffer> {
  const chunks = new Map(contents.chunks)
  for (const [name, {script, cacheable}] of build.loaded) if (cacheable) chunks.set(name, script.createCachedData())
  return chunks
}

/** How many cache files the folder holds (none when there is no folder yet). */
function countCacheFiles(folder: string): number {
  try {
    return readdirSync(folder).filter((f) => f.endsWith('.v8')).length
  } catch {
    return 0
  }
}

/** Writes the cache file anew, 0600, in one rename (so that no run reads half of it). */
function writeCacheFile(cacheFile: string, bytes: Buffer): void {
  const temp = `${cacheFile}.${process.pid}`
  try {
    const fd = createPrivateFile(temp)
    try {
      for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at)
    } finally {
      closeSync(fd)
    }
    renameSync(temp, cacheFile)
  } catch {
    try {
      rmSync(temp, {force: true})
    } catch {
      // Nothing was written.
    }
  }
}
