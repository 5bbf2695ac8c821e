/**
 * Posting validated entries, one POST each, with the journal beside each file: the plan decides
 * what to send (refusing to run over an existing journal without --resume or --restart), then
 * each entry is recorded as `sending` before its POST and as `created` (with its je_ id) or
 * `failed` after. Free of oclif: the command passes the API call and a progress callback.
 */
import {classifyWriteFailure} from '../api/outcome.js'
import type {JournalEntryInput} from '../api/schemas/journal-entry.js'
import {BkError, InputError} from '../shared/errors.js'
import {counted} from '../shared/counts.js'
import {removeResumeLog, resumesHere} from '../files/resume-log.js'
import {fingerprint, EntryLogWriter, readEntryLog, type EntryLogState} from './resume-log.js'
import type {LoadedEntry} from './load.js'

export type JournalMode = 'new' | 'resume' | 'restart'

export interface FileEntries {
  file: string
  /** Where its journal is kept; undefined for stdin without --journal. */
  journalPath: string | undefined
  entries: LoadedEntry[]
}

export interface Outcome {
  file: string
  index: number
  description: string | undefined
  id?: string | undefined
  error?: string | undefined
}

export interface PlannedFile {
  file: string
  journalPath: string | undefined
  toSend: LoadedEntry[]
  /** Already created by an earlier run (with their ids). */
  skipped: Outcome[]
  /** Sent by an earlier run whose outcome never came back: not re-sent. */
  unconfirmed: Outcome[]
  /**
   * Whether its journal is replaced as posting begins (--restart, or failures only of another
   * target): not while planning, since a later file may still refuse the run.
   */
  replacesJournal: boolean
}

export interface PostResult {
  created: Outcome[]
  skipped: Outcome[]
  failed: Outcome[]
  unconfirmed: Outcome[]
  /** Entries left unsent because posting stopped early (stoppedBy or interrupted). */
  notSent: Outcome[]
  /** Set when posting stopped early (connection lost, authentication): the rest was not sent. */
  stoppedBy?: BkError | undefined
  /** Set when `signal` stopped posting: the entry in flight was finished, the rest not sent. */
  interrupted?: boolean
}

/** Decides what to send; throws InputError (nothing sent) when a journal is in the way. */
export function planPosting(
  files: readonly FileEntries[],
  options: {mode: JournalMode; businessId: string; baseUrl: string},
): PlannedFile[] {
  const plans: PlannedFile[] = []
  for (const f of files) {
    const {journalPath} = f
    let state: EntryLogState | undefined
    // --restart forgets the journal, so a damaged one must not stand in its way.
    if (journalPath && options.mode !== 'restart') {
      try {
        state = readEntryLog(journalPath)
      } catch (error) {
        throw new InputError(`Cannot read the journal ${journalPath}: ${(error as Error).message}`, {
          hint: 'Check what was posted, then run again with --restart to start a new journal.',
        })
      }
    }
    const records = [...(state?.entries.values() ?? [])]
    const created = records.filter((r) => r.status === 'created').length
    const unknown = records.filter((r) => r.status === 'sending').length
    // A journal of failures only (nothing created, nothing in doubt) cannot lead to a duplicate.
    if (state && options.mode === 'new' && created + unknown > 0) {
      const doubt = unknown > 0 ? ` and ${unknown} whose outcome is unknown` : ''
      throw new InputError(
        `${f.file} was posted before: its journal ${journalPath} records ${counted(created, 'created entry', 'created entries')}${doubt}`,
        {
          code: 'journal_exists',
          hint: 'Run again with --resume to post only the entries not yet created, or --restart to forget the journal and post every entry again (entries already created would be created twice).',
        },
      )
    }
    const plan: PlannedFile = {
      file: f.file,
      journalPath,
      toSend: [],
      skipped: [],
      unconfirmed: [],
      replacesJournal: options.mode === 'restart',
    }
    if (
      !state ||
      plan.replacesJournal ||
      !keepsEntryLog(journalPath as string, state, options, created + unknown > 0)
    ) {
      plan.replacesJournal ||= state !== undefined
      plan.toSend = [...f.entries]
      plans.push(plan)
      continue
    }
    for (const entry of f.entries) {
      const record = state.entries.get(entry.index)
      const outcome = {file: f.file, index: entry.index, description: entry.description}
      if (record && record.fingerprint !== fingerprint(entry.input) && record.status !== 'failed') {
        throw new InputError(
          `${f.file} changed since it was posted: entry ${entry.index} differs from the one the journal records${record.id ? ` as ${record.id}` : ''}`,
          {
            hint: 'Put new entries in a new file, or check what was posted and run again with --restart.',
          },
        )
      }
      if (record?.status === 'created') plan.skipped.push({...outcome, id: record.id})
      else if (record?.status === 'sending')
        plan.unconfirmed.push({
          ...outcome,
          error: 'sent by an earlier run whose answer never came back; not sent again',
        })
      else plan.toSend.push(entry)
    }
    plans.push(plan)
  }
  return plans
}

