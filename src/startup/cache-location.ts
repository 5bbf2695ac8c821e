/**
 * Where the code cache and its key live, and whether this run may use a code cache at all.
 *
 * The cache lives in bk's cache folder (oclif's, or BK_CACHE_DIR), in a folder per bk version,
 * Node version and architecture. The key that authenticates it lives in bk's config folder
 * (oclif's, or BK_CONFIG_DIR), never inside the cache folder: a cache folder restored from
 * elsewhere (a CI cache, a shared HOME) cannot bring a key of its own.
 */
import {homedir} from 'node:os'
import {join, relative, isAbsolute} from 'node:path'

export interface CacheLocation {
  /** bk's cache folder: the first folder whose owner and mode are checked. */
  base: string
  /** The folder of this bk, Node and architecture's cache files. */
  folder: string
  /** The file holding the key that authenticates every cache file. */
  keyFile: string
}

/**
 * Why this run uses no code cache, or undefined when it may. Off on Windows, whose owner and
 * access lists Node does not show (so a cache folder cannot be checked as the user's own); under
 * CI unless BK_CODE_CACHE=1 (a CI run starts cold anyway, and its cache folder may be restored
 * from another branch); with BK_CODE_CACHE=0 or NODE_DISABLE_COMPILE_CACHE, as for Node's own.
 */
export function codeCacheOff(env: NodeJS.ProcessEnv, platform = process.platform): string | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE) return 'NODE_DISABLE_COMPILE_CACHE is set'
  if (env.BK_CODE_CACHE === '0') return 'BK_CODE_CACHE=0'
  if (platform === 'win32') return 'Windows'
  if (env.CI && env.BK_CODE_CACHE !== '1') return 'CI is set'
  return undefined
}

/** The home folder as oclif finds it. */
function home(env: NodeJS.ProcessEnv): string {
  return env.HOME || homedir()
}

/**
 * Where this version of bk, on this Node and architecture, keeps its code cache, and its key;
 * undefined when the key would be inside the cache folder (BK_CONFIG_DIR inside BK_CACHE_DIR).
 */
export function cacheLocation(version: string, env: NodeJS.ProcessEnv): CacheLocation | undefined {
  const base =
    env.BK_CACHE_DIR ||
    (process.platform === 'darwin' && join(home(env), 'Library', 'Caches', 'bk')) ||
    join(env.XDG_CACHE_HOME || join(home(env), '.cache'), 'bk')
  const config = env.BK_CONFIG_DIR || join(env.XDG_CONFIG_HOME || join(home(env), '.config'), 'bk')
  const keyFile = join(config, 'code-cache.key')
  const folder = join(base, 'code-cache', `bk-${version}-node-${process.versions.node}-${process.arch}`)
  return isInside(keyFile, base) ? undefined : {base, folder, keyFile}
}

/** Whether `path` is `folder` or inside it. */
function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}
