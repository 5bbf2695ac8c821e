/**
 * vitest's global set-up: one code cache for the bk runs of the whole suite (used by
 * test/helpers/bk.ts), as a user's runs share theirs. Each test gives bk a config folder of its
 * own, which holds no cache key, so each run compiled bk from source as a first run after install
 * does: about 120 ms of every run. The key is made by bk's own code, as a first run makes it.
 */
import {mkdirSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import type {TestProject} from 'vitest/node'

import {cacheKey} from '../../src/startup/cache-key.js'

export interface SuiteCodeCache {
  /** The cache folder every run is given (BK_CACHE_DIR). */
  cacheDir: string
  /** The key authenticating it, copied into each run's config folder. */
  keyFile: string
}

declare module 'vitest' {
  export interface ProvidedContext {
    suiteCodeCache: SuiteCodeCache
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'bk-suite-cache-'))
  const cacheDir = join(dir, 'cache')
  const config = join(dir, 'config')
  mkdirSync(cacheDir, {mode: 0o700})
  mkdirSync(config, {mode: 0o700})
  const keyFile = join(config, 'code-cache.key')
  if (!cacheKey(keyFile)) throw new Error(`could not make a code cache key in ${config}`)
  project.provide('suiteCodeCache', {cacheDir, keyFile})
  return () => rmSync(dir, {recursive: true, force: true})
}
