/**
 * What `bk bills import` adds for CI: each bill's outcome as a GitHub annotation (invalid rows
 * and refused bills as errors, unconfirmed and set-aside bills as warnings) and as a JUnit test
 * case, and the run's counts in the step summary. Fed by the import's outcome observer and its
 * summary; the import itself knows nothing of CI.
 */
import {formatRowError, type BillDraft, type RowError} from '../bills/assemble.js'
import {describeKey} from '../bills/bill-key.js'
import type {DryRunResult, ImportOutcome} from '../bills/import.js'
import {inputName} from '../bills/input-name.js'
import type {OutcomeObserver} from '../bills/outputs.js'
import {githubAnnotator, type Annotator} from './annotations.js'
import {annotationPath, ciEnvironment, type CiEnvironment} from './environment.js'
import {checkJunitPath, JunitStream, type JunitOutcome} from './junit.js'
import {appendStepSummary, runState, code, countsTable, inline, reasonsList} from './step-summary.js'

const TITLE = 'bk bills import'

/** A row error's text without its `file:line: ` prefix, which an annotation shows on its own. */
function rowMessage(e: RowError): string {
  return formatRowError('', e).slice(`:${e.line}: `.length)
}

export class BillImportReport {
  private junit: JunitStream | undefined

  private constructor(
    private readonly file: string,
    private readonly annotator: Annotator | undefined,
    private readonly env: CiEnvironment,
    private readonly junitPath: string | undefined,
  ) {}

  /** The report of this run, or undefined when there is nothing to report to (not CI, no --junit). */
  static async open(
    file: string,
    junit: string | undefined,
    env: CiEnvironment = ciEnvironment(),
  ): Promise<BillImportReport | undefined> {
    if (!env.github && !junit) return undefined
    if (junit) await checkJunitPath(junit)
    return new BillImportReport(file, githubAnnotator(TITLE, env), env, junit)
  }

  /** A path as the run page shows it: relative to the workspace when inside it. */
  private shown(path: string): string {
    return annotationPath(path, this.env.workspace) ?? path
  }

  private get label(): string {
    return inputName(this.file)
  }

  /** The JUnit stream, opened on the first bill (a run refused before reading writes no report). */
  private get cases(): JunitStream | undefined {
    if (this.junitPath) this.junit ??= new JunitStream(this.junitPath, TITLE, this.label)
    return this.junit
  }

  private addCase(bill: BillDraft, outcome?: JunitOutcome, output?: string): void {
    this.cases?.add({
      name: `bill ${describeKey(bill.key)} (line ${bill.rows[0]?.line ?? '?'})`,
      classname: this.label,
      outcome,
      output,
    })
  }

  /** The import's observer: each bill as the rejects, unconfirmed and results files get it. */
  readonly observer: OutcomeObserver = {
    rejected: (bill, errorFor) => {
      const setAside = bill.errors.length > 0 && bill.errors.every((e) => e.skip)
      const invalid = bill.errors.length > 0 && !setAside
      const line = bill.rows[0]?.line
      if (invalid)
        for (const e of bill.errors)
          if (!e.skip) this.annotator?.add({level: 'error', file: this.file, line: e.line, message: rowMessage(e)})
      const reason = invalid || setAside ? rowMessage(bill.errors[0]!) : errorFor(line ?? 0)
      if (!invalid)
        this.annotator?.add({
          level: setAside ? 'warning' : 'error',
          file: this.file,
          line,
          message: `bill ${describeKey(bill.key)}: ${reason}`,
        })
      const text = bill.rows.map((r) => `${this.label}:${r.line}: ${errorFor(r.line)}`).join('\n')
      this.addCase(bill, {
        kind: setAside ? 'skipped' : 'failure',
        type: setAside ? 'set-aside' : invalid ? 'invalid' : 'refused',
        message: reason,
        text,
      })
    },
    unconfirmed: (bill, reason) => {
      const line = bill.rows[0]?.line
      const message = `bill ${describeKey(bill.key)}: ${reason} (never sent again by bk: check whether it exists)`
      this.annotator?.add({level: 'warning', file: this.file, line, message})
      this.addCase(bill, {kind: 'error', type: 'unconfirmed', message, text: `${this.label}:${line ?? '?'}: ${reason}`})
    },
    created: (bill, id) => this.addCase(bill, undefined, id),
    createdBefore: (bill, id, reason) =>
      this.addCase(
        bill,
        {kind: 'skipped', type: 'created-earlier', message: `bill ${describeKey(bill.key)}: ${reason}`},
        id,
      ),
    // Read and not sent: a failure, so that a CI view shows the bills a run still owes.
    unsent: (bill, reason) => {
      const message = `bill ${describeKey(bill.key)}: ${reason}`
      const text = bill.rows.map((r) => `${this.label}:${r.line}: ${reason}`).join('\n')
      this.addCase(bill, {kind: 'failure', type: 'unsent', message, text})
    },
  }

