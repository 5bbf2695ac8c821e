/**
 * One run at a time per file: a lock file (`FILE.lock`) created exclusively and holding the pid
 * of its owner, kept for the whole run. Two imports of one file started together (a CI retry, an
 * overlapping cron job) would otherwise both send every bill. A lock whose process is gone (bk
 * killed) is taken over; the takeover renames the stale lock away first, so that of two
 * newcomers only one can remove it.
 */
import {closeSync, linkSync, openSync, readFileSync, renameSync, rmSync, writeSync} from 'node:fs'
import {setTimeout as sleep} from 'node:timers/promises'

import {InputError} from '../shared/errors.js'

export interface RunLock {
  release(): void
}

/**
 * Takes the lock of `file` or throws an InputError (exit 2) naming the process that holds it.
 * `what` says what is locked, for the message (e.g. "the import journal bills.csv.bk-journal").
 */
export function acquireRunLock(file: string, what: string, hint?: string): RunLock {
  const lock = `${file}.lock`
  for (let attempt = 0; attempt < 5; attempt++) {
    if (tryCreate(lock)) return {release: () => releaseIfOurs(lock)}
    const holder = readPid(lock)
    if (holder === undefined) continue // removed meanwhile, or not yet written: try again
    if (isAlive(holder)) throw inUse(what, holder, lock, hint)
    takeOverStale(lock, holder)
  }
  throw inUse(what, readPid(lock), lock, hint)
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

function tryCreate(lock: string): boolean {
  let fd: number
  try {
    fd = openSync(lock, 'wx', 0o600)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EEXIST') return false
    throw new InputError(`Cannot create the lock file ${lock}: ${code ?? (error as Error).message}`, {
      hint: 'Check that its folder exists and is writable.',
    })
  }
  try {
    writeSync(fd, `${process.pid}\n`)
  } finally {
    closeSync(fd)
  }
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

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
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
