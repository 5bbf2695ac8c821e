/**
 * Opening an import run, before anything is sent: output paths checked, the input opened, the
 * resume log's lock taken and the log read (for --resume) or begun, stale output files removed.
 * Whatever fails here fails with nothing sent and nothing left open.
 */
import {existsSync, mkdirSync, statSync, type Stats} from 'node:fs'
import {hostname} from 'node:os'
import {rm} from 'node:fs/promises'
import {resolve} from 'node:path'

import {InputError} from '../shared/errors.js'
import {removeResumeLog, resumesHere} from '../files/resume-log.js'
import {lockOwner, waitForRunLock, type LockOwner, type RunLock} from '../files/run-lock.js'
import {checkWritable} from '../output/sink.js'
import type {BillDraft} from './assemble.js'
import {DEFAULT_KEY} from './bill-key.js'
import {createdRecordPath, normaliseBaseUrl, openCreatedRecord, type CreatedRecord} from './created-record.js'
import type {ImportOptions} from './import.js'
import {inputName} from './input-name.js'
import {ImportOutputs, linesSidePath} from './outputs.js'
import type {CsvInput} from './reader.js'
import {BillLogWriter, lockBillLog, readBillLog, type BillLogHeader, type BillLogState} from './resume-log.js'
import {shapeOf} from './scan.js'
import {openInput} from './structured-input.js'
import {counted} from '../shared/counts.js'

/** An import run's open files; `close` closes each once, and returns the first failure. */
export interface OpenRun {
  input: CsvInput
  /** What the resume log recorded before this run (--resume). */
  previous: BillLogState | undefined
  log: BillLogWriter | undefined
  /** The record of created bills of the business, read after its lock was taken. */
  record: CreatedRecord
  /** When the run began (its journal's start, for a resume): names it in the record. */
  started: string
  outputs: ImportOutputs
  /** A bill's name in the resume log: its key, or its number in a log of bk 0.1 (version 1). */
  logKey: (bill: BillDraft) => string
  close(): Promise<Error | undefined>
}

/** What a run holds, for the caller to release whatever happens: its locks and the record. */
export interface Held {
  locks: RunLock[]
  record?: CreatedRecord
}

/** How long a run waits for another import into its business, unless --wait says. */
export const DEFAULT_WAIT_MS = 5 * 60_000

export async function openRun(options: ImportOptions, held: Held): Promise<OpenRun> {
  const existing = await checkOutputs(options)
  // Small chunks: answers of batches in flight are handled between them, not after 2,000 rows.
  const input = await openInput(options.file, {chunkBytes: 16 * 1024}, options.map, shapeOf(options))
  let opened: {previous: BillLogState | undefined; writer: BillLogWriter | undefined; started: string}
  let started: string
  try {
    // The resume log's lock first, refused at once: one file is never imported twice at a time.
    if (options.journalFile) held.locks.push(lockBillLog(options.journalFile))
    held.locks.push(await lockBusiness(options))
    held.record = await openRecord(options)
    opened = await prepareResumeLog(options)
    if (opened.previous) await recordResumed(opened.previous, held.record)
    started = opened.previous?.header.at ?? opened.started
  } catch (error) {
    input.close()
    throw error
  }
  const {previous, writer: log} = opened
  const record = held.record
  // These files always describe the latest run (a resumed run lists earlier outcomes again).
  // Only a plain file is removed: a path that names a device or a pipe is left in place.
  const stale = [options.rejectsFile, options.unconfirmedFile, options.unsentFile, ...linesSideFiles(options)].filter(
    (path): path is string => path !== undefined && existing.get(path)?.isFile() === true,
  )
  await Promise.all(stale.map((path) => rm(path, {force: true})))
  // Rows go back out as the file has them (its delimiter; UTF-8, marked with a BOM when the file
  // was not: the reader honours the mark, so the file imports again with the same map).
  const outputs = new ImportOutputs(
    {
      rejects: options.rejectsFile,
      unconfirmed: options.unconfirmedFile,
      unsent: options.unsentFile,
      results: options.resultsFile,
    },
    {delimiter: options.map?.delimiter ?? ',', bom: (options.map?.encoding ?? 'utf-8') !== 'utf-8'},
    options.observe,
  )
  return {
    input,
    previous,
    log,
    record,
    started,
    outputs,
    logKey: previous?.header.version === 1 ? (b) => b.number : (b) => b.key,
    async close() {
      // Every file is closed even when one fails.
      const closed = await Promise.allSettled([log?.close(), ...outputs.close()])
      return closed.find((c): c is PromiseRejectedResult => c.status === 'rejected')?.reason as Error | undefined
    },
  }
}

