/**
 * bk as one file (scripts/build-sea.js): Node's single executable application runs this module,
 * whose require() reaches only Node's built-in modules. The package's files (the bundle, its
 * chunks, the manifest and stored help, the keychain's native binding and jq's WebAssembly) are
 * the executable's assets; the first run of a build writes them to a private folder of bk's cache
 * named by their digest, and every run then starts bk from that folder as bin/run.js does from
 * the npm package. A native binding must be a file to be loaded, and oclif reads its manifest
 * and commands from a package folder: both need files, so all of them are written once.
 */
import {renameSync, rmSync, writeFileSync, existsSync, mkdirSync} from 'node:fs'
import Module from 'node:module'
import {homedir} from 'node:os'
import {dirname, join} from 'node:path'
import {getAsset} from 'node:sea'

import {isPrivateFolderChain, makePrivateFolder} from './private-files.js'

/** The asset listing the others, written by scripts/build-sea.js. */
export const INDEX_ASSET = 'bk-files.json'

export interface AssetIndex {
  /** The digest of every file's path and bytes: names the folder they are written to. */
  digest: string
  /** Each file: its path in the package folder (the asset's name), executable or not. */
  files: Array<{path: string; executable: boolean}>
}

/** bk's cache folder, as src/startup/cache-location.ts finds it. */
function cacheBase(env: NodeJS.ProcessEnv): string {
  if (env.BK_CACHE_DIR) return env.BK_CACHE_DIR
  const home = env.HOME || homedir()
  if (process.platform === 'darwin') return join(home, 'Library', 'Caches', 'bk')
  return join(env.XDG_CACHE_HOME || join(home, '.cache'), 'bk')
}

/** Writes the assets into a new folder beside `folder`, then moves it into place in one rename. */
function writeAssets(index: AssetIndex, folder: string): void {
  const temporary = `${folder}.${process.pid}.partial`
  rmSync(temporary, {recursive: true, force: true})
  for (const file of index.files) {
    const path = join(temporary, file.path)
    mkdirSync(dirname(path), {recursive: true, mode: 0o700})
    writeFileSync(path, new Uint8Array(getAsset(file.path)), {mode: file.executable ? 0o700 : 0o600})
  }
  writeFileSync(join(temporary, '.complete'), index.digest, {mode: 0o600})
  try {
    renameSync(temporary, folder)
  } catch (error) {
    // Another bk started at the same moment and put its copy (the same files) there first.
    rmSync(temporary, {recursive: true, force: true})
    if (!existsSync(join(folder, '.complete'))) throw error
  }
}

/**
 * The package folder of this executable's files, written on first use. A folder that is not the
 * user's own and private to them is never used: its files could have been changed by another.
 */
export function packageFolder(env: NodeJS.ProcessEnv): string {
  const index = JSON.parse(getAsset(INDEX_ASSET, 'utf8')) as AssetIndex
  const base = cacheBase(env)
  const folder = join(base, 'single-executable', index.digest)
  if (!isPrivateFolderChain(base, folder))
    throw new Error(`bk: ${folder} is not private to this user (owned by another, or writable by others)`)
  if (!existsSync(join(folder, '.complete'))) {
    makePrivateFolder(dirname(folder))
    writeAssets(index, folder)
  }
  return folder
}

/** Runs bk from its written package folder, as bin/run.js runs it from the npm package. */
export function runSingleExecutable(argv: string[], env = process.env): void {
  const root = packageFolder(env)
  const load = Module.createRequire(join(root, 'package.json'))
  // Code of bk that runs Node itself (a keychain read in a separate process) runs this
  // executable with BK_RUN_SCRIPT, which stands for `node -e`.
  const script = env.BK_RUN_SCRIPT
  if (script !== undefined) {
    delete env.BK_RUN_SCRIPT
    ;(new Function('require', script) as (require: NodeJS.Require) => void)(load)
    return
  }
  ;(load('./dist/startup.cjs') as {start(root: string, argv: string[]): void}).start(root, argv)
}
