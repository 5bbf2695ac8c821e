/**
 * The one owner of an import's counts: every bill read ends here exactly once (created, skipped as
 * created before, refused, set aside or unconfirmed), with its rows in the matching output file,
 * and the run's end turns the counts into the summary and the error that ends it, if any.
 */
import {BkError, ExitCode, InputError} from '../shared/errors.js'
import {counted, formatCount} from '../shared/counts.js'
import {formatRowError, type BillDraft, type RowError} from './assemble.js'
import type {BatchOutcome} from './batch-sender.js'
import {describeKey} from './bill-key.js'
import type {RecordedBill} from './created-record.js'
import {inputName} from './input-name.js'
import type {ImportOutputs} from './outputs.js'

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
  /** Created by an earlier run: of this file (from the journal), or of any file (the record). */
  skipped: number
  /** Of `skipped`, those found in the record of created bills (created by an earlier import). */
  existing: number
  /** Read but not sent because the run stopped early; a --resume run sends them. */
  notSent: number
  rejectsFile: string | null
  unconfirmedFile: string | null
  /** Bills read but not sent (the run stopped early), the rows as read: null when none. */
  unsentFile: string | null
  /** A two-file import's lines of the bills in each of the three files above (`--lines-file` them with it). */
  linesRejectsFile: string | null
  linesUnconfirmedFile: string | null
  linesUnsentFile: string | null
  resultsFile: string | null
  journalFile: string | null
  interrupted: boolean
  /** False when the run stopped before the end of its input: the bills after were not read (--resume reads them). */
  readToEnd: boolean
  durationMs: number
}

export interface ImportOutcome {
  summary: ImportSummary
  /** Why the run stopped early, if it did for a reason other than Ctrl-C. */
  fatal?: BkError | undefined
  /**
   * The first reasons bills failed or are unconfirmed, in the order found: one a bill, so there
   * are `failed + unconfirmed` in all (all are in the files).
   */
  reasons: string[]
  /** Those of `reasons` already on stderr, shown as their rows were read. */
  shown: ReadonlySet<string>
}

/** How a run ended, as its stages know it. */
export interface RunEnd {
  /** Why sending stopped (the sender's), or undefined. */
  sendFailure: BkError | undefined
  /** The row the input could not be read past. */
  unreadable: RowError | undefined
  /** A file that failed to close (the resume log, an output). */
  closeFailure: Error | undefined
  /** Bills that reached the service, and bills read but not sent. */
  sent: number
  notSent: number
  interrupted: boolean
  readToEnd: boolean
  durationMs: number
}

/** How many bills created earlier are named one by one. */
const SHOWN_EARLIER = 10

/** How many reasons of failure an import keeps for its summary. */
const KEPT_REASONS = 20

export class ImportTally {
  readonly summary: ImportSummary
  readonly reasons: string[] = []
  private readonly shown = new Set<string>()
  /** Problems found in the file, of which the first `maxErrors` are shown as found. */
  private warned = 0
  /**
   * The first output file that could not be written (a full disk): the counts go on regardless,
   * so that the summary says exactly what became of each bill, and the run stops sending.
   */
  writeFailure: Error | undefined
  /** Bills other runs left unconfirmed, of which the first ten are named. */
  private elsewhere = 0

  constructor(
    private readonly outputs: ImportOutputs,
    private readonly options: {
      label: string
      businessId: string
      resultsFile?: string | undefined
      journalFile?: string | undefined
      rejectsFile: string
      maxErrors: number
      warn: (line: string) => void
    },
  ) {
    this.summary = {
      file: options.label,
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
      unsentFile: null,
      linesRejectsFile: null,
      linesUnconfirmedFile: null,
      linesUnsentFile: null,
      resultsFile: options.resultsFile ?? null,
      journalFile: options.journalFile ?? null,
      interrupted: false,
      readToEnd: false,
      durationMs: 0,
    }
  }

  /** Every bill read, before it is routed. */
  read(bill: BillDraft): void {
    this.summary.bills++
    this.summary.rows += bill.rows.length
  }

  /** A bill set aside for a documented reason (scan.ts isSetAside): every reason in the rejects file. */
  async setAside(bill: BillDraft): Promise<void> {
    const {label} = this.options
    this.summary.failed++
    this.because(formatRowError(label, bill.errors.find((e) => e.skip) ?? bill.errors[0]!))
    await this.write(() => this.outputs.reject(bill, () => bill.errors.map((e) => formatRowError(label, e)).join('; ')))
  }

