/**
 * The resume log of `journal-entries create` (the user's `--journal`), kept beside an input file (`FILE.bk-journal`, as for bills import): one JSON record a line,
 * written and flushed before and after each POST, so that a re-run after a failure or a crash
 * never posts an entry twice. An entry whose last record is `sending` may or may not have been
 * created (the answer never came back): it is never re-sent automatically.
 */
import {createHash} from 'node:crypto'
import {existsSync} from 'node:fs'

import type {JournalEntryInput} from '../api/schemas/journal-entry.js'
import {ResumeLogFile, readResumeLogLines, type ResumeLogTarget} from '../files/resume-log.js'

const KIND = 'bk-journal-entries'

/** sending: the POST went out (outcome unknown until the next record); failed: the service answered and created nothing. */
export type RecordStatus = 'sending' | 'created' | 'failed'

export interface EntryLogRecord {
  index: number
  fingerprint: string
  status: RecordStatus
  id?: string
  error?: string
  at: string
}

export interface EntryLogHeader {
  kind: typeof KIND
  version: 1
  business_id: string
  /** The API base URL the entries were posted to; absent from a journal of an older bk. */
  base_url?: string
  started_at: string
}

export interface EntryLogState {
  header: EntryLogHeader
  /** The last record of each entry index. */
  entries: Map<number, EntryLogRecord>
}

/** A stable digest of what is sent for an entry (key order as built by the loader). */
export function fingerprint(input: JournalEntryInput): string {
  return createHash('sha256').update(JSON.stringify(input)).digest('hex').slice(0, 32)
}

/** Reads a journal; a torn last line (a crash mid-write) is ignored. */
export function readEntryLog(path: string): EntryLogState | undefined {
  if (!existsSync(path)) return undefined
  const {records: parsed, damagedLine, damage} = readResumeLogLines(path)
  if (damagedLine !== undefined) throw new Error(`${path}:${damagedLine}: not a journal record (${damage})`)
  const header = parsed[0] as EntryLogHeader | undefined
  if (!header || header.kind !== KIND) throw new Error(`${path} is not a bk journal-entries journal`)
  const entries = new Map<number, EntryLogRecord>()
  for (const r of parsed.slice(1) as EntryLogRecord[]) entries.set(r.index, r)
  return {header, entries}
}

export class EntryLogWriter {
  private constructor(private readonly journal: ResumeLogFile) {}

  /** Opens for appending; writes the header when the journal is new. */
  static open(path: string, target: ResumeLogTarget): EntryLogWriter {
    const isNew = !existsSync(path)
    const writer = new EntryLogWriter(ResumeLogFile.open(path))
    if (isNew)
      writer.journal.append({
        kind: KIND,
        version: 1,
        business_id: target.business,
        base_url: target.baseUrl,
        started_at: new Date().toISOString(),
      } satisfies EntryLogHeader)
    return writer
  }

  record(r: Omit<EntryLogRecord, 'at'>): void {
    this.journal.append({...r, at: new Date().toISOString()})
  }

  close(): void {
    this.journal.close()
  }
}
