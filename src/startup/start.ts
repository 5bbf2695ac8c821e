/**
 * bk's start (bin/run.js): the answers that need no bundle (the version, stored help), else the
 * bundle, loaded with the code cache when it may be used, and run.
 *
 * CommonJS, like the bundle (scripts/bundle.js builds this folder into dist/startup.cjs): an ES
 * module entry would start Node's ES module loader, and importing built-in modules from one
 * builds a facade of each, which together cost about as much as the rest of `bk --version`.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {cacheLocation, codeCacheOff} from './cache-location.js'
import {dropWritesToClosedStreams} from './closed-streams.js'
import {requireWithCodeCache} from './code-cache.js'
import {cacheFileName, kindOfRun, onlyHelpOrVersion} from './run-kind.js'
import {storedHelp} from './stored-help.js'
import {versionLine} from './version-line.js'
import {restartWithSmallYoungGeneration, youngGenerationSized} from './young-generation.js'

interface Bundle {
  main(root: string): Promise<void>
}

/** Runs bk from the package folder `root`, for the arguments `argv` (process.argv.slice(2)). */
export function start(root: string, argv: string[]): void {
  dropWritesToClosedStreams()
  const env = process.env
  const answer = versionLine(root, argv, env) ?? storedHelp(root, argv, env, process.stdout)
  if (answer !== undefined) {
    process.stdout.write(answer)
    return
  }
  restartWithSmallYoungGeneration(argv)
  const liftoff = baselineWasmAtFirst(argv)
  const file = join(root, 'dist', 'bk.cjs')
  const {version} = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {version: string}
  const location = codeCacheOff(env) === undefined ? cacheLocation(version, env) : undefined
  const kind = kindOfRun(argv)
  const bundle = (
    location
      ? requireWithCodeCache(file, {
          location,
          kind,
          // V8 refuses a cache made under other flags: runs under a flag of their own have files of their own.
          fileName: `${liftoff ? 'liftoff-only.' : ''}${youngGenerationSized() ? 'semi-space.' : ''}${cacheFileName(kind)}`,
          ...(liftoff && {
            beforeWrite: () => process.getBuiltinModule('node:v8').setFlagsFromString('--liftoff-only'),
            startFlags: () => !liftoff.lifted,
          }),
        })
      : process.getBuiltinModule('node:module').createRequire(file)(file)
  ) as Bundle
  void bundle.main(root)
}

/**
 * Node 20 only: V8 11 recompiles undici's HTTP parser, which is WebAssembly, with its optimizing
 * compiler right after the first response: 35 MB and 60 ms of CPU for a command that makes two
 * requests (later V8s wait until the parser is hot). So the parser stays with the baseline
 * compiler for the first 0.3 s of a run; an export or import still running then gets it
 * optimized. A flag that is not V8's default costs every built-in module loaded afterwards its
 * precompiled code (about 10% of `bk --version`), so runs that only show help or the version,
 * which make no request, keep the defaults. Undefined when the flag is not set; else whether it
 * has been lifted (a chunk compiled after that cannot be cached: code-cache.ts).
 */
function baselineWasmAtFirst(argv: readonly string[]): {lifted: boolean} | undefined {
  if (!process.versions.node.startsWith('20.') || onlyHelpOrVersion(argv)) return undefined
  const v8 = process.getBuiltinModule('node:v8')
  v8.setFlagsFromString('--liftoff-only')
  const state = {lifted: false}
  setTimeout(() => {
    v8.setFlagsFromString('--no-liftoff-only')
    state.lifted = true
  }, 300).unref()
  return state
}
