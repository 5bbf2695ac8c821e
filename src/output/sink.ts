/**
 * Where output goes: stdout, or a file given with --file (`-` is stdout). Writes honour
 * backpressure so that streaming an export keeps memory flat.
 *
 * A file is written as FILE.partial and renamed to FILE once complete: an export that fails
 * halfway never leaves a truncated FILE that looks whole (an earlier FILE stays as it was).
 *
 * Every file bk writes holds business data: it is created 0600 and never written through a
 * symbolic link (a link planted at the path could send it anywhere, or create the link's target).
 */
import {once} from 'node:events'
import {constants, fchmodSync, lstatSync, openSync, statSync, type Stats} from 'node:fs'
import {access, open, rename, rm, stat} from 'node:fs/promises'
import {dirname, resolve} from 'node:path'
import type {Writable} from 'node:stream'

import {redactKnown} from '../api/redact.js'
import {InputError} from '../shared/errors.js'

export interface Sink {
  readonly isTty: boolean
  write(text: string): Promise<void>
  /** Finishes the output (for a file: renames FILE.partial to FILE). */
  end(): Promise<void>
  /**
   * Gives up on the output after a failure, and writes nothing more: a file's FILE.partial is
   * removed; stdout gets the ending last given to endWith.
   */
  abort(): Promise<void>
  /**
   * What makes the text written so far whole (`]` for a JSON array begun), written to stdout
   * if the output is given up part-way (a failure, Ctrl-C, SIGTERM): stdout then still holds one
   * JSON value, never an array cut off. A file is removed instead, so it needs none.
   */
  endWith(ending: string): void
}

/** The files being written (as FILE.partial) right now, for an interruption to give up on. */
const writing = new Map<string, {existed: boolean; abort: () => Promise<void>}>()
/** The outputs to stdout opened and not yet ended, for an interruption to end as endWith said. */
const onStdout = new Set<() => Promise<void>>()

/**
 * Gives up on every output under way (Ctrl-C, SIGTERM): each FILE.partial is removed, and FILE
 * stays as it was; stdout gets the ending of what it holds. Returns the files, and whether each
 * existed before.
 */
export async function abandonOpenOutputs(): Promise<Array<{file: string; existed: boolean}>> {
  const files = [...writing]
  const aborts = [...files.map(([, w]) => w.abort), ...onStdout]
  await Promise.all(aborts.map((abort) => abort().catch(() => {})))
  return files.map(([file, {existed}]) => ({file, existed}))
}

let begun = false
/**
 * Whether a command's output has begun on stdout: an error then goes to stderr even with
 * --json, since stdout already holds the one document it may hold.
 */
export function stdoutBegun(): boolean {
  return begun
}

/** Opens the output before anything is fetched, so that an unusable --file costs no request. */
export async function openSink(file?: string | undefined): Promise<Sink> {
  if (!file || file === '-') return stdoutSink()
  const existed = (await checkWritable('--file', file)) !== undefined
  const partial = `${file}.partial`
  // Created afresh (a link left at FILE.partial is removed, not followed); the rename then
  // replaces FILE itself, never a file a link at FILE points to.
  await rm(partial, {force: true})
  const handle = await open(
    partial,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW,
    PRIVATE_MODE,
  ).catch((error: NodeJS.ErrnoException) => {
    throw new InputError(`--file ${file}: cannot write ${partial} (${error.code ?? error.message})`, {
      details: {flag: '--file', value: file},
    })
  })
  const stream = handle.createWriteStream()
  const out = streamWriter(stream)
  const abort = async () => {
    writing.delete(file)
    if (!stream.closed) {
      stream.destroy()
      await once(stream, 'close').catch(() => {})
    }
    await rm(partial, {force: true})
  }
  writing.set(file, {existed, abort})
  return {
    isTty: false,
    write: out.write,
    async end() {
      await out.end()
      await rename(partial, file)
      writing.delete(file)
      if (process.env.GITHUB_STEP_SUMMARY) (await import('../ci/export-summary.js')).summarizeExport(file)
    },
    abort,
    endWith: () => {},
  }
}

/**
 * stdout, for a command whose work is what it writes there: once the reader has gone (`| head`),
 * the next write throws the EPIPE, and the command stops fetching (BaseCommand.catch: exit 0).
 * bk's start drops the writes themselves (src/startup/closed-streams.ts), so without this check
 * a list would go on fetching for no one.
 */
let stdoutGone: Error | undefined
let watchingStdout = false

