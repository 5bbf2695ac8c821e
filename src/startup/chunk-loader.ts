/**
 * Loads the build (dist/bk.cjs and the chunks it requires, scripts/bundle.js) as CommonJS, each
 * file compiled as a vm.Script with the code V8 cached for it last time, so that a start skips
 * parsing and compiling what earlier starts already did.
 *
 * Node's own module.enableCompileCache() (22.1 and later) was measured too and is slower here:
 * Node caches a module's code as compiled when it loads, which for a bundle whose modules all load
 * on first use is little more than the top level, where a vm.Script's cache is taken after a run
 * and holds every function that run compiled (docs/performance.md, "Code cache").
 */
import {readFileSync} from 'node:fs'
import Module from 'node:module'
import {basename, dirname, join} from 'node:path'
import {Script} from 'node:vm'

export interface LoadedChunk {
  script: Script
  /** Whether V8 took the cached data it was given. */
  cached: boolean
  /**
   * Whether V8's flags, when it was compiled, were those the cache is written under: V8 refuses
   * data made under other flags, so a chunk compiled under others is neither read nor written.
   */
  cacheable: boolean
}

export interface LoadedBuild {
  /** dist/bk.cjs's exports. */
  exports: unknown
  /** Each chunk this run loaded (so far: chunks load on first use), by path relative to dist/. */
  loaded: Map<string, LoadedChunk>
}

/** What require() of a CommonJS module hands it. */
type ModuleWrapper = (
  exports: unknown,
  require: NodeJS.Require,
  module: Module,
  filename: string,
  dirname: string,
) => void

/**
 * Runs `file` (the build's entry) and, as it requires them, its chunks, each with V8's data from
 * `cached` when there is some for it and `cacheable()` says V8's flags are those the data was
 * made under. Each is registered in require's cache, so that oclif's require() of the entry
 * finds it loaded. The entry's text may be given (read already).
 */
export function loadBuild(
  file: string,
  cached: ReadonlyMap<string, Buffer>,
  entryText?: string,
  cacheable: () => boolean = () => true,
): LoadedBuild {
  const dist = dirname(file)
  const loaded = new Map<string, LoadedChunk & {module: Module}>()
  const nodeRequire = Module.createRequire(file)
  const load = (name: string, text?: string): unknown => {
    const chunk = loaded.get(name)
    if (chunk) return chunk.module.exports
    const path = join(dist, name)
    const usable = cacheable()
    const data = usable ? cached.get(name) : undefined
    // The build is ASCII (scripts/bundle.js): latin1 reads it as it is, faster than UTF-8. No
    // import() in it either: Node's callback for one is lost with cached code.
    const source = Module.wrap(text ?? readFileSync(path, 'latin1'))
    const script = new Script(source, {filename: path, ...(data ? {cachedData: data} : {})})
    const module = new Module(path)
    module.filename = path
    loaded.set(name, {module, script, cached: Boolean(data) && !script.cachedDataRejected, cacheable: usable})
    nodeRequire.cache[path] = module
    // A chunk requires the others by `./NAME.cjs`: the entry those in chunks/, a chunk those beside it.
    const beside = name.slice(0, name.lastIndexOf('/') + 1)
    const requireHere = Object.assign(
      (id: string) => (id.startsWith('./') && id.endsWith('.cjs') ? load(beside + id.slice(2)) : nodeRequire(id)),
      {resolve: nodeRequire.resolve, cache: nodeRequire.cache},
    ) as NodeJS.Require
    const wrapper = script.runInThisContext() as ModuleWrapper
    wrapper.call(module.exports, module.exports, requireHere, module, path, dirname(path))
    module.loaded = true
    return module.exports
  }
  return {exports: load(basename(file), entryText), loaded}
}
