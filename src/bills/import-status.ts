/**
 * What a bills import journal holds, for `bk bills import status`: the outcome of every bill it
 * names (from `readBillLog`, the same replay `--resume` uses), and the timeline `readBillLog`
 * does not keep: when each run began, the settlements, and the bills of batches recorded as not
 * sent.
 */
import {existsSync, readdirSync} from 'node:fs'

import {InputError} from '../shared/errors.js'
import {RESUME_LOG_SUFFIX, resumeLogPathFor, readResumeLogLines} from '../files/resume-log.js'
import {lockHolder} from '../files/run-lock.js'
import {readBillLog, type BillLogRecord} from './resume-log.js'

export interface JournalStatus {
  journal: string
  /** The input file as the first run named it. */
  input: string
  business: string
  baseUrl: string
  /** When the first run began. */
  startedAt: string
  runs: Array<{at: string; resume: boolean}>
  batches: number
  /** Bills the journal names: the sum of the four counts below. */
  bills: number
  created: number
  /** Refused by the service (invalid rows never reach the journal: see the rejects file). */
  failed: number
  unconfirmed: number
  /** Bills `--resume` would send: of batches recorded as not sent, or settled as never created. */
  notSent: number
  /**
   * Whether the last run read its input to the end: false when it stopped before (its bills after
   * that point are in no count), null when it recorded no end (killed, still running, or a bk
   * before the `end` record).
   */
  readToEnd: boolean | null
  /** Unconfirmed bills settled by `bk bills unconfirmed --settle`, in all. */
  settled: number
  settlements: Array<{at: string; created: number; absent: number}>
  /** The import or settlement holding the journal's lock now, if any. */
  running: {pid: number} | null
}

/**
 * The journal a command-line argument names: a `.bk-journal` file as it is; another path is the
 * imported file, whose journal is beside it (as `bills import` names it); none: the only journal
 * in the current folder.
 */
export function journalFromArgument(argument: string | undefined, cwd = process.cwd()): string {
  if (argument === '-') {
    throw new InputError('An import from stdin has no journal unless --journal named one', {
      hint: 'Give the path of that journal: bk bills import status FILE.bk-journal',
    })
  }
  if (argument !== undefined) return argument.endsWith(RESUME_LOG_SUFFIX) ? argument : resumeLogPathFor(argument)
  const found = readdirSync(cwd)
    .filter((name) => name.endsWith(RESUME_LOG_SUFFIX))
    .sort()
  if (found.length === 1) return found[0]!
  throw new InputError(
    found.length === 0
      ? `No import journal (*${RESUME_LOG_SUFFIX}) in ${cwd}`
      : `${found.length} import journals in ${cwd} (${found.slice(0, 5).join(', ')}${found.length > 5 ? ', …' : ''}); which one?`,
    {hint: 'Name the journal or the imported file: bk bills import status bills.csv'},
  )
}

export async function journalStatus(journal: string): Promise<JournalStatus> {
  if (!existsSync(journal)) {
    throw new InputError(`No import journal at ${journal}`, {
      code: 'journal_not_found',
      hint: 'Name the imported file (its journal is FILE.bk-journal beside it) or the journal itself.',
    })
  }
  // readBillLog reports a damaged line (file and line) and checks the header.
  const state = await readBillLog(journal)
  const counts = {created: 0, failed: 0, unconfirmed: 0}
  for (const outcome of state.outcomes.values()) counts[outcome.kind]++

  const runs: JournalStatus['runs'] = []
  const settlements: JournalStatus['settlements'] = []
  const notSent = new Set<string>()
  let readToEnd: boolean | null = null
  for (const record of readResumeLogLines(journal).records as BillLogRecord[]) {
    if (record.t === 'run') {
      runs.push({at: record.at, resume: record.resume})
      readToEnd = null
    } else if (record.t === 'end') readToEnd = record.read_to_end
    else if (record.t === 'settled')
      settlements.push({at: record.at, created: record.created.length, absent: record.absent.length})
    else if (record.t === 'sending')
      // A bill the journal names with no outcome now: its batch was not sent, or it was settled
      // as never created. Either way the next --resume sends it.
      for (const key of record.keys ?? record.numbers ?? []) if (!state.outcomes.has(key)) notSent.add(key)
  }
  const holder = lockHolder(journal)
  return {
    journal,
    input: state.header.input,
    business: state.header.business,
    baseUrl: state.header.baseUrl,
    startedAt: state.header.at,
    runs,
    batches: state.batches,
    bills: state.outcomes.size + notSent.size,
    ...counts,
    notSent: notSent.size,
    readToEnd: holder === undefined ? readToEnd : null,
    settled: settlements.reduce((sum, s) => sum + s.created + s.absent, 0),
    settlements,
    running: holder === undefined ? null : {pid: holder},
  }
}