function stdoutSink(): Sink {
  // One listener for the process, however many sinks a command opens.
  if (!watchingStdout) {
    watchingStdout = true
    process.stdout.on('error', (error) => (stdoutGone ??= error))
  }
  let ending = ''
  let over = false
  const abort = async () => {
    if (over) return
    over = true
    onStdout.delete(abort)
    // Not waiting for a drain: an interruption exits right after, and a stalled reader must not hold it.
    if (ending && !stdoutGone) process.stdout.write(ending)
  }
  onStdout.add(abort)
  return {
    isTty: Boolean(process.stdout.isTTY),
    async write(text) {
      // Given up (interrupted while a page was on its way): the ending was the last word.
      if (over) return
      if (stdoutGone) throw stdoutGone
      begun = true
      await writeWithBackpressure(process.stdout, text)
    },
    end: async () => {
      over = true
      onStdout.delete(abort)
    },
    abort,
    endWith(text) {
      ending = text
    },
  }
}

/** A stream's writes and end as promises. */
export interface StreamWriter {
  write(text: string): Promise<void>
  end(): Promise<void>
}

/**
 * Writes to a file stream with backpressure. A write error (a full disk) is thrown by the next
 * write or by end, instead of crashing the process as an unhandled 'error' event.
 */
export function streamWriter(stream: Writable): StreamWriter {
  let failure: Error | undefined
  stream.on('error', (error) => (failure = error))
  return {
    async write(text) {
      if (failure) throw failure
      await writeWithBackpressure(stream, redactKnown(text))
    },
    async end() {
      if (failure) throw failure
      stream.end()
      await once(stream, 'finish')
    },
  }
}

/**
 * Refuses, before anything is done, an output path that cannot be written: a directory, or one
 * in a folder that does not exist or is not writable. `what` names it (its flag) in the message.
 * Returns the file's stats when it exists.
 */
export async function checkWritable(what: string, path: string): Promise<Stats | undefined> {
  const refuse = (why: string) =>
    new InputError(`${what} ${path}: ${why}`, {
      hint: 'Give the path of a file in a folder you can write to.',
      details: {what, path},
    })
  const existing = await stat(path).catch(() => undefined)
  if (existing?.isDirectory()) throw refuse('is a directory')
  const why = linkRefusal(path)
  if (why) throw refuse(why)
  const folder = dirname(resolve(path))
  await access(folder, constants.W_OK).catch((error: NodeJS.ErrnoException) => {
    throw refuse(
      error.code === 'ENOENT'
        ? `the folder ${folder} does not exist`
        : `cannot write in ${folder} (${error.code ?? error.message})`,
    )
  })
  return existing
}

/** Owner read and write only: the mode of every file bk creates. */
export const PRIVATE_MODE = 0o600
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0

/**
 * Why a path is not written through, if it is a symbolic link: one to a regular file, or to
 * nothing (a dangling link would make bk create its target). A link to a device or a pipe
 * (/dev/stdout) is written as that device.
 */
function linkRefusal(path: string): string | undefined {
  const own = lstatSync(path, {throwIfNoEntry: false})
  if (!own?.isSymbolicLink()) return undefined
  const target = statSync(path, {throwIfNoEntry: false})
  if (target && !target.isFile() && !target.isDirectory()) return undefined
  return 'is a symbolic link; bk does not write business data through links'
}

/**
 * Opens a file for business data (rejects, results, journals): created 0600, a regular file
 * made 0600 when truncated, never through a symbolic link; a device or pipe as it is.
 * `what` names it (its flag) in the message.
 */
export function openPrivateFile(what: string, path: string, mode: 'append' | 'truncate'): number {
  const refusal = linkRefusal(path)
  if (refusal)
    throw new InputError(`${what} ${path}: ${refusal}`, {
      hint: 'Remove the link or give another path.',
      details: {what, path},
    })
  const own = lstatSync(path, {throwIfNoEntry: false})
  if (own && !own.isFile()) return openSync(path, mode === 'append' ? 'a' : 'w')
  const flags =
    constants.O_WRONLY | constants.O_CREAT | NO_FOLLOW | (mode === 'append' ? constants.O_APPEND : constants.O_TRUNC)
  const fd = openSync(path, flags, PRIVATE_MODE)
  if (mode === 'truncate') fchmodSync(fd, PRIVATE_MODE)
  return fd
}

async function writeWithBackpressure(stream: Writable, text: string): Promise<void> {
  if (!stream.write(text)) await once(stream, 'drain')
}