/**
 * One import per environment and business at a time: the record is consulted bill by bill, and a
 * second run must not send a bill the first is sending. Waits (up to --wait) for a run under way.
 */
async function lockBusiness(options: ImportOptions): Promise<RunLock> {
  const waitMs = options.waitMs ?? DEFAULT_WAIT_MS
  const where = `${options.businessId} at ${normaliseBaseUrl(options.baseUrl)}`
  const lockFile = createdRecordPath(options.recordFolder, options.baseUrl, options.businessId).replace(
    /\.jsonl$/,
    '.import',
  )
  mkdirSync(options.recordFolder, {recursive: true, mode: 0o700})
  try {
    return await waitForRunLock(lockFile, `Imports into ${where}`, {
      waitMs,
      doing: `the import of ${inputName(options.file)}`,
      onWait: (owner) =>
        options.warn?.(
          `Waiting for ${describeOwner(owner)} into ${where} to finish (up to ${Math.round(waitMs / 1000)} s, --wait).`,
        ),
    })
  } catch (error) {
    const owner = lockOwner(lockFile)
    if (!(error instanceof InputError && error.code === 'run_in_progress') || !owner) throw error
    throw new InputError(
      `Another import into ${where} is running: ${describeOwner(owner)}; waited ${Math.round(waitMs / 1000)} s`,
      {
        code: 'run_in_progress',
        hint: 'Run again once it has finished, or wait longer with --wait SECONDS. Two imports into one business at once could create a bill twice.',
        details: {lock: `${lockFile}.lock`, owner},
      },
    )
  }
}

function describeOwner(owner: LockOwner): string {
  const host = owner.host && owner.host !== hostname() ? ` on ${owner.host}` : ''
  return `${owner.doing ?? 'another import'} (bk process ${owner.pid}${host}${owner.at ? `, started ${owner.at}` : ''})`
}

async function openRecord(options: ImportOptions): Promise<CreatedRecord> {
  const record = await openCreatedRecord({
    folder: options.recordFolder,
    baseUrl: options.baseUrl,
    businessId: options.businessId,
    input: options.file,
  })
  for (const line of record.damaged.slice(0, 5))
    options.warn?.(
      `The record of created bills ${record.file} is damaged at line ${line}: passed over (that bill is not known to this run).`,
    )
  return record
}

/** Bills the resume log records as created, which the record lacks (a crash between the two writes). */
async function recordResumed(previous: BillLogState, record: CreatedRecord): Promise<void> {
  // A log of bk 0.1 names bills by number alone, not by key: nothing to give the record.
  if (previous.header.version === 1) return
  const missing: Array<{key: string; id: string}> = []
  const unconfirmed: Array<{key: string; run: string}> = []
  for (const [key, outcome] of previous.outcomes) {
    if (outcome.kind === 'created' && record.lookup(key)?.id === undefined) missing.push({key, id: outcome.id})
    if (outcome.kind === 'unconfirmed') unconfirmed.push({key, run: previous.header.at})
  }
  await record.add(missing)
  await record.addUnconfirmed(unconfirmed)
}

