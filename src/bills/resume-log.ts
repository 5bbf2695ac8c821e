/**
 * The bill import's resume log (the user's `--journal`): an append-only NDJSON file beside the input (`bills.csv.bk-journal`) that
 * records, per batch, the bill numbers about to be sent (before the request leaves) and then what
 * became of them. Each record is written and fdatasync'd before bk acts on it, so a kill -9 loses
 * nothing confirmed, and a batch whose result never reached the journal is known to be
 * "in flight": its bills are treated as unconfirmed, never re-sent automatically.
 *
 * Records (one JSON object a line):
 *   {"t":"header","format":"bk-bills-journal","version":2,"key":["vendor_id","number"],"input":…,"business":…,"baseUrl":…,"at":…}
 *   {"t":"run","at":…,"resume":true}
 *   {"t":"sending","batch":7,"keys":["ven_a\u001fB-1","ven_b\u001fB-1"]}
 *   {"t":"result","batch":7,"created":[[KEY,"bil_…"]],"failed":[[KEY,"reason"]],"unconfirmed":[[KEY,"reason"]]}
 *   {"t":"notsent","batch":7,"reason":…}     (the service certainly did not act: may be sent again)
 *   {"t":"settled","at":…,"created":[[KEY,"bil_…"]],"absent":[KEY]}
 *   {"t":"end","at":…,"read_to_end":false}   a run's last record: whether it read all of its input
 * A bill is named by its key: the values of the key columns (vendor and number by default) joined
 * by U+001F. Version 1 (bk 0.1) named bills by number alone, in `sending.numbers`; it is still read.
 *        (`bills unconfirmed --settle`: unconfirmed bills found to exist, or found never created
 *        and so free to be sent by the next --resume)
 */

import {InputError} from '../shared/errors.js'
import {acquireRunLock, type RunLock} from '../files/run-lock.js'
import {ResumeLogFile, readResumeLogLines} from '../files/resume-log.js'

export interface BillLogHeader {
  t: 'header'
  format: 'bk-bills-journal'
  version: 1 | 2
  /** The bill key's columns (version 2). */
  key?: string[]
  input: string
  /** The input's size and modification time when the journal began (not for stdin). */
  inputSize?: number
  inputModified?: string
  /** The lines file's (`lines_file:`), likewise, when the bills' lines were read from one. */
  lines?: {file: string; size: number; modified: string}
  business: string
  baseUrl: string
  at: string
}

export type BillLogRecord =
  | BillLogHeader
  | {t: 'run'; at: string; resume: boolean}
  | {t: 'sending'; batch: number; keys?: string[]; numbers?: string[]}
  | {
      t: 'result'
      batch: number
      created: Array<[string, string]>
      failed: Array<[string, string]>
      unconfirmed: Array<[string, string]>
    }
  | {t: 'notsent'; batch: number; reason: string}
  | {t: 'settled'; at: string; created: Array<[string, string]>; absent: string[]}
  | {t: 'end'; at: string; read_to_end: boolean}

export type BillOutcome =
  {kind: 'created'; id: string} | {kind: 'failed'; reason: string} | {kind: 'unconfirmed'; reason: string}

/** What an earlier run recorded, by bill key (by number in a version 1 journal). */
export interface BillLogState {
  header: BillLogHeader
  outcomes: Map<string, BillOutcome>
  batches: number
}

export const IN_FLIGHT_REASON =
  "outcome unknown: bk stopped (killed or crashed) while this bill's batch was in flight; it may or may not have been created"

/** The journal's lock: held by an import for its whole run, and by a settlement. */
export function lockBillLog(file: string): RunLock {
  return acquireRunLock(file, `The import journal ${file}`)
}

