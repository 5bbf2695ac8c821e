/**
 * The bill import pipeline, free of oclif: read the CSV as a stream, assemble and check bills,
 * and either list every problem (dry run) or send the valid bills in batches with bounded
 * concurrency, recording each batch in the journal before and after it is sent.
 *
 * Nothing lost, nothing twice:
 * - a bill is journaled as "sending" (durably) before its request leaves, and its outcome after;
 * - a bill whose outcome cannot be known (connection dropped after sending, 5xx other than 503,
 *   timeout, unreadable answer, bk killed mid-flight) is "unconfirmed": never sent again by bk;
 * - only a batch the service certainly did not act on (429, 503, connection never opened) is sent
 *   again, by the client's retries and then by a few rounds here;
 * - --resume skips every bill the journal has an outcome for.
 */
import {setTimeout as sleep} from 'node:timers/promises'
import {existsSync, type Stats} from 'node:fs'
import {rm} from 'node:fs/promises'
import {resolve} from 'node:path'

import {classifyWriteFailure} from '../api/outcome.js'
import type {BillInput, CreateBillsResponse} from '../api/schemas/bill.js'
import {BkError, ExitCode, InputError} from '../errors.js'
import {removeJournal} from '../journal-file.js'
import {checkWritable} from '../output/sink.js'
import type {RunLock} from '../run-lock.js'
import {BillAssembler, formatRowError, type BillDraft, type RowError} from './assemble.js'
import {DEFAULT_KEY} from './bill-key.js'
import {layoutFor} from './columns.js'
import {heapGuard} from './heap-guard.js'
import {JournalWriter, lockJournal, readJournal, type BillOutcome, type JournalState} from './journal.js'
import {ResultsFile, RowFile} from './outputs.js'
import type {Lookups} from './lookups.js'
import type {BillMap} from './map-file.js'
import {csvErrorMessage, openCsv, type CsvInput} from './reader.js'
import {ExportTranslator} from './translate.js'

export interface ImportProgress {
  rows: number
  bills: number
  created: number
  bytes: number
  size: number | undefined
  elapsedMs: number
}

export interface ScanOptions {
  file: string
  /** How to read an accounting package's export; undefined for bk's own format. */
  map?: BillMap | undefined
  lookups?: Lookups | undefined
  /** The business of the import, checked against a business_id column. */
  businessId?: string | undefined
  onProgress?: ((p: ImportProgress) => void) | undefined
}

export interface DryRunOptions extends ScanOptions {
  maxErrors: number
  /** --show N: keep the first N valid bills as they would be sent. */
  show?: number | undefined
}

export interface DryRunResult {
  file: string
  rows: number
  bills: number
  valid: number
  invalid: number
  /** Credit notes the map skips (`credits: skip`): not sent, not a fault of the file. */
  skipped: number
  errorCount: number
  /** The first `maxErrors` errors, in file order. */
  errors: Array<RowError & {text: string}>
  /** --show N: the first N valid bills, exactly as they would be sent. */
  shown?: BillInput[] | undefined
  /** Each lookup's missing values, once each, so the user can complete the files in one pass. */
  missingLookups?: Array<{field: string; file: string; values: string[]}> | undefined
  durationMs: number
}

export interface ImportOptions extends ScanOptions {
  businessId: string
  baseUrl: string
  batchSize: number
  concurrency: number
  maxErrors: number
  rejectsFile: string
  unconfirmedFile: string
  resultsFile?: string | undefined
  /** Undefined: no journal (stdin without --journal). */
  journalFile?: string | undefined
  resume: boolean
  restart: boolean
  /** Sends one batch (api.bills.create). */
  send: (bills: BillInput[], signal: AbortSignal) => Promise<CreateBillsResponse>
  /** Aborted on the first Ctrl-C: stop reading, let batches in flight finish. */
  stop?: AbortSignal | undefined
  /** Aborted on the second Ctrl-C: abandon batches in flight (they become unconfirmed). */
  abort?: AbortSignal | undefined
  /** A line for people (invalid bills as they are found, notes); stderr. */
  warn?: ((line: string) => void) | undefined
  /** Rounds of re-sending a batch the service certainly did not act on, after the client's retries. */
  resendRounds?: number
  resendDelayMs?: number
  /** Called when a batch the service did not act on (429, 503, no connection) waits to be sent again. */
  onResendWait?: (delayMs: number) => void
  /** --skip-existing: the id of a bill an earlier import created, which is then not sent. */
  skipExisting?: ((bill: BillDraft) => string | undefined) | undefined
  /** Bills created, once the journal holds them (for the record --skip-existing reads). */
  onCreated?: ((created: Array<{bill: BillDraft; id: string}>) => Promise<void>) | undefined
}