/** A file's size and modification time, kept in the journal's header to tell a changed file. */
function stampOf(file: string): {size: number; modified: string} | undefined {
  if (file === '-') return undefined
  try {
    const stat = statSync(file)
    return {size: stat.size, modified: stat.mtime.toISOString()}
  } catch {
    return undefined
  }
}

/** The journal header's stamps of the bills file and of its lines file (with `lines_file:`). */
function inputStamps(options: ImportOptions): Pick<BillLogHeader, 'inputSize' | 'inputModified' | 'lines'> {
  const input = stampOf(options.file)
  const linesFile = options.map?.linesFile?.path
  const lines = linesFile === undefined ? undefined : stampOf(linesFile)
  return {
    ...(input && {inputSize: input.size, inputModified: input.modified}),
    ...(lines && {lines: {file: linesFile!, ...lines}}),
  }
}

/**
 * Which of the import's files (the bills file, its lines file) differ from when the journal began
 * and how, as a clause: `bills.csv has changed since its journal began (…)`; undefined when none
 * does (or it cannot tell).
 */
function changedSince(options: ImportOptions, header: BillLogHeader): string | undefined {
  // The lines file this run reads, which a resume may name by another path than the first run.
  const lines = header.lines && {...header.lines, file: options.map?.linesFile?.path ?? header.lines.file}
  const then = [
    {file: options.file, size: header.inputSize, modified: header.inputModified, named: options.file},
    ...(lines ? [{...lines, named: `the lines file ${lines.file}`}] : []),
  ]
  const changed = then.flatMap(({file, size, modified, named}) => {
    const now = size === undefined || modified === undefined ? undefined : stampOf(file)
    if (!now || (now.size === size && now.modified === modified)) return []
    return [{named, how: `${size} bytes modified ${modified} then, ${now.size} bytes modified ${now.modified} now`}]
  })
  if (changed.length === 0) return undefined
  const how = changed.length === 1 ? changed[0]!.how : changed.map((c) => `${c.named}: ${c.how}`).join('; ')
  const what = changed.map((c) => c.named).join(' and ')
  return `${what} ${changed.length === 1 ? 'has' : 'have'} changed since its journal began (${how})`
}

/**
 * A resume resumes what was started: under another bill key every bill would be a stranger to the
 * log and be sent again. A changed input is resumed (only keys the log lacks are sent), said once.
 */
function checkResumable(options: ImportOptions, previous: BillLogState, file: string): void {
  const key = [...(options.map?.key ?? DEFAULT_KEY)]
  // A log of bk 0.1 (version 1) names bills by number, whatever the map's key.
  const logged = previous.header.version === 1 ? undefined : (previous.header.key ?? [...DEFAULT_KEY])
  if (logged && logged.join(',') !== key.join(',')) {
    throw new InputError(
      `The journal ${file} names bills by ${logged.join(' and ')}, and this run's map by ${key.join(' and ')}: resuming would send every bill again`,
      {
        code: 'journal_key_differs',
        hint: `Resume with the map the import began with (bill key ${logged.join(', ')}), or import under another --journal.`,
      },
    )
  }
  const changed = changedSince(options, previous.header)
  if (changed) options.warn?.(`${changed}: only bills whose ${key.join(' and ')} the journal does not record are sent.`)
}