  /** A bill with row errors: refused before sending, each error shown (up to --max-errors). */
  async invalid(bill: BillDraft): Promise<void> {
    const {label, maxErrors, warn} = this.options
    this.summary.invalid++
    this.summary.failed++
    this.because(formatRowError(label, bill.errors[0]!), this.warned < maxErrors)
    for (const e of bill.errors) if (this.warned++ < maxErrors) warn(formatRowError(label, e))
    const reasons = bill.errors.map((e) => formatRowError(label, e))
    await this.write(() =>
      this.outputs.reject(bill, (line) => {
        const own = bill.errors.filter((e) => e.line === line).map((e) => formatRowError(label, e))
        return own.length > 0 ? own.join('; ') : `not sent: another row of this bill is invalid: ${reasons.join('; ')}`
      }),
    )
  }

  async reject(bill: BillDraft, reason: string): Promise<void> {
    this.summary.failed++
    this.because(`bill ${describeKey(bill.key)}: ${reason}`)
    await this.write(() => this.outputs.reject(bill, () => reason))
  }

  async leaveUnconfirmed(bill: BillDraft, reason: string): Promise<void> {
    this.summary.unconfirmed++
    this.because(`bill ${describeKey(bill.key)}: ${reason}`)
    await this.write(() => this.outputs.leaveUnconfirmed(bill, reason))
  }

  /** Created by an earlier run: of this file (its resume log), or of any (`existing`: the record). */
  async createdBefore(bill: BillDraft, id: string, existing: boolean, reason?: string): Promise<void> {
    this.summary.skipped++
    if (existing) this.summary.existing++
    const why = reason ?? `created by an earlier run of this file (${id}); not sent again`
    await this.write(() => this.outputs.created([{bill, id}], why))
  }

  /** Created by an earlier import (the record of created bills): not sent again. */
  async createdEarlier(bill: BillDraft, earlier: RecordedBill): Promise<void> {
    const reason = `created earlier by ${runInput(earlier.input)} on ${minute(earlier.at)} UTC (${earlier.id}); not sent (--allow-duplicates sends it)`
    if (this.summary.existing < SHOWN_EARLIER) this.options.warn(`bill ${describeKey(bill.key)}: ${reason}`)
    await this.createdBefore(bill, earlier.id ?? '', true, reason)
  }

  /**
   * Left unconfirmed by another run (the record of created bills): it may exist, so it is not
   * sent, and is unconfirmed in this run too, until the user checks it (docs/bills.md).
   */
  async unconfirmedElsewhere(bill: BillDraft, earlier: RecordedBill): Promise<void> {
    const run = `the import of ${runInput(earlier.input)} started ${minute(earlier.unconfirmedBy ?? earlier.at)} UTC`
    const reason = `unconfirmed by ${run}: it may exist; not sent (check it, then import it with --resend-unconfirmed)`
    if (this.elsewhere++ < SHOWN_EARLIER) this.options.warn(`bill ${describeKey(bill.key)}: ${reason}`)
    await this.leaveUnconfirmed(bill, reason)
  }

  /** Bills read but not sent: the run stopped first. Counted by the run's end (`notSent`). */
  async notSent(bills: readonly BillDraft[]): Promise<void> {
    for (const bill of bills)
      await this.write(() => this.outputs.leaveUnsent(bill, 'not sent: the import stopped before sending it'))
  }

  /** A batch that reached the service. */
  async settle({created, failed, unconfirmed}: BatchOutcome): Promise<void> {
    // One write for the batch's created bills: an await a bill was a tenth of an import's allocations.
    this.summary.created += created.length
    if (created.length > 0) await this.write(() => this.outputs.created(created))
    for (const {bill, reason} of failed) await this.reject(bill, reason)
    for (const {bill, reason} of unconfirmed) await this.leaveUnconfirmed(bill, reason)
  }

  /** The run's end, once: the summary completed and the error that ends the run, if any. */
  finish(end: RunEnd): ImportOutcome {
    const {summary, options} = this
    if (summary.existing > SHOWN_EARLIER)
      options.warn(`… and ${counted(summary.existing - SHOWN_EARLIER, 'more bill')} created earlier, not sent.`)
    if (this.elsewhere > SHOWN_EARLIER)
      options.warn(
        `… and ${counted(this.elsewhere - SHOWN_EARLIER, 'more bill')} other runs left unconfirmed, not sent.`,
      )
    if (this.warned > options.maxErrors)
      options.warn(
        `… and ${counted(this.warned - options.maxErrors, 'more problem')}, not listed (every invalid bill is in ${options.rejectsFile}).`,
      )
    summary.notSent = end.notSent
    summary.interrupted = end.interrupted
    summary.readToEnd = end.readToEnd
    const {rejects, unconfirmed, unsent} = this.outputs.written
    summary.rejectsFile = rejects.path
    summary.unconfirmedFile = unconfirmed.path
    summary.unsentFile = unsent.path
    summary.linesRejectsFile = rejects.lines
    summary.linesUnconfirmedFile = unconfirmed.lines
    summary.linesUnsentFile = unsent.lines
    summary.durationMs = end.durationMs
    const journaled = summary.journalFile !== null
    let fatal =
      end.sendFailure ??
      (end.unreadable &&
        stoppedAtRow(formatRowError(summary.file, end.unreadable), end.unreadable.line, end.sent, journaled, summary))
    const unwritten = this.writeFailure ?? end.closeFailure
    if (unwritten) fatal ??= new BkError(`Import failed: ${unwritten.message}`, {cause: unwritten})
    const full = [fatal, this.writeFailure, end.closeFailure].map(diskFullCause).find(Boolean)
    if (full) fatal = diskFullError(full, summary, journaled)
    else if (fatal && summary.notSent > 0 && !(fatal instanceof InputError))
      fatal = withNotSent(fatal, summary, journaled)
    return {summary, fatal, reasons: this.reasons, shown: this.shown}
  }