export interface ImportSummary {
  file: string
  businessId: string
  rows: number
  bills: number
  /** Created in this run. */
  created: number
  /** Invalid here, or refused by the service: in the rejects file. */
  failed: number
  invalid: number
  /** Outcome unknown (now or in an earlier run): in the unconfirmed file, never re-sent by bk. */
  unconfirmed: number
  /** Created by an earlier run: of this file (from the journal), or of any file (--skip-existing). */
  skipped: number
  /** Of `skipped`, those found by --skip-existing in the record of created bills. */
  existing: number
  /** Read but not sent because the run stopped early; a --resume run sends them. */
  notSent: number
  rejectsFile: string | null
  unconfirmedFile: string | null
  resultsFile: string | null
  journalFile: string | null
  interrupted: boolean
  durationMs: number
}

export interface ImportOutcome {
  summary: ImportSummary
  /** Why the run stopped early, if it did for a reason other than Ctrl-C. */
  fatal?: BkError | undefined
}

/**
 * A row with a cell holding U+FFFD, the character reading puts in place of bytes that are not
 * UTF-8: the file was saved in another encoding (Windows-1252 by Excel's plain "CSV"), and
 * importing it would send mangled text.
 */
function notUtf8(record: string[], header: string[], line: number): RowError | undefined {
  for (let i = 0; i < record.length; i++) {
    const cell = record[i]!
    if (cell.includes('\uFFFD')) {
      return {
        line,
        column: header[i]?.trim(),
        value: cell,
        message:
          'holds bytes that are not UTF-8 (shown as \uFFFD): the file is in another encoding. Pass --encoding windows-1252 (or latin1) if that is how it was written, or save it as UTF-8 ("CSV UTF-8" in Excel)',
      }
    }
  }
  return undefined
}

/** Reads the file once; calls onBill for each complete bill. Returns the row count. */
async function scan(
  input: CsvInput,
  options: ScanOptions,
  onBill: (bill: BillDraft) => void | Promise<void>,
  shouldStop: () => boolean,
  onHeader?: (header: string[] | undefined) => void,
): Promise<{rows: number; header: string[]; fatal?: RowError; missing?: Map<string, Set<string>>}> {
  const map = options.map
  let assembler: BillAssembler | undefined
  let translator: ExportTranslator | undefined
  let header: string[] = []
  let rows = 0
  try {
    for await (const record of input.parser as AsyncIterable<string[]>) {
      const line = input.advance(record)
      if (record.length === 1 && record[0] === '') continue
      if (!assembler) {
        const named = map?.header !== false
        header = named ? record : record.map((_, i) => `column ${i + 1}`)
        if (map) {
          translator = new ExportTranslator(
            named ? record : undefined,
            record.length,
            map,
            options.lookups ?? new Map(),
            input.label,
          )
        }
        const layout = translator ? translator.layout : layoutFor(record, input.label)
        assembler = new BillAssembler(layout, {
          businessId: options.businessId,
          key: map?.key,
          negativeTotalCredit: map?.credit?.negativeTotal ? {skip: map.credits === 'skip'} : undefined,
        })
        onHeader?.(named ? record : undefined)
        if (named) continue
      }
      rows++
      const extra: RowError | undefined =
        record.length === header.length
          ? notUtf8(record, header, line)
          : {
              line,
              message: `has ${record.length} column${record.length === 1 ? '' : 's'}, but ${map?.header === false ? 'the first row' : 'the header (line 1)'} has ${header.length}: check for an unquoted ${map?.delimiter === ';' ? 'semicolon' : 'comma'}, or a missing or extra separator`,
            }
      let done: BillDraft | undefined
      if (translator) {
        const t = translator.translate(record, line)
        done = assembler.push(t.row, extra, t.errors)
      } else done = assembler.push({line, cells: record}, extra)
      if (done) {
        const r = onBill(done)
        if (r) await r
        if (shouldStop()) return {rows, header}
      }
    }
  } catch (error) {
    if (error instanceof BkError) throw error
    const e = error as Error & {code?: string}
    if (!e.code?.startsWith('CSV_')) throw error
    return {rows, header, fatal: {line: input.nextLine, message: csvErrorMessage(e, input.nextLine)}}
  } finally {
    input.close()
  }
  if (!assembler) throw new InputError(`${input.label} is empty: expected a header row and at least one bill`)
  const last = assembler.finish()
  if (last) {
    const r = onBill(last)
    if (r) await r
  }
  return {rows, header, ...(translator ? {missing: translator.missing} : {})}
}