/**
 * A journal's created entries exist where it was begun: resumed against another business or base
 * URL, it would skip entries never posted there. A journal of an older bk does not record its
 * base URL: it is refused too, and the hint gives the line to add if it was begun here. A journal
 * that `binds` nothing (failures only) begun elsewhere is not kept: false, start anew.
 */
function keepsEntryLog(
  file: string,
  state: EntryLogState,
  options: {businessId: string; baseUrl: string},
  binds: boolean,
): boolean {
  const baseUrl = state.header.base_url
  if (baseUrl === undefined && state.header.business_id === options.businessId) {
    throw new InputError(
      `The journal ${file} was begun by an older bk and does not record the base URL its entries were posted to: resuming it against ${options.baseUrl} would skip every entry it records as created, whether or not it exists there`,
      {
        code: 'journal_without_base_url',
        hint: `If its entries were posted to ${options.baseUrl}, add "base_url":"${options.baseUrl}" to its first line and run again; otherwise pass --journal to keep a separate journal for this base URL.`,
      },
    )
  }
  return resumesHere(
    file,
    {business: state.header.business_id, baseUrl: baseUrl ?? options.baseUrl},
    {business: options.businessId, baseUrl: options.baseUrl},
    'entries posted to',
    binds,
  )
}

export interface PostOptions {
  businessId: string
  baseUrl: string
  mode: JournalMode
  create: (input: JournalEntryInput) => Promise<{id: string}>
  onOutcome?: (kind: 'created' | 'failed', outcome: Outcome) => void
  /**
   * Stops between entries (Ctrl-C): the entry in flight is not abandoned but finishes and is
   * recorded, so that a --resume knows it created rather than unconfirmed.
   */
  signal?: AbortSignal | undefined
}

export async function postPlanned(plans: readonly PlannedFile[], options: PostOptions): Promise<PostResult> {
  const result: PostResult = {
    created: [],
    skipped: plans.flatMap((p) => p.skipped),
    failed: [],
    unconfirmed: plans.flatMap((p) => p.unconfirmed),
    notSent: [],
  }
  // What is left of each plan once posting stops early.
  const stopAt = (planIndex: number, entryIndex: number): PostResult => {
    for (const [i, plan] of plans.entries()) {
      if (i < planIndex) continue
      for (const entry of plan.toSend.slice(i === planIndex ? entryIndex : 0))
        result.notSent.push({file: plan.file, index: entry.index, description: entry.description})
    }
    return result
  }
  for (const [planIndex, plan] of plans.entries()) {
    if (options.signal?.aborted) {
      result.interrupted = true
      return stopAt(planIndex, 0)
    }
    if (plan.journalPath && plan.replacesJournal) removeResumeLog(plan.journalPath)
    if (plan.toSend.length === 0) continue
    const journal = plan.journalPath
      ? EntryLogWriter.open(plan.journalPath, {business: options.businessId, baseUrl: options.baseUrl})
      : undefined
    try {
      for (const [entryIndex, entry] of plan.toSend.entries()) {
        if (options.signal?.aborted) {
          result.interrupted = true
          return stopAt(planIndex, entryIndex)
        }
        const fp = fingerprint(entry.input)
        const outcome: Outcome = {file: plan.file, index: entry.index, description: entry.description}
        journal?.record({index: entry.index, fingerprint: fp, status: 'sending'})
        try {
          const created = await options.create(entry.input)
          journal?.record({index: entry.index, fingerprint: fp, status: 'created', id: created.id})
          outcome.id = created.id
          result.created.push(outcome)
          options.onOutcome?.('created', outcome)
        } catch (error) {
          const message = (error as Error).message
          const classified = classifyWriteFailure(error)
          if (classified.kind === 'unknown') {
            // The service may have created it (a 5xx, a lost answer): left as `sending` in the
            // journal, so that no later run sends it again.
            outcome.error = `${message} (the entry may or may not have been created)`
            result.unconfirmed.push(outcome)
          } else {
            // The service answered without acting, or never got the request: nothing was created.
            journal?.record({index: entry.index, fingerprint: fp, status: 'failed', error: message})
            outcome.error = message
            result.failed.push(outcome)
            options.onOutcome?.('failed', outcome)
            if (classified.kind === 'refused') continue
          }
          result.stoppedBy = error instanceof BkError ? error : new BkError(message, {cause: error})
          return stopAt(planIndex, entryIndex + 1)
        }
      }
    } finally {
      journal?.close()
    }
  }
  return result
}
