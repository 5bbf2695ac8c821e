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
const {basename, dirname, join} = require('node:path')
const vm = require('node:vm')

const root = join(__dirname, '..')
const bundle = join(root, 'dist', 'bk.cjs')

const argv = process.argv.slice(2)

// `bk --version` prints the line oclif would print, without loading the bundle: reading and
// starting it is most of the run's time. oclif shows the version whenever the first argument is
// --version (bk adds no other version flags, so `-v` is not one), after running the init hooks
// (bk has none). With DEBUG set, oclif also logs its start: that goes through the bundle.
if (argv[0] === '--version' && !process.env.DEBUG) {
  const {name, version} = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const arch = process.arch === 'ia32' ? 'x86' : process.arch
  process.stdout.write(`${name}/${version || '0.0.0'} ${platform()}-${arch} node-${process.version}\n`)
  return
}
// `bk COMMAND --help` (or `bk help COMMAND`) read by a program prints the text oclif printed for
// it at build time (scripts/help-texts.js), without loading the bundle: it is what oclif prints
// whenever stdout is not a terminal and nothing asks for colour (FORCE_COLOR) or another width
// (OCLIF_COLUMNS), on the kind of platform it was rendered on. A terminal gets oclif's rendering,
// for its width and colours.
const help = prerenderedHelp()
if (help !== undefined) {
  process.stdout.write(help)
  return
}
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

/** The build's text for this run's help request, when it is exactly what oclif would print. */
function prerenderedHelp() {
  const env = process.env
  const words = argv[0] === 'help' ? argv.slice(1) : argv.at(-1) === '--help' ? argv.slice(0, -1) : []
  if (!words.length || words.some((w) => w.startsWith('-'))) return undefined
  if (env.FORCE_COLOR !== undefined || env.OCLIF_COLUMNS || env.DEBUG || process.stdout.isTTY) return undefined
  try {
    const {platform, texts} = JSON.parse(readFileSync(join(root, 'dist', 'help.json'), 'utf8'))
    const id = words.join(' ')
    if ((platform === 'win32') !== (process.platform === 'win32') || !Object.hasOwn(texts, id)) return undefined
    return texts[id]
  } catch {
    // None built (a development build): oclif renders it.
    return undefined
  }
}

/**
 * The platform as oclif names it: 'wsl' under the Windows Subsystem for Linux outside a container
 * (what its wsl-utils and is-wsl find, read the same way), else Node's name for it.
 */
function platform() {
  if (process.platform !== 'linux') return process.platform
  const {existsSync} = require('node:fs')
  const read = (file) => {
    try {
      return readFileSync(file, 'utf8')
    } catch {
      return ''
    }
  }
  const insideContainer = () =>
    existsSync('/run/.containerenv') || existsSync('/.dockerenv') || read('/proc/self/cgroup').includes('docker')
  const wsl =
    require('node:os').release().toLowerCase().includes('microsoft') ||
    read('/proc/version').toLowerCase().includes('microsoft') ||
    existsSync('/proc/sys/fs/binfmt_misc/WSLInterop') ||
    existsSync('/run/WSL')
  return wsl && !insideContainer() ? 'wsl' : 'linux'
}

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
 * What this run does, for the cache's purposes: the first two words (`transactions get`), or
 * `help` for every run that only shows help (they run the same code whatever the command).
 */
function kindOfRun() {
  if (onlyHelpOrVersion) return 'help'
  const words = argv.filter((a) => !a.startsWith('-')).slice(0, 2)
  return words.length ? words.join(' ') : (argv[0] ?? '')
}

/**
 * The name of a kind's cache file: lowercase letters, digits and '-' as they are, a space as '+',
 * every other character as its code between '_' (so that two kinds never share a name, on a file
 * system that ignores case too): `transactions+get.v8`.
 */
function cacheFileName(kind) {
  return `${kind.replace(/[^a-z0-9-]/g, (c) => (c === ' ' ? '+' : `_${c.charCodeAt(0).toString(16)}_`))}.v8`
}

/**
 * The build compiled as vm.Scripts with the code V8 cached last time, and run as CommonJS: the
 * entry, `file`, and each chunk as it is first required (scripts/bundle.js), each registered in
 * require's cache so that oclif's require() of the entry finds it loaded.
 *
 * Each kind of run has a cache file of its own, holding the code that kind compiled in each chunk
 * it loaded: V8 reads a script's cache whole, so one file for every command in use would cost
 * each run the others' code. A file holds one header line and V8's data, chunk after chunk. The
 * header names the build it is for (the entry's first line, which holds a digest of the build),
 * the kind, each chunk's name and length, and the CRC-32 of the data (so that a damaged file is
 * never handed to V8, whose own checks do not read the data). The first run of a kind writes the
 * header alone; the second writes the data, at exit, so that a command run once (a first run
 * after install, a one-off) does not pay for writing code that no later run would read. A later
 * run that loads a chunk the file lacks (another path through the same command) writes it anew,
 * with the chunks it did not load kept as they were.
 */
