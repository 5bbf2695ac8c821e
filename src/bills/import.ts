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
import type {PreparedBills} from '../api/resources/bills.js'
import type {BillInput, CreateBillsResponse} from '../api/schemas/bill.js'
import {formatRowError, type BillDraft, type RowError} from './assemble.js'
import {BatchSender, Batcher} from './batch-sender.js'
import {readCreatedRecord, type CreatedRecord} from './created-record.js'
import {heapGuard} from './heap-guard.js'
import {openRun, type Held, type OpenRun} from './open-run.js'
import {isSetAside, progressTimer, scan, shapeOf, type ScanOptions, type Scanned} from './scan.js'
import {openInput} from './structured-input.js'
import {ImportTally, type ImportOutcome} from './tally.js'
import type {OutcomeObserver} from './outputs.js'

export type {ImportProgress, ScanOptions} from './scan.js'
export type {ImportOutcome, ImportSummary} from './tally.js'
export {isSetAside} from './scan.js'

export interface DryRunOptions extends ScanOptions {
  /** The record of created bills to count the bills it knows, when the business is known. */
  record?: {folder: string; baseUrl: string; businessId: string} | undefined
  maxErrors: number
  /** --resend-unconfirmed or --allow-duplicates: bills left unconfirmed elsewhere would be sent. */
  resendUnconfirmed?: boolean | undefined
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
  /** Valid bills the record of created bills knows: an import skips them (see `record`). */
  existing: number
  /** Valid bills another run left unconfirmed (the record): an import leaves them unconfirmed too. */
  unconfirmed: number
  /** The record read, or why none could be (no business known). */
  record: {file: string | null; note?: string | undefined}
  errorCount: number
  /** The line of a CSV error the file cannot be read past: the counts are of the bills before it. */
  stoppedAtLine?: number | undefined
  /** The first `maxErrors` errors, in file order. */
  errors: Array<RowError & {text: string}>
  /** --show N: the first N valid bills, exactly as they would be sent. */
  shown?: BillInput[] | undefined
  /** Each lookup's missing values, once each, so the user can complete the files in one pass. */
  missingLookups?: Array<{field: string; file: string; values: string[]; unfilled: number}> | undefined
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
  /** Bills read but not sent when the run stops early (default: none written). */
  unsentFile?: string | undefined
  resultsFile?: string | undefined
  /** Undefined: no journal (stdin without --journal). */
  journalFile?: string | undefined
  resume: boolean
  restart: boolean
  /** Sends one batch (api.bills.create), written as the request's JSON text. */
  send: (bills: PreparedBills, signal: AbortSignal) => Promise<CreateBillsResponse>
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
  /** The folder of the records of created bills (src/bills/created-record.ts). */
  recordFolder: string
  /** --allow-duplicates: send a bill the record says an earlier import created. */
  allowDuplicates?: boolean | undefined
  /** --resend-unconfirmed: send a bill another run left unconfirmed (the user checked it is absent). */
  resendUnconfirmed?: boolean | undefined
  /** --wait: how long to wait while another import into the business runs (ms; default 5 minutes). */
  waitMs?: number | undefined
  /** Each bill's outcome as the output files get it (CI annotations and reports, src/ci/). */
  observe?: OutcomeObserver | undefined
}

