/**
 * bk's resume log: the file under every import's journal (bills, journal entries; the `--journal`
 * flag and the `.bk-journal` suffix keep the word users know). In code it is the resume log, so
 * that "journal" means the domain's journal entries only: append-only JSON lines beside the
 * input (`FILE.bk-journal`), each append written and fdatasync'd before it returns, so that a
 * kill -9 loses nothing that was reported as recorded. Only the last line can be torn (a write
 * cut short by a crash or a full disk): a line not ended by a newline was never reported as
 * recorded, so nothing was acted on after it; readers ignore it and `open` cuts it off before
 * appending. A damaged line anywhere else is reported. What the records mean is each journal's.
 */
import {
  closeSync,
  existsSync,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  lstatSync,
  openSync,
  readSync,
  realpathSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs'
import {promisify} from 'node:util'

import {redactKnown} from '../api/redact.js'
import {openPrivateFile} from '../output/sink.js'
import {InputError} from '../shared/errors.js'

export const RESUME_LOG_SUFFIX = '.bk-journal'

/** `FILE.bk-journal`; a symbolic link's is its target's, so that each name of a file finds one journal. */
export function resumeLogPathFor(input: string): string {
  return (isLink(input) ? realpathSync(input) : input) + RESUME_LOG_SUFFIX
}

/** A link to nothing keeps its own name: reading it fails first, naming it. */
function isLink(path: string): boolean {
  return lstatSync(path, {throwIfNoEntry: false})?.isSymbolicLink() === true && existsSync(path)
}

export interface ResumeLogLines {
  /** The parsed records, in file order; a torn last line is left out. */
  records: unknown[]
  /** The 1-based line number of a damaged line before the last, if any. */
  damagedLine?: number | undefined
  damage?: string | undefined
}

/** A folder given as the resume log (--journal DIR) is bad input, not a crash. */
function refuseNonFile(file: string): void {
  if (statSync(file, {throwIfNoEntry: false})?.isDirectory())
    throw new InputError(`The resume log ${file} is a folder, not a file`, {
      hint: 'Give --journal the path of a file (bk creates it), or leave --journal out to use FILE.bk-journal.',
      details: {path: file},
    })
}

/** A line longer than this is damaged (a record is a few hundred bytes); it is not kept in memory. */
const MAX_LINE_BYTES = 1024 * 1024
const CHUNK_BYTES = 1024 * 1024

export function readResumeLogLines(file: string): ResumeLogLines {
  refuseNonFile(file)
  // Read piece by piece: a device (/dev/zero) would never end, and a huge file must not be held.
  if (statSync(file, {throwIfNoEntry: false})?.isFile() === false)
    throw new InputError(`The resume log ${file} is not a regular file`, {
      hint: 'Give --journal the path of a file (bk creates it), or leave --journal out to use FILE.bk-journal.',
      details: {path: file},
    })
  const fd = openSync(file, 'r')
  const records: unknown[] = []
  try {
    const chunk = Buffer.alloc(CHUNK_BYTES)
    let pending: Buffer[] = []
    let pendingBytes = 0
    let overlong = false
    let line = 0
    for (let read = readSync(fd, chunk); read > 0; read = readSync(fd, chunk)) {
      let start = 0
      for (let nl = chunk.indexOf(0x0a, start); nl !== -1 && nl < read; nl = chunk.indexOf(0x0a, start)) {
        line++
        // Whatever follows the last newline is a torn write: never recorded, so never read.
        const text = overlong ? '' : Buffer.concat([...pending, chunk.subarray(start, nl)]).toString('utf8')
        if (overlong) return {records, damagedLine: line, damage: `the line is longer than ${MAX_LINE_BYTES} bytes`}
        pending = []
        pendingBytes = 0
        start = nl + 1
        if (text.trim() === '') continue
        try {
          records.push(JSON.parse(text))
        } catch (error) {
          return {records, damagedLine: line, damage: (error as Error).message}
        }
      }
      if (start < read && !overlong) {
        pendingBytes += read - start
        if (pendingBytes > MAX_LINE_BYTES) {
          overlong = true
          pending = []
        } else pending.push(Buffer.from(chunk.subarray(start, read)))
      }
    }
  } finally {
    closeSync(fd)
  }
  return {records}
}

/** An open journal file: each `append` is on disk (fdatasync'd) when it returns. */
export class ResumeLogFile {
  private constructor(
    private readonly fd: number,
    readonly file: string,
  ) {}

  /** Opens for appending, first cutting off a torn last line so that the next record starts a line of its own. */
  static open(file: string): ResumeLogFile {
    refuseNonFile(file)
    if (existsSync(file) && statSync(file).isFile()) cutTornTail(file)
    return new ResumeLogFile(openPrivateFile('journal', file, 'append'), file)
  }

  /**
   * Appends records as JSON lines, then one fdatasync. A short write is continued until every
   * byte is written; a failed one throws, and the caller must not act on the records.
   */
  append(...records: unknown[]): void {
    const data = linesOf(records)
    for (let written = 0; written < data.length;) written += writeSync(this.fd, data, written, data.length - written)
    fdatasyncSync(this.fd)
  }

  /**
   * `append` with its sync through the thread pool: the event loop goes on (answers of other
   * requests are read) while the disk syncs. The write itself, into the page cache, is done here:
   * a trip through the pool costs more than it. The caller must not start another before this
   * one settles.
   */
  async appendAsync(...records: unknown[]): Promise<void> {
    const data = linesOf(records)
    for (let written = 0; written < data.length;) written += writeSync(this.fd, data, written, data.length - written)
    await fdatasyncAsync(this.fd)
  }

  close(): void {
    closeSync(this.fd)
  }
}

const fdatasyncAsync = promisify(fdatasync)

/** Records as JSON lines, with what must never be written (tokens, secrets) redacted. */
function linesOf(records: unknown[]): Buffer {
  return Buffer.from(redactKnown(records.map((r) => JSON.stringify(r) + '\n').join('')))
}

/** Cuts the file after its last newline, found by reading back from the end (the file is never held whole). */
function cutTornTail(file: string): void {
  const fd = openSync(file, 'r+')
  try {
    const size = fstatSync(fd).size
    const chunk = Buffer.alloc(CHUNK_BYTES)
    let end = 0
    for (let at = size; at > 0 && end === 0;) {
      const from = Math.max(0, at - CHUNK_BYTES)
      const read = readSync(fd, chunk, 0, at - from, from)
      const nl = chunk.subarray(0, read).lastIndexOf(0x0a)
      if (nl !== -1) end = from + nl + 1
      at = from
    }
    if (end === size) return
    ftruncateSync(fd, end)
    fdatasyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

export function removeResumeLog(file: string): void {
  rmSync(file, {force: true})
}

/** Where what a resume log records holds true: the API base URL (the environment) and the business. */
export interface ResumeLogTarget {
  baseUrl: string
  business: string
}

/**
 * Whether a log may be resumed against `current`. Refuses one begun against another environment
 * or business: what it records as created exists there, so resuming here would skip what was
 * never sent here. `of` names what the log is of, up to its target: "an import into". False for
 * a log of another target that `binds` nothing (nothing created, nothing sent without an answer:
 * a typo in the business or base URL): it holds nothing true of its target, and the caller
 * starts a new log in its place, once it is about to write it. True: the log is of this target.
 */
export function resumesHere(
  file: string,
  logged: ResumeLogTarget,
  current: ResumeLogTarget,
  of: string,
  binds: boolean,
): boolean {
  if (logged.business === current.business && logged.baseUrl === current.baseUrl) return true
  if (!binds) return false
  if (logged.business !== current.business) {
    throw new InputError(`The journal ${file} is of ${of} ${logged.business}, not ${current.business}`, {
      hint: `Resume with --business ${logged.business}, or pass --journal to keep a separate journal for this business.`,
    })
  }
  throw new InputError(`The journal ${file} is of ${of} ${logged.baseUrl}, not ${current.baseUrl}`, {
    hint: 'Resume with the same profile or base URL, or pass --journal to keep a separate journal.',
  })
}
