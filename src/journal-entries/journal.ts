/**
 * The journal kept beside an input file (`FILE.bk-journal`, as for bills import): one JSON record a line,
 * written and flushed before and after each POST, so that a re-run after a failure or a crash
 * never posts an entry twice. An entry whose last record is `sending` may or may not have been
 * created (the answer never came back): it is never re-sent automatically.
 */
import {createHash} from 'node:crypto'
import {closeSync, existsSync, fsyncSync, openSync, readFileSync, rmSync, writeSync} from 'node:fs'

import type {JournalEntryInput} from '../api/schemas/journal-entry.js'

export const JOURNAL_SUFFIX = '.bk-journal'
const KIND = 'bk-journal-entries'

export function journalPathFor(file: string): string {
  return file + JOURNAL_SUFFIX
}

/** sending: the POST went out (outcome unknown until the next record); failed: the service answered and created nothing. */
export type RecordStatus = 'sending' | 'created' | 'failed'

export interface JournalRecord {
  index: number
  fingerprint: string
  status: RecordStatus
  id?: string
  error?: string
  at: string
}

export interface JournalHeader {
  kind: typeof KIND
  version: 1
  business_id: string
  started_at: string
}

export interface JournalState {
  header: JournalHeader
  /** The last record of each entry index. */
  entries: Map<number, JournalRecord>
}

/** A stable digest of what is sent for an entry (key order as built by the loader). */
export function fingerprint(input: JournalEntryInput): string {
  return createHash('sha256').update(JSON.stringify(input)).digest('hex').slice(0, 32)
}

/** Reads a journal; a torn last line (a crash mid-write) is ignored. */
export function readJournal(path: string): JournalState | undefined {
  if (!existsSync(path)) return undefined
  const lines = readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '')
  const parsed: unknown[] = []
  lines.forEach((line, i) => {
    try {
      parsed.push(JSON.parse(line))
    } catch (error) {
      if (i < lines.length - 1) throw new Error(`${path}:${i + 1}: not a journal record (${(error as Error).message})`)
    }
  })
  const header = parsed[0] as JournalHeader | undefined
  if (!header || header.kind !== KIND) throw new Error(`${path} is not a bk journal-entries journal`)
  const entries = new Map<number, JournalRecord>()
  for (const r of parsed.slice(1) as JournalRecord[]) entries.set(r.index, r)
  return {header, entries}
}

export class JournalWriter {
  private constructor(private readonly fd: number) {}

  /** Opens for appending; writes the header when the journal is new. */
  static open(path: string, businessId: string): JournalWriter {
    const isNew = !existsSync(path)
    const writer = new JournalWriter(openSync(path, 'a', 0o600))
    if (isNew) writer.write({kind: KIND, version: 1, business_id: businessId, started_at: new Date().toISOString()} satisfies JournalHeader)
    return writer
  }

  record(r: Omit<JournalRecord, 'at'>): void {
    this.write({...r, at: new Date().toISOString()})
  }

  close(): void {
    closeSync(this.fd)
  }

  private write(value: unknown): void {
    writeSync(this.fd, JSON.stringify(value) + '\n')
    fsyncSync(this.fd)
  }
}

export function removeJournal(path: string): void {
  rmSync(path, {force: true})
}