/** --dry-run: the whole file checked offline; nothing is sent. */
export async function dryRun(options: DryRunOptions): Promise<DryRunResult> {
  const started = performance.now()
  const input = await openInput(options.file, 'worker', options.map, shapeOf(options))
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
  const checkHeap = heapGuard()
  const known = await openDryRunRecord(options).catch((error: unknown) => {
    input.close()
    throw error
  })
  let existing = 0
  let unconfirmed = 0
  const onBill = (bill: BillDraft): void => {
    // Bills die young but V8 lets the old generation grow to several times the live set.
    if (++bills % 1000 === 0) checkHeap()
    rows += bill.rows.length
    if (isSetAside(bill)) skipped++
    else if (bill.errors.length > 0) {
      invalid++
      for (const e of bill.errors) if (!e.skip) record(e)
    } else {
      const earlier = known.record?.lookup(bill.key)
      if (earlier?.id !== undefined) existing++
      else if (earlier?.unconfirmedBy !== undefined && !options.resendUnconfirmed) unconfirmed++
      if (shown && shown.length < options.show!) shown.push(JSON.parse(bill.json) as BillInput)
    }
  }
  let result: Scanned
  try {
    result = await scan(input, options, onBill, () => false)
    // The bill being read when the file stopped: counted, as the import counts it.
    if (result.open) onBill(result.open)
  } finally {
    known.record?.close()
  }
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
    existing,
    unconfirmed,
    record: known.result,
    errorCount,
    ...(result.fatal ? {stoppedAtLine: result.fatal.line} : {}),
    errors,
    ...(shown ? {shown} : {}),
    ...(result.missing?.size
      ? {
          missingLookups: [...result.missing].map(([field, values]) => {
            const lookup = options.lookups?.get(field)
            const key = (v: string) => (lookup?.caseInsensitive ? v.toLowerCase() : v)
            return {
              field,
              file: lookup?.file ?? '',
              values: [...values],
              // Listed without an id (as bk bills lookups init writes them): to fill, not to add.
              unfilled: [...values].filter((v) =>
                lookup?.pending.has(key(lookup.width > 1 ? v.split(', ').join('\u0000') : v)),
              ).length,
            }
          }),
        }
      : {}),
    durationMs: Math.round(performance.now() - started),
  }
}

/** A dry run reads the record too (a local file), when it knows the business and the environment. */
async function openDryRunRecord(
  options: DryRunOptions,
): Promise<{record: CreatedRecord | undefined; result: DryRunResult['record']}> {
  if (!options.record) {
    // The record is per business and environment: say which of the two is missing.
    const missing = options.businessId
      ? 'no environment known (--profile, or BK_BASE_URL with credentials)'
      : 'no business known (--business)'
    return {record: undefined, result: {file: null, note: `${missing}: the record of created bills was not read`}}
  }
  const record = await readCreatedRecord(options.record)
  if (record) return {record, result: {file: record.file}}
  const where = `${options.record.businessId} at ${options.record.baseUrl}`
  return {record, result: {file: null, note: `no record of created bills for ${where} in ${options.record.folder}`}}
}

export async function importBills(options: ImportOptions): Promise<ImportOutcome> {
  // The locks are held for the whole run: the resume log's, so that two runs of one file cannot
  // both send, and the business's, so that no other import sends while this one consults the record.
  const held: Held = {locks: []}
  try {
    return await runImport(options, held)
  } finally {
    held.record?.close()
    for (const lock of held.locks.reverse()) lock.release()
  }
}

/** Open the run, route each bill as it is read, finish once (files closed, counts final). */
async function runImport(options: ImportOptions, held: Held): Promise<ImportOutcome> {
  const started = performance.now()
  const run = await openRun(options, held)
  const tally = new ImportTally(run.outputs, {
    ...options,
    label: run.input.label,
    warn: options.warn ?? (() => {}),
  })
  const sender = senderFor(options, run, tally)
  const batcher = new Batcher(options.batchSize, sender)
  const route = billRouter(options, run, tally, batcher)
  const {summary} = tally
  const stopProgress = progressTimer(run.input, options, () => summary)
  let scanned: Scanned | undefined
  let notSent = 0
  let closeFailure: Error | undefined
  try {
    scanned = await scan(
      run.input,
      options,
      route,
      () => sender.stopped,
      (h) => {
        run.outputs.header = h
        const {readHeader, linesHeader} = run.input
        if (readHeader) run.outputs.read = {header: readHeader, lines: linesHeader && {header: linesHeader.record}}
      },
    )
    if (!sender.stopped && !scanned.fatal) await batcher.flush()
  } finally {
    await sender.drain()
    const pending = batcher.takePending()
    await tally.notSent(pending)
    notSent = sender.notSent + pending.length + (await holdBackOpenBill(scanned?.open, tally))
    stopProgress()
    const endFailure = await recordEnd(run, scanned?.ended === true)
    closeFailure = (await run.close()) ?? endFailure
  }
  return tally.finish({
    sendFailure: sender.fatal,
    unreadable: scanned.fatal,
    closeFailure,
    sent: sender.sentBills,
    notSent,
    interrupted: Boolean(options.stop?.aborted),
    readToEnd: scanned.ended,
    durationMs: Math.round(performance.now() - started),
  })
}

