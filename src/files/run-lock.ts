/**
 * One run at a time per file: a lock file (`FILE.lock`) created exclusively and holding the pid
 * of its owner (first line) and who it is (second line, JSON: host, start time, what it does),
 * kept for the whole run. Two imports of one file started together (a CI retry, an overlapping
 * cron job) would otherwise both send every bill. A lock whose process is gone (bk killed) is
 * taken over; the takeover renames the stale lock away first, so that of two newcomers only one
 * can remove it. A pid alone is no proof of life: in a container on a kept workspace another
 * process may have the dead owner's pid, so on the owner's host the process's start time (Linux:
 * /proc/PID/stat) must match the one the lock recorded. A lock is written whole under a name of
 * its own and linked into place, so it is never seen empty; an empty one (a kill mid-creation, by
 * an older bk) is taken over once it is older than a few seconds.
 */
import {
  closeSync,
  linkSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs'
import {hostname} from 'node:os'
import {setTimeout as sleep} from 'node:timers/promises'

import {InputError} from '../shared/errors.js'

export interface RunLock {
  release(): void
}

/**
 * Takes the lock of `file` or throws an InputError (exit 2) naming the process that holds it.
 * `what` says what is locked, for the message (e.g. "the import journal bills.csv.bk-journal").
 */
export function acquireRunLock(
  file: string,
  what: string,
  options: {doing?: string | undefined; hint?: string | undefined} = {},
): RunLock {
  const {doing, hint} = options
  const lock = `${file}.lock`
  for (let attempt = 0; attempt < 5; attempt++) {
    if (tryCreate(lock, doing)) return {release: () => releaseIfOurs(lock)}
    const holder = readPid(lock)
    // Removed meanwhile, or not yet written (try again), or left empty by a kill (taken over).
    if (holder === undefined) {
      takeOverEmpty(lock)
      continue
    }
    if (isAlive(holder, readOwner(lock))) throw inUse(what, holder, lock, hint)
    takeOverStale(lock, holder)
  }
  throw inUse(what, readPid(lock), lock, hint)
}

/** Who holds a lock, as its owner wrote it. */
export interface LockOwner {
  pid: number
  host?: string | undefined
  /** When the owner took the lock (ISO 8601). */
  at?: string | undefined
  /** What the owner does ("the import of bills.csv"). */
  doing?: string | undefined
}

/** The live owner of the lock of `file`, or undefined when it is free (or its owner is gone). */
export function lockOwner(file: string): LockOwner | undefined {
  const lock = `${file}.lock`
  const pid = readPid(lock)
  if (pid === undefined) return undefined
  const owner = readOwner(lock)
  return isAlive(pid, owner) ? {...owner, pid} : undefined
}

/**
 * Takes the lock of `file`, waiting up to `waitMs` while another live process holds it
 * (`onWait` is told once whom it waits for); then throws the InputError (exit 2) naming it.
 */
export async function waitForRunLock(
  file: string,
  what: string,
  options: {waitMs: number; doing?: string; onWait?: (owner: LockOwner) => void},
): Promise<RunLock> {
  const deadline = Date.now() + options.waitMs
  let told = false
  for (;;) {
    try {
      return acquireRunLock(file, what, {doing: options.doing})
    } catch (error) {
      if (!(error instanceof InputError && error.code === 'run_in_progress') || Date.now() >= deadline) throw error
      const owner = lockOwner(file)
      if (owner && !told) {
        told = true
        options.onWait?.(owner)
      }
      await sleep(Math.min(200, Math.max(0, deadline - Date.now())))
    }
  }
}

/**
 * Runs `fn` holding the lock of `file`, waiting (a few seconds at most) while another bk process
 * holds it: for short read-modify-write updates, such as config.json by `profiles add`.
 */
export async function withFileLock<T>(file: string, what: string, fn: () => Promise<T>, waitMs = 10_000): Promise<T> {
  const deadline = Date.now() + waitMs
  let lock: RunLock
  for (;;) {
    try {
      lock = acquireRunLock(file, what)
      break
    } catch (error) {
      if (!(error instanceof InputError && error.code === 'run_in_progress') || Date.now() > deadline) throw error
      await sleep(5 + Math.random() * 20)
    }
  }
  try {
    return await fn()
  } finally {
    lock.release()
  }
}

/** The pid of the live process holding the lock of `file`, if one does (a dead owner's lock is no hold). */
export function lockHolder(file: string): number | undefined {
  const pid = readPid(`${file}.lock`)
  return pid !== undefined && isAlive(pid) ? pid : undefined
}

/** Takes every lock, or none: on a failure the ones already taken are released. */
export function acquireRunLocks(files: readonly string[], what: (file: string) => string): RunLock[] {
  const locks: RunLock[] = []
  try {
    for (const file of new Set(files)) locks.push(acquireRunLock(file, what(file)))
  } catch (error) {
    for (const lock of locks) lock.release()
    throw error
  }
  return locks
}

function tryCreate(lock: string, doing?: string): boolean {
  const owner = {host: hostname(), at: new Date().toISOString(), start: startTicks(process.pid), doing}
  const text = `${process.pid}\n${JSON.stringify(owner)}\n`
  // Written whole under a name of its own, then linked into place: a lock is never seen empty,
  // even if bk is killed between creating it and writing its owner.
  const tmp = `${lock}.${process.pid}.tmp`
  try {
    writeFileSync(tmp, text, {mode: 0o600})
    linkSync(tmp, lock)
    return true
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EEXIST') return false
    // A file system without hard links: created exclusively, then written (the old way).
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP') return createThenWrite(lock, text)
    throw new InputError(`Cannot create the lock file ${lock}: ${code ?? (error as Error).message}`, {
      hint: 'Check that its folder exists and is writable.',
    })
  } finally {
    rmSync(tmp, {force: true})
  }
}

function createThenWrite(lock: string, text: string): boolean {
  let fd: number
  try {
    fd = openSync(lock, 'wx', 0o600)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  }
  try {
    writeSync(fd, text)
  } finally {
    closeSync(fd)
  }
  return true
}

/** How long an empty lock may be one being written (by an older bk, or without hard links). */
const EMPTY_LOCK_GRACE_MS = 10_000

/**
 * An empty lock older than the grace was left by a kill between its creation and its write:
 * moved aside (if still empty, else put back), as a dead owner's is. Returns whether it was.
 */
function takeOverEmpty(lock: string): boolean {
  const stat = statSync(lock, {throwIfNoEntry: false})
  if (!stat || stat.size > 0 || Date.now() - stat.mtimeMs < EMPTY_LOCK_GRACE_MS) return false
  const aside = `${lock}.stale-${process.pid}`
  try {
    renameSync(lock, aside)
  } catch {
    return true // another newcomer moved it first
  }
  if (statSync(aside, {throwIfNoEntry: false})?.size !== 0) {
    try {
      linkSync(aside, lock)
    } catch {
      /* the path is held by another run */
    }
  }
  rmSync(aside, {force: true})
  return true
}

function readPid(lock: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lock, 'utf8'), 10)
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

