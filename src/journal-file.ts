/**
 * The file under every import journal (bills, journal entries): append-only JSON lines beside the
 * input (`FILE.bk-journal`), each append written and fdatasync'd before it returns, so that a
 * kill -9 loses nothing that was reported as recorded. Only the last line can be torn (a write
 * cut short); a damaged line anywhere else is reported. What the records mean is each journal's.
 */
import {closeSync, fdatasyncSync, readFileSync, rmSync, writeSync} from 'node:fs'

import {redactKnown} from './api/redact.js'
import {openPrivateFile} from './output/sink.js'

const JOURNAL_SUFFIX = '.bk-journal'

export function journalPathFor(input: string): string {
  return input + JOURNAL_SUFFIX
}

export interface JournalLines {
  /** The parsed records, in file order; a torn last line is left out. */
  records: unknown[]
  /** The 1-based line number of a damaged line before the last, if any. */
  damagedLine?: number | undefined
  damage?: string | undefined
}

export function readJournalLines(file: string): JournalLines {
  const lines = readFileSync(file, 'utf8').split('\n')
  let last = lines.length - 1
  while (last >= 0 && (lines[last] as string).trim() === '') last--
  const records: unknown[] = []
  for (let i = 0; i <= last; i++) {
    const line = lines[i] as string
    if (line.trim() === '') continue
    try {
      records.push(JSON.parse(line))
    } catch (error) {
      if (i === last) break
      return {records, damagedLine: i + 1, damage: (error as Error).message}
    }
  }
  return {records}
}

/** An open journal file: each `append` is on disk (fdatasync'd) when it returns. */
export class JournalFile {
  private constructor(private readonly fd: number, readonly file: string) {}

  static open(file: string): JournalFile {
    return new JournalFile(openPrivateFile('journal', file, 'append'), file)
  }

  /** Appends records as JSON lines in one write, then one fdatasync. */
  append(...records: unknown[]): void {
    writeSync(this.fd, redactKnown(records.map((r) => JSON.stringify(r) + '\n').join('')))
    fdatasyncSync(this.fd)
  }

  close(): void {
    closeSync(this.fd)
  }
}

export function removeJournal(file: string): void {
  rmSync(file, {force: true})
}