/**
 * The journal's last record of a run: whether it read its input to the end, which `bills import
 * status` cannot learn from the bills the journal names. A failure to write it is the run's.
 */
async function recordEnd(run: OpenRun, readToEnd: boolean): Promise<Error | undefined> {
  try {
    await run.log?.append({t: 'end', at: new Date().toISOString(), read_to_end: readToEnd})
    return undefined
  } catch (error) {
    return error as Error
  }
}

/** The batch sender of a run: each batch's outcome goes to the tally, then to the record of created bills. */
function senderFor(options: ImportOptions, run: OpenRun, tally: ImportTally): BatchSender {
  return new BatchSender({
    send: options.send,
    concurrency: options.concurrency,
    journal: run.log,
    journalKey: run.logKey,
    lastBatch: run.previous?.batches ?? 0,
    abort: options.abort ?? new AbortController().signal,
    // An output file that cannot be written (a full disk) stops the run as a journal write does.
    stopRequested: () => Boolean(options.stop?.aborted) || tally.writeFailure !== undefined,
    resendRounds: options.resendRounds ?? 3,
    resendDelayMs: options.resendDelayMs ?? 2000,
    onResendWait: options.onResendWait,
    onNotSent: (batch) => tally.notSent(batch),
    async settle(outcome) {
      await tally.settle(outcome)
      // Once the resume log holds them: the record is what every later import consults.
      await run.record.add(outcome.created.map(({bill, id}) => ({key: bill.key, id})))
      // Bills that may exist: no other import sends them by itself (--resend-unconfirmed does).
      await run.record.addUnconfirmed(outcome.unconfirmed.map(({bill}) => ({key: bill.key, run: run.started})))
    },
  })
}

/**
 * The bill being read when the input stopped (a CSV error): read, so counted, but never sent (its
 * rows may go on past the error). A valid one goes to the unsent file; returns 1 then.
 */
async function holdBackOpenBill(bill: BillDraft | undefined, tally: ImportTally): Promise<number> {
  if (!bill) return 0
  tally.read(bill)
  if (isSetAside(bill)) await tally.setAside(bill)
  else if (bill.errors.length > 0) await tally.invalid(bill)
  else {
    await tally.notSent([bill])
    return 1
  }
  return 0
}

/**
 * Where each bill read goes: set aside, refused, known from before, or batched to send. Not an
 * async function: a bill that only joins a batch returns no promise for the reader to await.
 */
function billRouter(options: ImportOptions, run: OpenRun, tally: ImportTally, batcher: Batcher) {
  return (bill: BillDraft): Promise<void> | undefined => {
    tally.read(bill)
    if (isSetAside(bill)) return tally.setAside(bill)
    if (bill.errors.length > 0) return tally.invalid(bill)
    const outcome = run.previous?.outcomes.get(run.logKey(bill))
    if (outcome?.kind === 'created') return tally.createdBefore(bill, outcome.id, false)
    if (outcome?.kind === 'failed') return tally.reject(bill, outcome.reason)
    if (outcome?.kind === 'unconfirmed') return tally.leaveUnconfirmed(bill, outcome.reason)
    const earlier = options.allowDuplicates ? undefined : run.record.lookup(bill.key)
    if (earlier?.id !== undefined) return tally.createdEarlier(bill, earlier)
    // Left unconfirmed by another run (this run's own are in its journal, handled above).
    const ownRun = earlier?.unconfirmedBy === run.started && earlier.input === options.file
    if (earlier?.unconfirmedBy !== undefined && !ownRun && !options.resendUnconfirmed)
      return tally.unconfirmedElsewhere(bill, earlier)
    return batcher.add(bill)
  }
}
