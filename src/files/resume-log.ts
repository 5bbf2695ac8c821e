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
  fdatasyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs'

import {redactKnown} from '../api/redact.js'
import {openPrivateFile} from '../output/sink.js'
import {InputError} from '../shared/errors.js'

export const RESUME_LOG_SUFFIX = '.bk-journal'

export function resumeLogPathFor(input: string): string {
  return input + RESUME_LOG_SUFFIX
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

export function readResumeLogLines(file: string): ResumeLogLines {
  refuseNonFile(file)
  // Read whole: a device (/dev/zero) would never end.
  if (statSync(file, {throwIfNoEntry: false})?.isFile() === false)
    throw new InputError(`The resume log ${file} is not a regular file`, {
      hint: 'Give --journal the path of a file (bk creates it), or leave --journal out to use FILE.bk-journal.',
      details: {path: file},
    })
  const text = readFileSync(file, 'utf8')
  // Whatever follows the last newline is a torn write: never recorded, so never read.
  const lines = text.slice(0, text.lastIndexOf('\n') + 1).split('\n')
  const records: unknown[] = []
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue
    try {
      records.push(JSON.parse(line))
    } catch (error) {
      return {records, damagedLine: i + 1, damage: (error as Error).message}
    }
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
    const data = Buffer.from(redactKnown(records.map((r) => JSON.stringify(r) + '\n').join('')))
    for (let written = 0; written < data.length;) written += writeSync(this.fd, data, written, data.length - written)
    fdatasyncSync(this.fd)
  }

  close(): void {
    closeSync(this.fd)
  }
}

function cutTornTail(file: string): void {
  const data = readFileSync(file)
  const end = data.lastIndexOf(0x0a) + 1
  if (end === data.length) return
  const fd = openSync(file, 'r+')
  try {
    ftruncateSync(fd, end)
    fdatasyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

export function removeResumeLog(file: string): void {
  rmSync(file, {force: true})
}