  private async write(output: () => Promise<void>): Promise<void> {
    if (this.writeFailure) return
    try {
      await output()
    } catch (error) {
      this.writeFailure = error as Error
    }
  }

  /** `shown`: the reason is on stderr already (a row error, shown as found). */
  private because(reason: string, shown = false): void {
    if (this.reasons.length >= KEPT_REASONS) return
    this.reasons.push(reason)
    if (shown) this.shown.add(reason)
  }
}

/** How a run's input is named in messages. */
function runInput(input: string | undefined): string {
  return input === undefined ? 'an import' : inputName(input)
}

/** An ISO 8601 time to the minute, as `2026-11-25 02:00`. */
function minute(at: string): string {
  return at.slice(0, 16).replace('T', ' ')
}

/** Errors that mean the disk (or a size limit or quota) refused a write. */
const DISK_FULL = new Set(['ENOSPC', 'EFBIG', 'EDQUOT'])

/** The write failure for want of space behind an error (or its causes), if that is what it is. */
function diskFullCause(error: unknown): NodeJS.ErrnoException | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code
    if (code && DISK_FULL.has(code)) return e as NodeJS.ErrnoException
  }
  return undefined
}

/**
 * A full disk ends the run with exit 9 and the exact summary: bills the service answered for are
 * counted even when their result could not be journaled (a --resume leaves those unconfirmed).
 */
function diskFullError(cause: NodeJS.ErrnoException, summary: ImportSummary, journaled: boolean): BkError {
  const where = cause.path ? ` writing ${cause.path}` : ''
  return new BkError(
    `The disk is full (${cause.code}${where}): ${counted(summary.created, 'bill')} created, ${formatCount(summary.unconfirmed)} unconfirmed, ${formatCount(summary.failed)} failed, ${formatCount(summary.notSent)} not sent`,
    {
      code: 'disk_full',
      exitCode: ExitCode.diskFull,
      hint: journaled
        ? 'Free some space, then run the same command with --resume: bills created are never sent again (a batch whose result could not be written is unconfirmed: `bk bills unconfirmed` lists it).'
        : 'Free some space, then import only the bills not sent; do not import the same rows again.',
      details: {summary},
      cause,
    },
  )
}

/** A failure that stopped the run, with the bills it kept from being sent, and the way on. */
function withNotSent(fatal: BkError, summary: ImportSummary, journaled: boolean): BkError {
  return new BkError(
    `${fatal.message}; ${counted(summary.notSent, 'bill')} ${summary.notSent === 1 ? 'was' : 'were'} not sent`,
    {
      code: fatal.code,
      exitCode: fatal.exitCode === ExitCode.unexpected ? ExitCode.unavailable : fatal.exitCode,
      hint: journaled
        ? 'Run the same command again with --resume once the problem is fixed: confirmed bills are skipped, unconfirmed ones are never re-sent.'
        : (fatal.hint ?? 'Run the import again once the problem is fixed.'),
      details: {summary},
    },
  )
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
  const what = `${message}; ${counted(sent, 'bill')} before it ${sent === 1 ? 'was' : 'were'} sent (${formatCount(summary.created)} created, ${formatCount(summary.unconfirmed)} unconfirmed)`
  return new BkError(what, {
    code: 'stopped_at_row',
    exitCode: ExitCode.partial,
    hint: journaled
      ? 'Fix the file, then run the same command with --resume: bills already sent are never sent again.'
      : `No journal was kept (stdin without --journal): do not import the same rows again. Fix the file and import only ${summary.unsentFile ? `${summary.unsentFile} (the bills read but not sent) and ` : ''}the rows from line ${line} on; next time pass --journal FILE.`,
    details: {summary},
  })
}