  /** A warning about the whole file (no bill in it), on the run page as on stderr. */
  warn(message: string): void {
    this.annotator?.add({level: 'warning', file: this.file === '-' ? undefined : this.file, message})
  }

  /**
   * --dry-run, or the whole-file check before a mapped import (`dryRun` false: its summary is
   * the import's, unless the check stops it).
   */
  checked(result: DryRunResult, dryRun: boolean): void {
    for (const e of result.errors)
      this.annotator?.add({level: 'error', file: this.file, line: e.line, message: rowMessage(e)})
    this.annotator?.finish(undefined)
    if (result.errorCount === 0 && !dryRun) return
    appendStepSummary(
      [
        `### ${TITLE} ${code(result.file)} (checked, nothing sent)`,
        '',
        countsTable([
          ['rows', result.rows],
          ['bills', result.bills],
          ['valid', result.valid],
          ['invalid', result.invalid],
          ['set aside', result.skipped],
        ]),
        '',
        reasonsList(
          result.errors.map((e) => e.text),
          result.errorCount,
        ),
        '',
      ].join('\n'),
      this.env,
    )
  }

  /** The run's end: the closing annotation, the step summary and the JUnit report. */
  finish({summary: s, reasons, fatal}: ImportOutcome): void {
    this.annotator?.finish(s.rejectsFile ?? s.unconfirmedFile ?? undefined)
    if (this.junitPath) (this.cases as JunitStream).finish(s.durationMs)
    const state = runState({
      interrupted: s.interrupted,
      stopped: fatal !== undefined,
      created: s.created + s.skipped,
      failed: s.failed,
      unconfirmed: s.unconfirmed,
    })
    const files: Array<[string, string | null]> = [
      ['Rejected bills (fix and import again)', s.rejectsFile],
      ['Their lines (with --lines-file)', s.linesRejectsFile],
      ['Unconfirmed bills (check before importing again; never re-sent by bk)', s.unconfirmedFile],
      ['Their lines (with --lines-file)', s.linesUnconfirmedFile],
      ['Created bill ids', s.resultsFile],
      ['Journal (for --resume)', s.journalFile],
      ['JUnit report', this.junitPath ?? null],
    ]
    appendStepSummary(
      [
        `### ${TITLE} ${code(this.shown(s.file))}: ${state}`,
        '',
        countsTable([
          ['rows read', s.rows],
          ['bills read', s.bills],
          ['created', s.created],
          ['skipped (created before)', s.skipped],
          ['rejected', s.failed],
          ['unconfirmed', s.unconfirmed],
          ['not sent', s.notSent],
        ]),
        '',
        ...(fatal ? [`Stopped: ${inline(fatal.message)}`, ''] : []),
        ...(reasons.length > 0 ? ['First reasons:', '', reasonsList(reasons, s.failed + s.unconfirmed), ''] : []),
        ...files.filter(([, path]) => path).map(([what, path]) => `- ${what}: ${code(this.shown(path!))}`),
        '',
      ].join('\n'),
      this.env,
    )
  }

  /** The run failed before any bill had an outcome: no report is left behind. */
  abandon(): void {
    this.junit?.discard()
  }
}

export {ciImportProgress} from './progress.js'