function requireWithCodeCache(file) {
  // The build is ASCII (scripts/bundle.js), so latin1 reads it as it is, faster than UTF-8.
  const source = readFileSync(file, 'latin1')
  const buildId = source.slice(0, source.indexOf('\n'))
  const dist = dirname(file)
  const kind = kindOfRun()
  let folder
  let cacheFile
  let noted = false
  /** V8's data for each chunk, by its path relative to dist/. */
  const cached = new Map()
  try {
    folder = cacheFolder()
    // V8 refuses a cache made under other flags: Node 20's non-default one has files of its own.
    cacheFile = join(folder, `${v8 ? 'liftoff-only.' : ''}${cacheFileName(kind)}`)
    const bytes = readFileSync(cacheFile)
    const newline = bytes.indexOf(10)
    const header = JSON.parse(bytes.subarray(0, newline).toString())
    const body = bytes.subarray(newline + 1)
    const {crc32} = require('node:zlib')
    const length = header.chunks.reduce((sum, [, n]) => sum + n, 0)
    if (header.bundle === buildId && header.kind === kind && length === body.length && header.crc32 === crc32(body)) {
      noted = true
      let at = 0
      for (const [name, n] of header.chunks) cached.set(name, body.subarray(at, (at += n)))
    }
  } catch {
    // None yet, unreadable or damaged: compile from source, and start a new one at exit.
  }

  /**
   * The chunks this run loaded, by name (`bk.cjs`, `chunks/chunk-X.cjs`): each one's module, its
   * script, and whether V8 had cached code for it.
   */
  const loaded = new Map()
  const nodeRequire = Module.createRequire(file)
  const load = (name, text) => {
    const chunk = loaded.get(name)
    if (chunk) return chunk.module.exports
    const path = join(dist, name)
    const data = cached.get(name)
    // No import() in it (scripts/bundle.js): Node's callback for one is lost with cached code.
    const script = new vm.Script(Module.wrap(text ?? readFileSync(path, 'latin1')), {filename: path, cachedData: data})
    const module = new Module(path, null)
    module.filename = path
    loaded.set(name, {module, script, cached: Boolean(data) && !script.cachedDataRejected})
    require.cache[path] = module
    // A chunk requires the others by `./NAME.cjs`: the entry those in chunks/, a chunk those beside it.
    const beside = name.slice(0, name.lastIndexOf('/') + 1)
    const requireHere = (id) =>
      id.startsWith('./') && id.endsWith('.cjs') ? load(beside + id.slice(2)) : nodeRequire(id)
    requireHere.resolve = nodeRequire.resolve
    requireHere.cache = require.cache
    script.runInThisContext().call(module.exports, module.exports, requireHere, module, path, dirname(path))
    module.loaded = true
    return module.exports
  }

  // Kinds are words a user typed: a long one, or one past a cap on the number of files (so that a
  // stream of mistyped commands cannot fill the folder), is not cached.
  if (cacheFile && cacheFile.length - folder.length < 128) {
    process.once('exit', () => {
      if ([...loaded.values()].every((c) => c.cached)) return
      if (noted) writeCodeCache(cacheFile, buildId, kind, allChunks(loaded, cached))
      else if (countCacheFiles(folder) < 64) writeCodeCache(cacheFile, buildId, kind, () => [])
    })
  }
  return load(basename(file), source)
}

/**
 * What a kind's file holds when written anew: V8's data for every chunk this run compiled (what
 * it had cached, and what this run added), and the data kept for the chunks it did not load.
 */
function allChunks(loaded, cached) {
  return () => {
    const chunks = new Map(cached)
    for (const [name, {script}] of loaded) chunks.set(name, script.createCachedData())
    return [...chunks]
  }
}

/** How many cache files the folder holds (none when there is no folder yet). */
function countCacheFiles(folder) {
  try {
    return require('node:fs')
      .readdirSync(folder)
      .filter((f) => f.endsWith('.v8')).length
  } catch {
    return 0
  }
}

/** Writes the cache file anew (in one rename, so that no run reads half of it). */
function writeCodeCache(cacheFile, buildId, kind, chunksOf) {
  const temp = `${cacheFile}.${process.pid}`
  try {
    // Under the flags a start has (V8 refuses a cache made under others).
    if (v8) v8.setFlagsFromString('--liftoff-only')
    const chunks = chunksOf()
    const data = Buffer.concat(chunks.map(([, bytes]) => bytes))
    const {crc32} = require('node:zlib')
    const header = JSON.stringify({
      bundle: buildId,
      kind,
      chunks: chunks.map(([name, bytes]) => [name, bytes.length]),
      crc32: crc32(data),
    })
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