export async function readBillLog(file: string): Promise<BillLogState> {
  const {records, damagedLine} = readResumeLogLines(file)
  if (damagedLine !== undefined) {
    throw new InputError(`The import journal ${file} is damaged at line ${damagedLine}`, {
      hint: 'Restore it from a backup if you have one, and check which bills exist before anything else: --restart would send every bill again, those already created included.',
    })
  }
  let header: BillLogHeader | undefined
  const outcomes = new Map<string, BillOutcome>()
  const pending = new Map<number, string[]>()
  let batches = 0
  for (const record of records as BillLogRecord[]) {
    switch (record.t) {
      case 'header':
        header = record
        break
      case 'run':
      case 'end':
        break // mark where each run began and ended; no outcome
      case 'sending':
        batches = Math.max(batches, record.batch)
        pending.set(record.batch, record.keys ?? record.numbers ?? [])
        break
      case 'notsent':
        pending.delete(record.batch)
        break
      case 'settled':
        // Settled when no run was going: batches still without a result were abandoned in flight.
        inFlightUnconfirmed(pending, outcomes)
        for (const [n, id] of record.created) outcomes.set(n, {kind: 'created', id})
        for (const n of record.absent) outcomes.delete(n)
        break
      case 'result':
        pending.delete(record.batch)
        for (const [n, id] of record.created) outcomes.set(n, {kind: 'created', id})
        for (const [n, reason] of record.failed) outcomes.set(n, {kind: 'failed', reason})
        for (const [n, reason] of record.unconfirmed) outcomes.set(n, {kind: 'unconfirmed', reason})
        break
    }
  }
  if (!header || header.format !== 'bk-bills-journal') {
    throw new InputError(`${file} is not a bk import journal`, {
      hint: 'Move it away, or run with --restart to replace it.',
    })
  }
  inFlightUnconfirmed(pending, outcomes)
  return {header, outcomes, batches}
}

/** Bills of batches sent with no result recorded may have been created: unconfirmed. */
function inFlightUnconfirmed(pending: Map<number, string[]>, outcomes: Map<string, BillOutcome>): void {
  for (const numbers of pending.values()) {
    for (const n of numbers) if (!outcomes.has(n)) outcomes.set(n, {kind: 'unconfirmed', reason: IN_FLIGHT_REASON})
  }
  pending.clear()
}

/**
 * An open journal. A record appended while no write is under way is written and fdatasync'd at
 * once (with the others of the same synchronous run); records appended while one is under way
 * wait and are written together after it, in order, with one fdatasync. `append` resolves once
 * its record is durable. The write and the sync go through the thread pool, so that while the
 * disk syncs the event loop reads the answers of the batches in flight and sends those already
 * recorded: on a busy disk an fdatasync takes milliseconds, and done synchronously it held every
 * request back (docs/performance.md, "Bill import").
 */
export class BillLogWriter {
  private queue: Array<{record: BillLogRecord; resolve: () => void; reject: (e: unknown) => void}> = []
  private writing: Promise<void> | undefined
  private failed: unknown

  private constructor(private readonly journal: ResumeLogFile) {}

  static async open(file: string): Promise<BillLogWriter> {
    return new BillLogWriter(ResumeLogFile.open(file))
  }

  append(record: BillLogRecord): Promise<void> {
    if (this.failed) return Promise.reject(this.failed)
    return new Promise((resolve, reject) => {
      this.queue.push({record, resolve, reject})
      // Records of the same synchronous run (a batch's result and the next batch's sending) go together.
      this.writing ??= Promise.resolve().then(() => this.flush())
    })
  }

  /** Writes the queue in groups, one after another, until it is empty. */
  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const group = this.queue
      this.queue = []
      if (this.failed) {
        for (const g of group) g.reject(this.failed)
        continue
      }
      try {
        await this.journal.appendAsync(...group.map((g) => g.record))
        for (const g of group) g.resolve()
      } catch (error) {
        this.failed = error
        for (const g of group) g.reject(error)
      }
    }
    this.writing = undefined
  }

  async close(): Promise<void> {
    await this.writing
    this.journal.close()
  }
}