/** Only a skipped credit note keeps this bill back: it is set aside, not a fault of the file. */
export function onlySkipped(bill: BillDraft): boolean {
  return bill.errors.length > 0 && bill.errors.every((e) => e.skip)
}

/** The CSV shape to open the input with. */
function shapeOf(options: ScanOptions) {
  return options.map ? {delimiter: options.map.delimiter, encoding: options.map.encoding} : {}
}

function progressTimer(
  input: CsvInput,
  options: ScanOptions,
  counts: () => {rows: number; bills: number; created: number},
): () => void {
  if (!options.onProgress) return () => {}
  const started = performance.now()
  const tick = () =>
    options.onProgress?.({
      ...counts(),
      bytes: input.bytesRead(),
      size: input.size,
      elapsedMs: performance.now() - started,
    })
  const timer = setInterval(tick, 200)
  timer.unref()
  return () => {
    clearInterval(timer)
    tick()
  }
}

/** --dry-run: the whole file checked offline; nothing is sent. */
export async function dryRun(options: DryRunOptions): Promise<DryRunResult> {
  const started = performance.now()
  const input = openCsv(options.file, undefined, shapeOf(options))
  const errors: DryRunResult['errors'] = []
  let bills = 0
  let invalid = 0
  let skipped = 0
  const shown: BillInput[] | undefined = options.show ? [] : undefined
  let errorCount = 0
  let rows = 0
  const stopProgress = progressTimer(input, options, () => ({rows, bills, created: 0}))
  const record = (e: RowError) => {
    errorCount++
    if (errors.length < options.maxErrors) errors.push({...e, text: formatRowError(input.label, e)})
  }
  const result = await scan(
    input,
    options,
    (bill) => {
      bills++
      rows += bill.rows.length
      if (onlySkipped(bill)) skipped++
      else if (bill.errors.length > 0) {
        invalid++
        for (const e of bill.errors) if (!e.skip) record(e)
      } else if (shown && shown.length < options.show!) shown.push(bill.input)
    },
    () => false,
  )
  if (result.fatal) record(result.fatal)
  stopProgress()
  errors.sort((a, b) => a.line - b.line)
  return {
    file: input.label,
    rows: result.rows,
    bills,
    valid: bills - invalid - skipped,
    invalid,
    skipped,
    errorCount,
    errors,
    ...(shown ? {shown} : {}),
    ...(result.missing?.size
      ? {
          missingLookups: [...result.missing].map(([field, values]) => ({
            field,
            file: options.lookups?.get(field)?.file ?? '',
            values: [...values],
          })),
        }
      : {}),
    durationMs: Math.round(performance.now() - started),
  }
}

/**
 * The error for a file that cannot be read past a row. Exit 2 says "nothing was sent" only when
 * that is true; once bills were sent, the hint must not lead to sending them again.
 */