interface OwnerLine {
  host?: string | undefined
  at?: string | undefined
  start?: number | undefined
  doing?: string | undefined
}

function readOwner(lock: string): OwnerLine {
  try {
    const second = readFileSync(lock, 'utf8').split('\n')[1]
    const owner = second ? (JSON.parse(second) as Record<string, unknown>) : {}
    return {
      host: typeof owner.host === 'string' ? owner.host : undefined,
      at: typeof owner.at === 'string' ? owner.at : undefined,
      start: typeof owner.start === 'number' ? owner.start : undefined,
      doing: typeof owner.doing === 'string' ? owner.doing : undefined,
    }
  } catch {
    return {} // a lock of an older bk (a pid alone), or one being written
  }
}

/** This process's start time: asked of every lock taken, and the record of created bills takes one per batch. */
let ownStart: {ticks: number | undefined} | undefined

/** A process's start time in clock ticks since boot (Linux), to tell it from a later one with its pid. */
function startTicks(pid: number): number | undefined {
  if (pid === process.pid) return (ownStart ??= {ticks: readStartTicks(pid)}).ticks
  return readStartTicks(pid)
}

function readStartTicks(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The fields after the command name (in parentheses, which may hold spaces): starttime is the 20th.
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19])
    return Number.isSafeInteger(ticks) ? ticks : undefined
  } catch {
    return undefined
  }
}

function isAlive(pid: number, owner: OwnerLine = {}): boolean {
  if (pid === process.pid) return owner.start === undefined || owner.start === startTicks(pid)
  try {
    process.kill(pid, 0)
  } catch (error) {
    // EPERM: it exists, under another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  // A live process with the owner's pid on the owner's host is the owner only if it started when the owner did.
  if (owner.start === undefined || owner.host !== hostname()) return true
  const now = startTicks(pid)
  return now === undefined || now === owner.start
}

/** Moves a dead owner's lock aside; if what was moved turns out to be a live owner's, puts it back. */
function takeOverStale(lock: string, deadPid: number): void {
  const aside = `${lock}.stale-${process.pid}`
  try {
    renameSync(lock, aside)
  } catch {
    return // another newcomer moved it first
  }
  if (readPid(aside) !== deadPid) {
    // A live run took the lock between our read and our rename: give it back (link fails if a
    // third run holds the path now, and then that one owns it).
    try {
      linkSync(aside, lock)
    } catch {
      /* the path is held by another run */
    }
  }
  rmSync(aside, {force: true})
}

function releaseIfOurs(lock: string): void {
  if (readPid(lock) === process.pid) rmSync(lock, {force: true})
}

function inUse(what: string, pid: number | undefined, lock: string, hint?: string): InputError {
  const by = pid === undefined ? 'another bk process' : `bk process ${pid}`
  return new InputError(`${what} is in use by ${by} (lock ${lock})`, {
    code: 'run_in_progress',
    hint:
      hint ??
      'Wait for that run to finish (or stop it), then run again with --resume. Two runs of one file at once could send everything twice.',
  })
}
