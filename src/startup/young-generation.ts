/**
 * Node 22 and later give V8's young generation more room than Node 20: a bill import of 100,000
 * rows peaked at 236 MB of RSS on Node 24 (137 MB on Node 20), and 1,000,000 rows at 159 MB on
 * Node 22. Started with --max-semi-space-size=8, the imports peaked at 137 and 144 MB
 * (docs/performance.md, "Node 22 and 24's memory"). A dry run holds no batches in flight, only
 * the rows of the moment, and its reading worker's memory comes on top: it takes 4 (a preset's
 * dry run of 1,000,000 rows on Node 24: 157 MB with 8, 143 MB with 4, no slower), an import 8
 * (with 4 it was up to 6% slower). V8 sizes its heap as it starts, so the
 * flag set at run time changes nothing: a bill import restarts itself in place
 * (`process.execve`, Node 22.15 and later: the same process, pid, streams and signals) with the
 * flag, before anything else is loaded. Nothing else restarts: the other commands are short,
 * and a restart costs a Node start (about 40 ms).
 *
 * The restart also caps glibc's malloc arenas at two (MALLOC_ARENA_MAX, read once as the process
 * starts): by default each thread that allocates (the libuv pool writing the resume log, V8's
 * compiler and GC threads) may get an arena of its own, and their free memory stays resident.
 * On Node 24 that was 14 MB of a 1,000,000-row import's peak. A value the user set is kept.
 */
import {kindOfRun} from './run-kind.js'

export const SEMI_SPACE_FLAG = '--max-semi-space-size'
const SEMI_SPACE_MB = {import: 8, dryRun: 4}
const MALLOC_ARENAS = 2

/** Whether this process runs with a young generation bk (or the user, in NODE_OPTIONS) sized. */
export function youngGenerationSized(): boolean {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)]
  return given.some((a) => a.startsWith(SEMI_SPACE_FLAG))
}

/** Replaces this process with one whose young generation is smaller, for a bill import. Returns when it does not. */
export function restartWithSmallYoungGeneration(argv: readonly string[]): void {
  const words = argv.filter((a) => !a.startsWith('-'))
  if (kindOfRun(argv) !== 'bills import' || words[2] === 'status') return
  if (process.versions.node.startsWith('20.') || youngGenerationSized()) return
  // Node 22.15+ (not on Windows); a single executable reads its arguments as bk's, not Node's.
  const execve = (process as {execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never}).execve
  if (typeof execve !== 'function' || process.platform === 'win32' || isSingleExecutable()) return
  const megabytes = argv.includes('--dry-run') ? SEMI_SPACE_MB.dryRun : SEMI_SPACE_MB.import
  execve.call(
    process,
    process.execPath,
    [process.execPath, `${SEMI_SPACE_FLAG}=${megabytes}`, ...process.execArgv, ...process.argv.slice(1)],
    {...process.env, MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? String(MALLOC_ARENAS)},
  )
}

function isSingleExecutable(): boolean {
  try {
    return (process.getBuiltinModule('node:sea') as {isSea(): boolean} | undefined)?.isSea() ?? false
  } catch {
    return false
  }
}