/** What to do with the resume log beside the input before sending anything. */
async function prepareResumeLog(
  options: ImportOptions,
): Promise<{previous: BillLogState | undefined; writer: BillLogWriter | undefined; started: string}> {
  const started = new Date().toISOString()
  const file = options.journalFile
  if (!file) return {previous: undefined, writer: undefined, started}
  let previous: BillLogState | undefined
  if (existsSync(file)) {
    const earlier = options.restart ? undefined : await readBillLog(file)
    if (options.restart || earlier?.batches === 0) {
      // --restart, or a journal of a run that stopped before sending anything (a header error).
      removeResumeLog(file)
    } else if (!options.resume) {
      const state = earlier!
      const outcomes = [...state.outcomes.values()]
      const created = outcomes.filter((o) => o.kind === 'created').length
      // Unconfirmed bills (a crash, an abandoned batch) may exist too: sent again, they could be twice.
      const unconfirmed = outcomes.filter((o) => o.kind === 'unconfirmed').length
      const records = `${counted(created, 'bill')} created${unconfirmed > 0 ? ` and ${unconfirmed} unconfirmed` : ''}`
      const changed = changedSince(options, state.header)
      throw new InputError(
        `${options.file} was imported before: its journal ${file} (started ${state.header.at}) records ${records}${changed ? `, and ${changed}` : ''}. Refusing to import it again, which could create them twice`,
        {
          code: 'journal_exists',
          hint: changed
            ? `Run again with --resume to send only the bills whose ${(state.header.key ?? DEFAULT_KEY).join(' and ')} the journal does not record (a recorded bill is never sent again, even if its rows changed), or with --restart to discard the journal and send every bill again but those the record of created bills holds (any other it records as created would be created twice). A new file of other bills is best imported under a name of its own.`
            : `Run again with --resume to skip the bills already recorded and send the rest, or with --restart to discard the journal and send every bill again but those the record of created bills holds (any other it records as created would be created twice).`,
        },
      )
    } else {
      const state = earlier!
      // Only created and unconfirmed bills may exist where the journal was begun.
      const binds = [...state.outcomes.values()].some((o) => o.kind !== 'failed')
      const target = {business: state.header.business, baseUrl: state.header.baseUrl}
      const current = {business: options.businessId, baseUrl: options.baseUrl}
      if (resumesHere(file, target, current, 'an import into', binds)) {
        previous = state
        checkResumable(options, previous, file)
        // Failures only, of another business or base URL: a new journal of this one takes its place.
      } else removeResumeLog(file)
    }
  }
  const writer = await BillLogWriter.open(file)
  if (!previous) {
    await writer.append({
      t: 'header',
      format: 'bk-bills-journal',
      version: 2,
      key: [...(options.map?.key ?? DEFAULT_KEY)],
      input: options.file,
      ...inputStamps(options),
      business: options.businessId,
      baseUrl: options.baseUrl,
      at: started,
    })
  }
  await writer.append({t: 'run', at: new Date().toISOString(), resume: Boolean(previous)})
  return {previous, writer, started}
}
/** With a lines file: the side files of its rows, each beside the bills file's (outputs.ts). */
function linesSideFiles(options: ImportOptions): string[] {
  if (!options.map?.linesFile?.path) return []
  return [options.rejectsFile, options.unconfirmedFile, options.unsentFile].flatMap((path) =>
    path ? [linesSidePath(path)] : [],
  )
}

/**
 * Output paths that collide (with the input or each other), and files that cannot be written, are
 * refused before anything is sent: a failure to record must not surface after bills were created.
 * Returns what exists at each path now.
 */
async function checkOutputs(options: ImportOptions): Promise<Map<string, Stats | undefined>> {
  const outputs = [
    ['--rejects', options.rejectsFile],
    ['--unconfirmed', options.unconfirmedFile],
    ['the unsent file', options.unsentFile],
    ['--results', options.resultsFile],
    ['--journal', options.journalFile],
    ...linesSideFiles(options).map((path) => ["the lines file's side file", path] as const),
  ] as const
  for (const [flag, path] of outputs) {
    if (path && options.file !== '-' && resolve(path) === resolve(options.file))
      throw new InputError(`${flag} ${path} is the input file itself`, {hint: `Give ${flag} another file name.`})
    for (const [other, otherPath] of outputs) {
      if (other !== flag && path && otherPath && resolve(path) === resolve(otherPath))
        throw new InputError(`${flag} and ${other} are the same file (${path})`)
    }
  }
  const existing = new Map<string, Stats | undefined>()
  for (const [flag, path] of outputs) if (path) existing.set(path, await checkWritable(flag, path))
  return existing
}