function stoppedAtRow(
  message: string,
  line: number,
  sent: number,
  journaled: boolean,
  summary: ImportSummary,
): BkError {
  if (sent === 0) {
    return new InputError(`${message}; nothing was sent`, {
      hint: journaled
        ? 'Fix the file, then run the same command with --resume: bills already created are skipped.'
        : 'Fix the file and run the import again.',
      details: {summary},
    })
  }
  const what = `${message}; ${sent} bill${sent === 1 ? ' before it was' : 's before it were'} sent (${summary.created} created, ${summary.unconfirmed} unconfirmed)`
  return new BkError(what, {
    code: 'stopped_at_row',
    exitCode: ExitCode.partial,
    hint: journaled
      ? 'Fix the file, then run the same command with --resume: bills already sent are never sent again.'
      : `No journal was kept (stdin without --journal): do not import the same rows again. Fix the file and import only the rows from line ${line} on; next time pass --journal FILE.`,
    details: {summary},
  })
}

/** What to do with the journal beside the input before sending anything. */
async function prepareJournal(
  options: ImportOptions,
): Promise<{previous: JournalState | undefined; writer: JournalWriter | undefined}> {
  const file = options.journalFile
  if (!file) return {previous: undefined, writer: undefined}
  let previous: JournalState | undefined
  if (existsSync(file)) {
    const earlier = options.restart ? undefined : await readJournal(file)
    if (options.restart || earlier?.batches === 0) {
      // --restart, or a journal of a run that stopped before sending anything (a header error).
      removeJournal(file)
    } else if (!options.resume) {
      const state = earlier!
      const created = [...state.outcomes.values()].filter((o) => o.kind === 'created').length
      throw new InputError(
        `${options.file} was imported before: its journal ${file} (started ${state.header.at}) records ${created} bill${created === 1 ? '' : 's'} created. Refusing to import it again, which could create them twice`,
        {
          code: 'journal_exists',
          hint: `Run again with --resume to skip the bills already recorded and send the rest, or with --restart to discard the journal and send every bill again (bills already created would be created twice).`,
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
  const writer = await JournalWriter.open(file)
  if (!previous) {
    await writer.append({
      t: 'header',
      format: 'bk-bills-journal',
      version: 2,
      key: [...(options.map?.key ?? DEFAULT_KEY)],
      input: options.file,
      business: options.businessId,
      baseUrl: options.baseUrl,
      at: new Date().toISOString(),
    })
  }
  await writer.append({t: 'run', at: new Date().toISOString(), resume: Boolean(previous)})
  return {previous, writer}
}

/** What became of one batch, as far as bk can know. */
type BatchResult =
  | {kind: 'answered'; response: CreateBillsResponse}
  | {kind: 'refused'; reason: string}
  | {kind: 'unknown'; reason: string}
  /** `retry`: the service may accept it a moment later (429, 503, no connection), unlike a 401/403/404. */
  | {kind: 'not-sent'; error: BkError; retry: boolean}

function classify(error: unknown, aborted: boolean): BatchResult {
  if (aborted)
    return {
      kind: 'unknown',
      reason: 'outcome unknown: the import was aborted (second Ctrl-C) while this batch was in flight',
    }
  const outcome = classifyWriteFailure(error)
  switch (outcome.kind) {
    case 'not-acted':
      return {kind: 'not-sent', error: outcome.error, retry: outcome.retry}
    case 'refused':
      return {kind: 'refused', reason: outcome.error.message}
    case 'unknown':
      return outcome
  }
}

export async function importBills(options: ImportOptions): Promise<ImportOutcome> {
  // The journal's lock is held for the whole run, so that two runs of one file cannot both send.
  const held: {lock?: RunLock} = {}
  try {
    return await runImport(options, held)
  } finally {
    held.lock?.release()
  }
}

async function runImport(options: ImportOptions, held: {lock?: RunLock}): Promise<ImportOutcome> {
  const started = performance.now()
  const warn = options.warn ?? (() => {})
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
  // Checked now: a file that cannot be written must not surface after bills were created.
  const existing = new Map<string | undefined, Stats | undefined>()
  for (const [flag, path] of outputs) if (path) existing.set(path, await checkWritable(flag, path))
  // Small chunks: answers of batches in flight are handled between them, not after 2,000 rows.
  const input = openCsv(options.file, 16 * 1024, shapeOf(options))
  const {previous, writer: journal} = await Promise.resolve()
    .then(() => {
      if (options.journalFile) held.lock = lockJournal(options.journalFile)
      return prepareJournal(options)
    })
    .catch((error: unknown) => {
      input.close()
      throw error
    })
  // These files always describe the latest run (a resumed run lists earlier outcomes again).
  // Only a plain file is removed: a path that names a device or a pipe is left in place.
  const stale = [options.rejectsFile, options.unconfirmedFile].filter((path) => existing.get(path)?.isFile())
  await Promise.all(stale.map((path) => rm(path, {force: true})))
  const summary: ImportSummary = {
    file: input.label,
    businessId: options.businessId,
    rows: 0,
    bills: 0,
    created: 0,
    failed: 0,
    invalid: 0,
    unconfirmed: 0,
    skipped: 0,
    existing: 0,
    notSent: 0,
    rejectsFile: null,
    unconfirmedFile: null,
    resultsFile: options.resultsFile ?? null,
    journalFile: options.journalFile ?? null,
    interrupted: false,
    durationMs: 0,
  }
  let rejects: RowFile | undefined
  let unconfirmedOut: RowFile | undefined
  const results = options.resultsFile ? new ResultsFile(options.resultsFile) : undefined
  let header: string[] | undefined
  // Rows go back out as the file has them (its delimiter; UTF-8, marked with a BOM when the file
  // was not: the reader honours the mark, so the file imports again with the same map).
  const rowFormat = {delimiter: options.map?.delimiter ?? ',', bom: (options.map?.encoding ?? 'utf-8') !== 'utf-8'}
  const rejectsFile = () => (rejects ??= new RowFile(options.rejectsFile, header, rowFormat))
  const unconfirmedFile = () => (unconfirmedOut ??= new RowFile(options.unconfirmedFile, header, rowFormat))
  /** A bill's identity in the journal: its key, or its number in a journal of bk 0.1 (version 1). */
  const journalKey = previous?.header.version === 1 ? (b: BillDraft) => b.number : (b: BillDraft) => b.key
  let fatal: BkError | undefined
  let warned = 0
  const resendRounds = options.resendRounds ?? 3
  const resendDelayMs = options.resendDelayMs ?? 2000
  const stopped = () => Boolean(options.stop?.aborted) || fatal !== undefined
  const abort = options.abort ?? new AbortController().signal
  let batchNumber = previous?.batches ?? 0
  /** Bills of this run whose request reached the service (answered, refused or unknown). */
  let sentBills = 0
  let pendingBatch: BillDraft[] = []
  let pendingNumbers = new Set<string>()
  const onCreated = options.onCreated
  const flush = async () => {
    const batch = pendingBatch
    pendingBatch = []
    pendingNumbers = new Set()
    await submit(batch)
  }
  /** Request slots taken, and batches not yet fully recorded (journal, files). */
  const inFlight = new Set<Promise<void>>()
  const settling = new Set<Promise<void>>()
  const checkHeap = heapGuard()

  const reject = async (bill: BillDraft, reason: string) => {
    summary.failed++
    await rejectsFile().add(bill, () => reason)
  }
  const leaveUnconfirmed = async (bill: BillDraft, reason: string) => {
    summary.unconfirmed++
    await unconfirmedFile().add(bill, () => reason)
  }

  /** `release` frees the request slot once the answer is in; the bookkeeping after it needs none. */
  const sendBatch = async (batch: BillDraft[], release: () => void): Promise<void> => {
    const id = ++batchNumber
    // A batch never holds one number twice (see submitBill), so the answer's numbers name one bill each.
    const numbers = batch.map((b) => b.number)
    await journal?.append({t: 'sending', batch: id, keys: batch.map(journalKey)})
    let result: BatchResult
    for (let round = 0; ; round++) {
      // A signal per request: listeners the transport adds to it go away with it.
      const request = new AbortController()
      const onAbort = () => request.abort(abort.reason)
      abort.addEventListener('abort', onAbort, {once: true})
      try {
        result = {
          kind: 'answered',
          response: await options.send(
            batch.map((b) => b.input),
            request.signal,
          ),
        }
      } catch (error) {
        result = classify(error, abort.aborted)
      } finally {
        abort.removeEventListener('abort', onAbort)
      }
      if (result.kind !== 'not-sent' || !result.retry || round >= resendRounds || abort.aborted) break
      // A second Ctrl-C ends the wait and sends nothing more: the batch stays "not sent", for --resume.
      options.onResendWait?.(resendDelayMs * (round + 1))
      await sleep(resendDelayMs * (round + 1), undefined, {signal: abort}).catch(() => {})
      if (abort.aborted) break
    }
    if (result.kind === 'not-sent') fatal ??= result.error
    release()
    if (result.kind === 'not-sent') {
      await journal?.append({t: 'notsent', batch: id, reason: result.error.message})
      summary.notSent += batch.length
      return
    }
    sentBills += batch.length
    const created: Array<[string, string]> = []
    const failed: Array<[string, string]> = []
    const unknown: Array<[string, string]> = []
    if (result.kind === 'answered') {
      const byNumber = new Map<string, string>()
      for (const bill of result.response.data) if (bill.number) byNumber.set(bill.number, bill.id)
      const errorsByNumber = new Map<string, string>()
      for (const e of result.response.errors) if (e.bill_number) errorsByNumber.set(e.bill_number, e.error)
      for (const n of numbers) {
        const billId = byNumber.get(n)
        const error = errorsByNumber.get(n)
        if (billId !== undefined) created.push([n, billId])
        else if (error !== undefined) failed.push([n, `rejected by the service: ${error}`])
        else unknown.push([n, "outcome unknown: the service's answer names this bill neither as created nor as failed"])
      }
    } else if (result.kind === 'refused') {
      for (const n of numbers) failed.push([n, `rejected by the service: ${result.reason}`])
    } else {
      for (const n of numbers) unknown.push([n, result.reason])
    }
    const keyOf = (n: string) => journalKey(batch.find((b) => b.number === n)!)
    const keyed = <T>(list: Array<[string, T]>): Array<[string, T]> => list.map(([n, v]) => [keyOf(n), v])
    await journal?.append({
      t: 'result',
      batch: id,
      created: keyed(created),
      failed: keyed(failed),
      unconfirmed: keyed(unknown),
    })
    checkHeap()
    const byNumber = new Map(batch.map((b) => [b.number, b]))
    for (const [n, billId] of created) {
      summary.created++
      await results?.add(n, billId, byNumber.get(n)!.rows[0]!.line)
    }
    for (const [n, reason] of failed) await reject(byNumber.get(n)!, reason)
    for (const [n, reason] of unknown) await leaveUnconfirmed(byNumber.get(n)!, reason)
    await onCreated?.(created.map(([n, billId]) => ({bill: byNumber.get(n)!, id: billId})))
  }

  const submit = async (batch: BillDraft[]) => {
    while (inFlight.size >= options.concurrency) await Promise.race(inFlight)
    while (settling.size >= options.concurrency * 2) await Promise.race(settling)
    if (stopped()) {
      summary.notSent += batch.length
      return
    }
    let release!: () => void
    const slot = new Promise<void>((resolve) => {
      release = resolve
    })
    inFlight.add(slot)
    void slot.then(() => inFlight.delete(slot))
    const p: Promise<void> = sendBatch(batch, release)
      .catch((error: unknown) => {
        fatal ??=
          error instanceof BkError ? error : new BkError(`Import failed: ${(error as Error).message}`, {cause: error})
      })
      .finally(() => {
        release()
        settling.delete(p)
      })
    settling.add(p)
  }

  const fromJournal = async (bill: BillDraft, outcome: BillOutcome) => {
    if (outcome.kind === 'created') {
      summary.skipped++
      await results?.add(bill.number, outcome.id, bill.rows[0]!.line)
    } else if (outcome.kind === 'failed') {
      await reject(bill, outcome.reason)
    } else {
      await leaveUnconfirmed(bill, outcome.reason)
    }
  }

  const stopProgress = progressTimer(input, options, () => ({
    rows: summary.rows,
    bills: summary.bills,
    created: summary.created,
  }))
  let scanned: Awaited<ReturnType<typeof scan>>
  try {
    scanned = await scan(
      input,
      options,
      async (bill) => {
        summary.bills++
        summary.rows += bill.rows.length
        if (onlySkipped(bill)) {
          summary.failed++
          await rejectsFile().add(bill, () => bill.errors.map((e) => formatRowError(input.label, e)).join('; '))
          return
        }
        if (bill.errors.length > 0) {
          summary.invalid++
          for (const e of bill.errors) if (warned++ < options.maxErrors) warn(formatRowError(input.label, e))
          const reasons = bill.errors.map((e) => formatRowError(input.label, e))
          await rejectsFile().add(bill, (line) => {
            const own = bill.errors.filter((e) => e.line === line).map((e) => formatRowError(input.label, e))
            return own.length > 0
              ? own.join('; ')
              : `not sent: another row of this bill is invalid: ${reasons.join('; ')}`
          })
          summary.failed++
          return
        }
        const outcome = previous?.outcomes.get(journalKey(bill))
        if (outcome) return fromJournal(bill, outcome)
        const earlier = options.skipExisting?.(bill)
        if (earlier) {
          summary.skipped++
          summary.existing++
          await results?.add(bill.number, earlier, bill.rows[0]!.line)
          return
        }
        // The service's errors name a bill by number alone: one number appears once per batch.
        if (pendingNumbers.has(bill.number)) await flush()
        pendingBatch.push(bill)
        pendingNumbers.add(bill.number)
        if (pendingBatch.length >= options.batchSize) await flush()
      },
      stopped,
      (h) => {
        header = h
      },
    )
    if (!stopped() && !scanned.fatal && pendingBatch.length > 0) await flush()
    summary.notSent += pendingBatch.length
    await Promise.all(settling)
    if (scanned.fatal)
      fatal ??= stoppedAtRow(
        formatRowError(input.label, scanned.fatal),
        scanned.fatal.line,
        sentBills,
        Boolean(journal),
        summary,
      )
  } finally {
    stopProgress()
    await Promise.all(settling)
    // Every file is closed even when one fails; a failure not already reported ends the run.
    const closed = await Promise.allSettled([
      journal?.close(),
      rejects?.close(),
      unconfirmedOut?.close(),
      results?.close(),
    ])
    const failure = closed.find((c): c is PromiseRejectedResult => c.status === 'rejected')?.reason as Error | undefined
    if (failure) fatal ??= new BkError(`Import failed: ${failure.message}`, {cause: failure})
  }
  if (warned > options.maxErrors)
    warn(
      `… and ${warned - options.maxErrors} more problems, not listed (every invalid bill is in ${options.rejectsFile}).`,
    )
  summary.interrupted = Boolean(options.stop?.aborted)
  summary.rejectsFile = rejects?.path ?? null
  summary.unconfirmedFile = unconfirmedOut?.path ?? null
  summary.durationMs = Math.round(performance.now() - started)
  if (fatal && summary.notSent > 0 && !(fatal instanceof InputError)) {
    fatal = new BkError(
      `${fatal.message}; ${summary.notSent} bill${summary.notSent === 1 ? ' was' : 's were'} not sent`,
      {
        code: fatal.code,
        exitCode: fatal.exitCode === ExitCode.unexpected ? ExitCode.unavailable : fatal.exitCode,
        hint: journal
          ? 'Run the same command again with --resume once the problem is fixed: confirmed bills are skipped, unconfirmed ones are never re-sent.'
          : (fatal.hint ?? 'Run the import again once the problem is fixed.'),
        details: {summary},
      },
    )
  }
  return {summary, fatal}
}
