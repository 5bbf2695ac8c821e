#!/usr/bin/env node
// Loads the bundle (dist/bk.cjs, made by `npm run build`) with a V8 code cache, so that a start
// skips parsing and compiling what earlier starts already did, then runs bk.
//
// The cache lives in the user's cache folder (the one oclif gives bk: BK_CACHE_DIR, else
// ~/Library/Caches/bk on macOS, $XDG_CACHE_HOME/bk, %LOCALAPPDATA%\bk on Windows, ~/.cache/bk),
// in a folder per bk version, Node version and architecture. Where Node has
// module.enableCompileCache() (22.1 and later) Node keeps it; on Node 20 a vm.Script with cached
// data does. A cache that is stale, corrupt or cannot be written is passed over without a word
// and rewritten when it can be: it may make bk faster, never fail it. NODE_DISABLE_COMPILE_CACHE=1
// turns it off, as it does Node's own.
import {mkdirSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import Module, {createRequire} from 'node:module'
import {homedir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import vm from 'node:vm'
import {crc32} from 'node:zlib'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const bundle = join(root, 'dist', 'bk.cjs')

const bk = process.env.NODE_DISABLE_COMPILE_CACHE
  ? createRequire(import.meta.url)(bundle)
  : typeof Module.enableCompileCache === 'function'
    ? requireWithNodeCache(bundle)
    : requireWithScriptCache(bundle)
await bk.main(import.meta.url)

/** bk's cache folder for this version of bk, Node and architecture. */
function cacheFolder() {
  const env = process.env
  const home = env.HOME || homedir()
  const base =
    env.BK_CACHE_DIR ||
    (process.platform === 'darwin' && join(home, 'Library', 'Caches', 'bk')) ||
    join(env.XDG_CACHE_HOME || (process.platform === 'win32' && env.LOCALAPPDATA) || join(home, '.cache'), 'bk')
  const {version} = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  return join(base, 'code-cache', `bk-${version}-node-${process.versions.node}-${process.arch}`)
}

/** Node 22.1 and later: Node's own compile cache, which checks its entries against the source. */
function requireWithNodeCache(file) {
  try {
    Module.enableCompileCache(cacheFolder())
  } catch {
    // No cache folder to be had: run without one.
  }
  return createRequire(import.meta.url)(file)
}

/**
 * Node 20: the bundle compiled as a vm.Script with the code V8 cached last time, and run as
 * CommonJS, registered in require's cache so that oclif's require() of it finds it loaded. The
 * cache file holds one header line (which bundle it is for, and the CRC-32 and length of the
 * data, so a damaged file is never handed to V8) and V8's data. It is written at exit, with the
 * functions this run compiled, when there was none or V8 refused it.
 */
function requireWithScriptCache(file) {
  // The bundle is ASCII (scripts/bundle.js), so latin1 reads it as it is, faster than UTF-8.
  const source = readFileSync(file, 'latin1')
  const bundleId = source.slice(0, source.indexOf('\n'))
  let cacheFile
  let cachedData
  try {
    cacheFile = join(cacheFolder(), 'bk.cjs.v8')
    const bytes = readFileSync(cacheFile)
    const newline = bytes.indexOf(10)
    const header = JSON.parse(bytes.subarray(0, newline).toString())
    const data = bytes.subarray(newline + 1)
    if (header.bundle === bundleId && header.length === data.length && header.crc32 === crc32(data)) cachedData = data
  } catch {
    // None yet, unreadable or damaged: compile from source and write a new one at exit.
  }
  const script = new vm.Script(Module.wrap(source), {
    filename: file,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  })
  if (cacheFile && (!cachedData || script.cachedDataRejected)) {
    process.once('exit', () => writeScriptCache(cacheFile, bundleId, script))
  }
  const module = new Module(file)
  module.filename = file
  module.paths = Module._nodeModulePaths(dirname(file))
  const require = createRequire(file)
  require.cache[file] = module
  script.runInThisContext().call(module.exports, module.exports, require, module, file, dirname(file))
  module.loaded = true
  return module.exports
}

function writeScriptCache(cacheFile, bundleId, script) {
  const temp = `${cacheFile}.${process.pid}`
  try {
    const data = script.createCachedData()
    const header = JSON.stringify({bundle: bundleId, length: data.length, crc32: crc32(data)})
    mkdirSync(dirname(cacheFile), {recursive: true})
    writeFileSync(temp, Buffer.concat([Buffer.from(header + '\n'), data]))
    renameSync(temp, cacheFile)
  } catch {
    rmSync(temp, {force: true})
  }
}
