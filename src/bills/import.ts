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
import {existsSync, statSync, type Stats} from 'node:fs'
import {rm} from 'node:fs/promises'
import {resolve} from 'node:path'

import type {BillInput, CreateBillsResponse} from '../api/schemas/bill.js'
import {BkError, ExitCode, InputError} from '../shared/errors.js'
import {removeResumeLog} from '../files/resume-log.js'
import {checkWritable} from '../output/sink.js'
import type {RunLock} from '../files/run-lock.js'
import {BatchSender} from './batch-sender.js'
import {BillAssembler, formatRowError, type BillDraft, type RowError} from './assemble.js'
import {DEFAULT_KEY, describeKey} from './bill-key.js'
import {layoutFor} from './columns.js'
import {heapGuard} from './heap-guard.js'
import {BillLogWriter, lockBillLog, readBillLog, type BillLogState} from './resume-log.js'
import {ImportOutputs, type OutcomeObserver} from './outputs.js'
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
  /** Each bill's outcome as the output files get it (CI annotations and reports, src/ci/). */
  observe?: OutcomeObserver | undefined
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
  /** The first reasons bills failed or are unconfirmed, in the order found (all are in the files). */
  reasons: string[]
}

/** How many reasons of failure an import keeps for its summary. */
const KEPT_REASONS = 20

/** A character a cell must not hold: C0 controls but tab and line breaks, DEL, and U+FFFD. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNREADABLE = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F\uFFFD]/
// eslint-disable-next-line no-control-regex -- as above
const CONTROL = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/g

/**
 * A cell holding U+FFFD (the character reading puts in place of bytes that are not UTF-8: the file
 * was saved in another encoding, such as Windows-1252 by Excel's plain "CSV") or a control
 * character (a binary file, or a stray byte): importing it would send mangled text.
 */
