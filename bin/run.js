#!/usr/bin/env node
// Loads the bundle (dist/bk.cjs, made by `npm run build`) with a V8 code cache, so that a start
// skips parsing and compiling what earlier starts already did, then runs bk.
//
// The bundle is compiled as a vm.Script with the code V8 cached last time, on every Node version.
// Node's own module.enableCompileCache() (22.1 and later) was measured too and is slower here:
// Node caches a module's code as compiled when it loads, which for a bundle whose modules all
// load on first use is little more than the top level, where a vm.Script's cache is written
// after a run and holds every function that run compiled (README, "Start-up").
//
// The cache lives in the user's cache folder (the one oclif gives bk: BK_CACHE_DIR, else
// ~/Library/Caches/bk on macOS, $XDG_CACHE_HOME/bk, %LOCALAPPDATA%\bk on Windows, ~/.cache/bk),
// in a folder per bk version, Node version and architecture. A cache that is stale, damaged or
// cannot be written is passed over without a word and written anew when it can be: it may make bk
// faster, never fail it. NODE_DISABLE_COMPILE_CACHE=1 turns it off, as it does Node's own.
//
// CommonJS (bin/package.json), like the bundle: an ES module entry would start Node's ES module
// loader, and importing built-in modules from one builds a facade of each, which together cost
// about as much as the rest of `bk --version`.
'use strict'
const {mkdirSync, readFileSync, renameSync, rmSync, writeFileSync} = require('node:fs')
const Module = require('node:module')
const {homedir} = require('node:os')
const {dirname, join} = require('node:path')
const vm = require('node:vm')

const root = join(__dirname, '..')
const bundle = join(root, 'dist', 'bk.cjs')

const argv = process.argv.slice(2)
/** Whether this run only shows help or the version: no command runs, no request is made. */
const onlyHelpOrVersion =
  argv.length === 0 || argv[0] === 'help' || argv.some((a) => ['--help', '-h', '--version'].includes(a))

// Node 20 only: V8 11 recompiles undici's HTTP parser, which is WebAssembly, with its optimizing
// compiler right after the first response: 35 MB and 60 ms of CPU for a command that makes two
// requests (later V8s wait until the parser is hot). So the parser stays with the baseline
// compiler for the first 0.3 s of a run; an export or import still running then gets it
// optimized. A flag that is not V8's default costs every built-in module loaded afterwards its
// precompiled code (about 10% of `bk --version`), so runs that only show help or the version,
// which make no request, keep the defaults, and a code cache of their own.
const v8 = process.versions.node.startsWith('20.') && !onlyHelpOrVersion && require('node:v8')
if (v8) {
  v8.setFlagsFromString('--liftoff-only')
  setTimeout(() => v8.setFlagsFromString('--no-liftoff-only'), 300).unref()
}

const bk = process.env.NODE_DISABLE_COMPILE_CACHE ? require(bundle) : requireWithCodeCache(bundle)
bk.main(root)

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

/**
 * What this run does, for the cache's purposes: the first two words (`transactions get`), or the
 * first argument (`--version`), and whether it only shows help.
 */
function kindOfRun() {
  const words = argv.filter((a) => !a.startsWith('-')).slice(0, 2)
  const help = argv.includes('--help') || argv.includes('-h')
  return `${words.length ? words.join(' ') : (argv[0] ?? '')}${help ? ' --help' : ''}`
}

/**
 * The bundle compiled as a vm.Script with the code V8 cached last time, and run as CommonJS,
 * registered in require's cache so that oclif's require() of it finds it loaded.
 *
 * The cache file holds one header line and V8's data. The header names the bundle it is for
 * (its first line, which holds a digest of it), the CRC-32 and length of the data (so that a
 * damaged file is never handed to V8, whose own checks do not read the data), the kinds of run
 * whose code the data holds, and the kinds seen once since. The data is written at exit by the
 * second run of a kind it does not hold (the first only notes the kind in the header): each run
 * brings what it compiled on top of what the cache held, so the cache grows to the commands in
 * use, and a command run once (a first run after install, a one-off) does not pay for writing
 * code that no later run would read.
 */
function requireWithCodeCache(file) {
  // The bundle is ASCII (scripts/bundle.js), so latin1 reads it as it is, faster than UTF-8.
  const source = readFileSync(file, 'latin1')
  const bundleId = source.slice(0, source.indexOf('\n'))
  const kind = kindOfRun()
  let cacheFile
  let cache = {kinds: [], seen: []}
  try {
    // V8 refuses a cache made under other flags: one file per set of flags (see above).
    cacheFile = join(cacheFolder(), v8 ? 'bk.cjs.liftoff-only.v8' : 'bk.cjs.v8')
    const bytes = readFileSync(cacheFile)
    const newline = bytes.indexOf(10)
    const header = JSON.parse(bytes.subarray(0, newline).toString())
    const data = bytes.subarray(newline + 1)
    const {crc32} = require('node:zlib')
    if (header.bundle === bundleId && header.length === data.length && header.crc32 === crc32(data)) {
      const list = (v) => (Array.isArray(v) ? v.filter((k) => typeof k === 'string') : [])
      cache = {data: data.length ? data : undefined, kinds: list(header.kinds), seen: list(header.seen)}
    }
  } catch {
    // None yet, unreadable or damaged: compile from source, and start a new one at exit.
  }
  // No import() in it (scripts/bundle.js): Node's callback for one is lost with cached code.
  const script = new vm.Script(Module.wrap(source), {filename: file, cachedData: cache.data})
  const kinds = cache.data && !script.cachedDataRejected ? cache.kinds : []
  // A cap, so that a stream of mistyped commands cannot keep rewriting it.
  if (cacheFile && !kinds.includes(kind) && kinds.length + cache.seen.length < 64) {
    process.once('exit', () => {
      const seen = cache.seen.filter((k) => k !== kind)
      if (seen.length < cache.seen.length)
        writeCodeCache(cacheFile, bundleId, script.createCachedData.bind(script), [...kinds, kind], seen)
      else
        writeCodeCache(cacheFile, bundleId, () => (kinds.length ? cache.data : Buffer.alloc(0)), kinds, [...seen, kind])
    })
  }
  const module = new Module(file, null)
  module.filename = file
  module.paths = Module._nodeModulePaths(dirname(file))
  require.cache[file] = module
  const wrapper = script.runInThisContext()
  wrapper.call(module.exports, module.exports, Module.createRequire(file), module, file, dirname(file))
  module.loaded = true
  return module.exports
}

/** Writes the cache file anew (in one rename, so that no run reads half of it). */
function writeCodeCache(cacheFile, bundleId, codeCache, kinds, seen) {
  const temp = `${cacheFile}.${process.pid}`
  try {
    // Under the flags a start has (V8 refuses a cache made under others).
    if (v8) v8.setFlagsFromString('--liftoff-only')
    const data = codeCache()
    const {crc32} = require('node:zlib')
    const header = JSON.stringify({bundle: bundleId, length: data.length, crc32: crc32(data), kinds, seen})
    mkdirSync(dirname(cacheFile), {recursive: true})
    writeFileSync(temp, Buffer.concat([Buffer.from(header + '\n'), data]))
    renameSync(temp, cacheFile)
  } catch {
    try {
      rmSync(temp, {force: true})
    } catch {
      // Nothing was written.
    }
  }
}
