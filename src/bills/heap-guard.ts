/**
 * Keeps a long import's memory flat. Batches live for a round trip, so V8 promotes them to the
 * old generation, which it lets grow to several times the live set before collecting; over a
 * million rows that shows as 200 MB of RSS for a live set under 25 MB. After each batch this
 * checks the old generation and, above a bound, asks for a full collection (about 10 ms with a
 * small live set; a handful per million rows). `gc` comes from V8's --expose-gc, switched on at
 * run time; where that is unavailable the guard does nothing.
 *
 * The young generation is left out of the count: it is emptied by every scavenge, which costs
 * little, and counting it (up to 16 MB of rows just read) made the guard ask for a full
 * collection every time it filled: a third of a dry run's collection time (docs/performance.md).
 */
import {getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString} from 'node:v8'
import {runInNewContext} from 'node:vm'

/**
 * V8's `gc`, from a context made while --expose-gc is on. The flag then goes back off (it was
 * off: a run started with it has `gc` already), or V8 would refuse the code cache this run
 * writes, which it checks against the flags of the run that reads it (src/startup/code-cache.ts).
 */
function exposedGc(): unknown {
  try {
    setFlagsFromString('--expose-gc')
    return runInNewContext('gc')
  } catch {
    return undefined
  } finally {
    setFlagsFromString('--no-expose-gc')
  }
}

/** Bytes in use outside the young generation (new_space and new_large_object_space). */
function oldGenerationBytes(): number {
  let young = 0
  for (const space of getHeapSpaceStatistics()) if (space.space_name.startsWith('new_')) young += space.space_used_size
  return getHeapStatistics().used_heap_size - young
}

/**
 * 24 MB, for a dry run and an import alike: an import's live set (the batches in flight, the
 * record's tail) is as small as a dry run's. A bound of 40 MB let a 1,000,000-row import peak at
 * about 7 MB more RSS, for one full collection fewer per 40,000 bills (docs/performance.md).
 */
const LIMIT_BYTES = 24 * 1024 * 1024

export function heapGuard(): () => void {
  const gc = (globalThis as {gc?: unknown}).gc ?? exposedGc()
  if (typeof gc !== 'function') return () => {}
  const collect = gc
  let limit = LIMIT_BYTES
  return () => {
    if (oldGenerationBytes() <= limit) return
    collect()
    // A live set near the bound (a resume with a large journal) raises it, so this never thrashes.
    limit = Math.max(LIMIT_BYTES, oldGenerationBytes() * 2)
  }
}
