/**
 * Opening an import run, before anything is sent: output paths checked, the input opened, the
 * resume log's lock taken and the log read (for --resume) or begun, stale output files removed.
 * Whatever fails here fails with nothing sent and nothing left open.
 */
import {existsSync, statSync, type Stats} from 'node:fs'
import {rm} from 'node:fs/promises'
import {resolve} from 'node:path'

import {InputError} from '../shared/errors.js'
import {removeResumeLog} from '../files/resume-log.js'
import type {RunLock} from '../files/run-lock.js'
import {checkWritable} from '../output/sink.js'
import type {BillDraft} from './assemble.js'
import {DEFAULT_KEY} from './bill-key.js'
import type {ImportOptions} from './import.js'
import {ImportOutputs} from './outputs.js'
import {openCsv, type CsvInput} from './reader.js'
import {BillLogWriter, lockBillLog, readBillLog, type BillLogState} from './resume-log.js'
import {shapeOf} from './scan.js'

/** An import run's open files; `close` closes each once, and returns the first failure. */
export interface OpenRun {
  input: CsvInput
  /** What the resume log recorded before this run (--resume). */
  previous: BillLogState | undefined
  log: BillLogWriter | undefined
  outputs: ImportOutputs
  /** A bill's name in the resume log: its key, or its number in a log of bk 0.1 (version 1). */
  logKey: (bill: BillDraft) => string
  close(): Promise<Error | undefined>
}

/** `held.lock` is the resume log's lock, for the caller to release whatever happens. */
export async function openRun(options: ImportOptions, held: {lock?: RunLock}): Promise<OpenRun> {
  const existing = await checkOutputs(options)
  // Small chunks: answers of batches in flight are handled between them, not after 2,000 rows.
  const input = openCsv(options.file, 16 * 1024, shapeOf(options))
  let opened: {previous: BillLogState | undefined; writer: BillLogWriter | undefined}
  try {
    if (options.journalFile) held.lock = lockBillLog(options.journalFile)
    opened = await prepareResumeLog(options)
  } catch (error) {
    input.close()
    throw error
  }
  const {previous, writer: log} = opened
  // These files always describe the latest run (a resumed run lists earlier outcomes again).
  // Only a plain file is removed: a path that names a device or a pipe is left in place.
  const stale = [options.rejectsFile, options.unconfirmedFile].filter((path) => existing.get(path)?.isFile())
  await Promise.all(stale.map((path) => rm(path, {force: true})))
  // Rows go back out as the file has them (its delimiter; UTF-8, marked with a BOM when the file
  // was not: the reader honours the mark, so the file imports again with the same map).
  const outputs = new ImportOutputs(
    {rejects: options.rejectsFile, unconfirmed: options.unconfirmedFile, results: options.resultsFile},
    {delimiter: options.map?.delimiter ?? ',', bom: (options.map?.encoding ?? 'utf-8') !== 'utf-8'},
  )
  return {
    input,
    previous,
    log,
    outputs,
    logKey: previous?.header.version === 1 ? (b) => b.number : (b) => b.key,
    async close() {
      // Every file is closed even when one fails.
      const closed = await Promise.allSettled([log?.close(), ...outputs.close()])
      return closed.find((c): c is PromiseRejectedResult => c.status === 'rejected')?.reason as Error | undefined
    },
  }
}

/** The input's size and modification time, kept in the journal's header to tell a changed file. */
function inputFingerprint(file: string): {inputSize?: number; inputModified?: string} {
  if (file === '-') return {}
  try {
    const stat = statSync(file)
    return {inputSize: stat.size, inputModified: stat.mtime.toISOString()}
  } catch {
    return {}
  }
}

/** How the input differs from when its journal began, in words; undefined when it does not (or cannot tell). */
function changedSince(file: string, header: BillLogState['header']): string | undefined {
  if (header.inputSize === undefined || header.inputModified === undefined) return undefined
  const now = inputFingerprint(file)
  if (now.inputSize === header.inputSize && now.inputModified === header.inputModified) return undefined
  if (now.inputSize === undefined) return undefined
  return `${header.inputSize} bytes modified ${header.inputModified} then, ${now.inputSize} bytes modified ${now.inputModified} now`
}

/** What to do with the resume log beside the input before sending anything. */
async function prepareResumeLog(
  options: ImportOptions,
): Promise<{previous: BillLogState | undefined; writer: BillLogWriter | undefined}> {
  const file = options.journalFile
  if (!file) return {previous: undefined, writer: undefined}
  let previous: BillLogState | undefined
  if (existsSync(file)) {
    const earlier = options.restart ? undefined : await readBillLog(file)
    if (options.restart || earlier?.batches === 0) {
      // --restart, or a journal of a run that stopped before sending anything (a header error).
      removeResumeLog(file)
    } else if (!options.resume) {
      const state = earlier!
      const created = [...state.outcomes.values()].filter((o) => o.kind === 'created').length
      const changed = changedSince(options.file, state.header)
      throw new InputError(
        `${options.file} was imported before: its journal ${file} (started ${state.header.at}) records ${created} bill${created === 1 ? '' : 's'} created${changed ? `, and the file has changed since (${changed})` : ''}. Refusing to import it again, which could create them twice`,
        {
          code: 'journal_exists',
          hint: changed
            ? `Run again with --resume to send only the bills whose ${(state.header.key ?? DEFAULT_KEY).join(' and ')} the journal does not record (a recorded bill is never sent again, even if its rows changed), or with --restart to discard the journal and send every bill again (bills already created would be created twice). A new file of other bills is best imported under a name of its own.`
            : `Run again with --resume to skip the bills already recorded and send the rest, or with --restart to discard the journal and send every bill again (bills already created would be created twice).`,
        },
      )
    } else {
      previous = earlier!
      if (previous.header.business !== options.businessId) {
        throw new InputError(
          `The journal ${file} is of an import into ${previous.header.business}, not ${options.businessId}`,
          {
            hint: `Resume with --business ${previous.header.business}, or pass --journal to keep a separate journal for this business.`,
          },
        )
      }
      if (previous.header.baseUrl !== options.baseUrl) {
        throw new InputError(
          `The journal ${file} is of an import into ${previous.header.baseUrl}, not ${options.baseUrl}`,
          {hint: 'Resume with the same profile or base URL, or pass --journal to keep a separate journal.'},
        )
      }
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
      ...inputFingerprint(options.file),
      business: options.businessId,
      baseUrl: options.baseUrl,
      at: new Date().toISOString(),
    })
  }
  await writer.append({t: 'run', at: new Date().toISOString(), resume: Boolean(previous)})
  return {previous, writer}
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
    ['--results', options.resultsFile],
    ['--journal', options.journalFile],
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