function unreadableCell(record: string[], header: string[], line: number): RowError | undefined {
  for (let i = 0; i < record.length; i++) {
    const cell = record[i]!
    const m = UNREADABLE.exec(cell)
    if (!m) continue
    const c = m[0]
    const message =
      c === '\uFFFD'
        ? 'holds bytes that are not UTF-8 (shown as \uFFFD): the file is in another encoding. Pass --encoding windows-1252 (or latin1) if that is how it was written, or save it as UTF-8 ("CSV UTF-8" in Excel)'
        : `holds the control character U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')} at position ${m.index + 1}: remove it (a cell holds text, tabs and line breaks only)`
    // Control characters are shown escaped: printed raw they could move the user's terminal cursor.
    const shown = (text: string) =>
      text.replace(CONTROL, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)
    return {line, column: shown(header[i]?.trim() || `column ${i + 1}`), value: shown(cell), message}
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
        // The header is checked as rows are: a control character or a non-UTF-8 byte there is the
        // same mistake, and it would end up in every message and output file.
        const bad = named ? unreadableCell(record, record, line) : undefined
        if (bad) throw new InputError(`${formatRowError(input.label, {...bad, column: `${bad.column} (the header)`})}`)
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
          ? unreadableCell(record, header, line)
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
    if (!e.code?.startsWith('CSV_') && e.code !== 'INVALID_OPENING_QUOTE') throw error
    // csv-parse raises a chunk's error before bk has read that chunk's earlier records, so its own
    // line count (which counts a CRLF inside quotes twice) is the better answer when it is ahead.
    const reported = (e as {lines?: number}).lines
    const line =
      e.code === 'INVALID_OPENING_QUOTE' && typeof reported === 'number' && reported > input.nextLine
        ? reported
        : input.nextLine
    return {rows, header, fatal: {line, message: csvErrorMessage(e, line)}}
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
  // A dry run's live set is small (the current bill and the index of numbers): a low bound keeps RSS flat.
  const checkHeap = heapGuard(24 * 1024 * 1024)
  const result = await scan(
    input,
    options,
    (bill) => {
      // Bills die young but V8 lets the old generation grow to several times the live set.
      if (++bills % 1000 === 0) checkHeap()
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

/** What to do with the journal beside the input before sending anything. */
async function prepareJournal(
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

export async function importBills(options: ImportOptions): Promise<ImportOutcome> {
  // The journal's lock is held for the whole run, so that two runs of one file cannot both send.
  const held: {lock?: RunLock} = {}
  try {
    return await runImport(options, held)
  } finally {
    held.lock?.release()
  }
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

/** Valid bills into batches of `size`; a batch never holds one number twice (see BatchSender). */
class Batcher {
  private bills: BillDraft[] = []
  private numbers = new Set<string>()

  constructor(
    private readonly size: number,
    private readonly sender: BatchSender,
  ) {}

  get pending(): number {
    return this.bills.length
  }

  async add(bill: BillDraft): Promise<void> {
    if (this.numbers.has(bill.number)) await this.flush()
    this.bills.push(bill)
    this.numbers.add(bill.number)
    if (this.bills.length >= this.size) await this.flush()
  }

  async flush(): Promise<void> {
    if (this.bills.length === 0) return
    const batch = this.bills
    this.bills = []
    this.numbers = new Set()
    await this.sender.submit(batch)
  }
}

async function runImport(options: ImportOptions, held: {lock?: RunLock}): Promise<ImportOutcome> {
  const started = performance.now()
  const warn = options.warn ?? (() => {})
  const existing = await checkOutputs(options)
  // Small chunks: answers of batches in flight are handled between them, not after 2,000 rows.
  const input = openCsv(options.file, 16 * 1024, shapeOf(options))
  const {previous, writer: journal} = await Promise.resolve()
    .then(() => {
      if (options.journalFile) held.lock = lockBillLog(options.journalFile)
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
  // Rows go back out as the file has them (its delimiter; UTF-8, marked with a BOM when the file
  // was not: the reader honours the mark, so the file imports again with the same map).
  const outputs = new ImportOutputs(
    {rejects: options.rejectsFile, unconfirmed: options.unconfirmedFile, results: options.resultsFile},
    {delimiter: options.map?.delimiter ?? ',', bom: (options.map?.encoding ?? 'utf-8') !== 'utf-8'},
    options.observe,
  )
  const reasons: string[] = []
  const because = (reason: string) => {
    if (reasons.length < KEPT_REASONS) reasons.push(reason)
  }
  const reject = async (bill: BillDraft, reason: string) => {
    summary.failed++
    because(`bill ${describeKey(bill.key)}: ${reason}`)
    await outputs.reject(bill, () => reason)
  }
  const leaveUnconfirmed = async (bill: BillDraft, reason: string) => {
    summary.unconfirmed++
    because(`bill ${describeKey(bill.key)}: ${reason}`)
    await outputs.leaveUnconfirmed(bill, reason)
  }
  /** A bill's identity in the journal: its key, or its number in a journal of bk 0.1 (version 1). */
  const journalKey = previous?.header.version === 1 ? (b: BillDraft) => b.number : (b: BillDraft) => b.key
  const sender = new BatchSender({
    send: options.send,
    concurrency: options.concurrency,
    journal,
    journalKey,
    lastBatch: previous?.batches ?? 0,
    abort: options.abort ?? new AbortController().signal,
    stopRequested: () => Boolean(options.stop?.aborted),
    resendRounds: options.resendRounds ?? 3,
    resendDelayMs: options.resendDelayMs ?? 2000,
    onResendWait: options.onResendWait,
    async settle({created, failed, unconfirmed}) {
      for (const {bill, id} of created) {
        summary.created++
        await outputs.created(bill, id)
      }
      for (const {bill, reason} of failed) await reject(bill, reason)
      for (const {bill, reason} of unconfirmed) await leaveUnconfirmed(bill, reason)
      await options.onCreated?.(created)
    },
  })
  const batcher = new Batcher(options.batchSize, sender)
  let warned = 0

  /** A bill read from the file: set aside, refused, known from before, or batched to send. */
  const onBill = async (bill: BillDraft) => {
    summary.bills++
    summary.rows += bill.rows.length
    if (onlySkipped(bill)) {
      summary.failed++
      because(formatRowError(input.label, bill.errors[0]!))
      await outputs.reject(bill, () => bill.errors.map((e) => formatRowError(input.label, e)).join('; '))
      return
    }
    if (bill.errors.length > 0) {
      summary.invalid++
      summary.failed++
      because(formatRowError(input.label, bill.errors[0]!))
      for (const e of bill.errors) if (warned++ < options.maxErrors) warn(formatRowError(input.label, e))
      const reasons = bill.errors.map((e) => formatRowError(input.label, e))
      await outputs.reject(bill, (line) => {
        const own = bill.errors.filter((e) => e.line === line).map((e) => formatRowError(input.label, e))
        return own.length > 0 ? own.join('; ') : `not sent: another row of this bill is invalid: ${reasons.join('; ')}`
      })
      return
    }
    const outcome = previous?.outcomes.get(journalKey(bill))
    if (outcome?.kind === 'created') {
      summary.skipped++
      await outputs.created(bill, outcome.id)
    } else if (outcome?.kind === 'failed') await reject(bill, outcome.reason)
    else if (outcome?.kind === 'unconfirmed') await leaveUnconfirmed(bill, outcome.reason)
    else {
      const earlier = options.skipExisting?.(bill)
      if (earlier) {
        summary.skipped++
        summary.existing++
        await outputs.created(bill, earlier)
      } else await batcher.add(bill)
    }
  }

  const stopProgress = progressTimer(input, options, () => ({
    rows: summary.rows,
    bills: summary.bills,
    created: summary.created,
  }))
  let fatal: BkError | undefined
  try {
    const scanned = await scan(
      input,
      options,
      onBill,
      () => sender.stopped,
      (h) => {
        outputs.header = h
      },
    )
    if (!sender.stopped && !scanned.fatal) await batcher.flush()
    await sender.drain()
    summary.notSent = sender.notSent + batcher.pending
    fatal = sender.fatal
    if (scanned.fatal)
      fatal ??= stoppedAtRow(
        formatRowError(input.label, scanned.fatal),
        scanned.fatal.line,
        sender.sentBills,
        Boolean(journal),
        summary,
      )
  } finally {
    stopProgress()
    await sender.drain()
    summary.notSent = sender.notSent + batcher.pending
    fatal ??= sender.fatal
    // Every file is closed even when one fails; a failure not already reported ends the run.
    const closed = await Promise.allSettled([journal?.close(), ...outputs.close()])
    const failure = closed.find((c): c is PromiseRejectedResult => c.status === 'rejected')?.reason as Error | undefined
    if (failure) fatal ??= new BkError(`Import failed: ${failure.message}`, {cause: failure})
  }
  if (warned > options.maxErrors)
    warn(
      `… and ${warned - options.maxErrors} more problems, not listed (every invalid bill is in ${options.rejectsFile}).`,
    )
  summary.interrupted = Boolean(options.stop?.aborted)
  summary.rejectsFile = outputs.written.rejects
  summary.unconfirmedFile = outputs.written.unconfirmed
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
  return {summary, fatal, reasons}
}
