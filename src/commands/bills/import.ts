import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import {extname} from 'node:path'

import {BaseCommand} from '../../cli/base-command.js'
import {InputError} from '../../shared/errors.js'
import {counted, formatCount as n} from '../../shared/counts.js'
import {billReadingFlags, businessFlag, performedByFlag, yesFlag} from '../../cli/flags.js'
import type {CreatedRecordOptions} from '../../bills/created-record.js'
import type {DryRunResult, ImportOutcome, ImportSummary} from '../../bills/import.js'
import type {Lookups} from '../../bills/lookups.js'
import type {BillMap} from '../../bills/map-file.js'
import {progressLine, type ProgressLine} from '../../output/progress-line.js'
import {inputName} from '../../bills/input-name.js'
import type {BillImportReport} from '../../ci/bill-import.js'

export type BillsImportResult = ImportSummary | DryRunResult

/** How the file is read: the map (with the flags that beat it) and the lookups. */
type Reading = {map: BillMap | undefined; lookups: Lookups}

export default class BillsImport extends BaseCommand<typeof BillsImport> {
  static override summary = 'Import bills from a CSV file, in batches, resumably.'
  static override description = `One row per bill line; the bill-level columns repeat on each row of a bill, and a bill's rows are contiguous. Columns: number, vendor_id, description, issued_at, due_at, currency, line_description, line_amount, line_ledger_id, and optionally business_id, metadata, line_metadata (JSON) and tag:<field> (a value, or value=amount;value=amount). Headers are case-insensitive; --map renames your own headers.

Invalid bills are never sent: they go to the rejects file with their rows and an error column, and the valid bills around them are sent. A journal beside the input records every batch before and after it is sent: --resume skips every bill it records, and a bill whose outcome could not be known is listed as unconfirmed and never sent again by bk. The files it writes beside the input are named after it: the input's name without its extension, then the kind (bills.rejects.csv, bills.unconfirmed.csv, bills.unsent.csv for bills.csv); the journal keeps the whole name (bills.csv.bk-journal).

Exit codes: 0 every bill created (or created before), 2 invalid input (with --dry-run: any invalid bill), 6 some bills failed or are unconfirmed, 7 the service stayed unavailable, 130 interrupted.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> bills.csv --dry-run',
    '<%= config.bin %> <%= command.id %> bills.csv --results created.csv',
    '<%= config.bin %> <%= command.id %> export.csv --map examples/bills-map.yaml --performed-by ci-nightly',
    '<%= config.bin %> <%= command.id %> bills.csv --resume',
    '$ cat bills.csv | <%= config.bin %> <%= command.id %> - --journal bills.bk-journal --json',
  ]

  static override args = {
    file: Args.string({description: 'CSV file of bill lines (- for stdin).', required: true}),
  }

  static override flags = {
    business: businessFlag(),
    ...billReadingFlags(),
    currency: Flags.string({summary: 'The currency of bills whose rows name none.', helpValue: 'CODE'}),
    amounts: Flags.string({
      summary: 'Send line amounts before (net) or after (gross) tax, for layouts with tax columns.',
      options: ['net', 'gross'],
    }),
    credits: Flags.string({
      summary:
        'Credit notes in an export: set them aside in the rejects file (skip) or refuse the file (beats the map).',
      options: ['skip', 'refuse'],
    }),
    'due-days': Flags.integer({
      summary: 'Due date for bills without one: this many days after the issue date.',
      min: 0,
      max: 3650,
    }),
    'lines-file': Flags.string({
      summary: "The bills' lines, for a map that reads them from a second file (lines_file: in the map).",
      helpValue: 'FILE.csv',
    }),
    // --show before --dry-run, and the flags --dry-run excludes named on its side only: oclif's usage
    // line then reads [--show N --dry-run] and [--resume | --restart], with no empty alternative.
    show: Flags.integer({
      summary: 'With --dry-run: print the first N bills exactly as they would be sent (JSON).',
      min: 1,
      dependsOn: ['dry-run'],
    }),
    'dry-run': Flags.boolean({
      summary: 'Check the whole file offline and list every problem; send nothing.',
      exclusive: ['allow-duplicates', 'resume', 'restart', 'junit', 'resend-unconfirmed'],
    }),
    'skip-existing': Flags.boolean({
      summary: 'Skip bills any earlier import into this business created, from any file (the default).',
      exclusive: ['allow-duplicates'],
    }),
    'allow-duplicates': Flags.boolean({
      summary: 'Send bills the record of created bills says an earlier import created (each then exists twice).',
      exclusive: ['skip-existing'],
    }),
    'resend-unconfirmed': Flags.boolean({
      summary:
        'Send bills another import left unconfirmed, once you have checked that they do not exist (docs/bills.md).',
    }),
    record: Flags.string({
      summary: 'Folder of the records of created bills [default: $BK_STATE_DIR/created-bills, or the config folder].',
      helpValue: 'DIR',
    }),
    wait: Flags.integer({
      summary: 'Wait up to this many seconds while another import into the business runs.',
      default: 300,
      min: 0,
      helpValue: 'SECONDS',
    }),
    'max-errors': Flags.integer({summary: 'List at most this many problems.', default: 50, min: 1}),
    'batch-size': Flags.integer({summary: 'Bills per request (1 to 100).', default: 100, min: 1, max: 100}),
    concurrency: Flags.integer({summary: 'Requests in flight at once (1 to 16).', default: 4, min: 1, max: 16}),
    'performed-by': performedByFlag('Who performs the import, sent to the service with each batch.'),
    rejects: Flags.string({
      summary: 'CSV of the bills not created, with an error column [default: NAME.rejects.csv for NAME.csv].',
      helpValue: 'FILE.csv',
    }),
    results: Flags.string({summary: 'Write created bill ids here (.csv, or .ndjson/.jsonl).', helpValue: 'FILE'}),
    unconfirmed: Flags.string({
      summary: 'CSV of the bills whose outcome is unknown [default: NAME.unconfirmed.csv for NAME.csv].',
      helpValue: 'FILE.csv',
    }),
    journal: Flags.string({
      summary: 'Import journal [default: NAME.csv.bk-journal for NAME.csv; none for stdin].',
      helpValue: 'FILE',
    }),
    resume: Flags.boolean({
      summary: 'Continue an import that has a journal: skip every bill it records.',
      exclusive: ['restart'],
    }),
    restart: Flags.boolean({
      summary: 'Discard the journal and send every bill again (may create duplicates; asks first, or needs --yes).',
      exclusive: ['resume'],
    }),
    junit: Flags.string({
      summary: 'Also write a JUnit XML report for CI test views: one test case per bill.',
      helpValue: 'FILE.xml',
    }),
    yes: yesFlag(),
  }

  /** Annotations, step summary and JUnit report, where the run has somewhere to report to (src/ci/). */
  private ciReport: BillImportReport | undefined

  async run(): Promise<BillsImportResult> {
    const {flags, args} = this
    const file = args.file
    const reading = await this.readingOptions()
    const ci = await import('../../ci/bill-import.js')
    const progress = process.stderr.isTTY ? progressLine() : ci.ciImportProgress()
    this.ciReport = await ci.BillImportReport.open(file, flags.junit)
    if (flags['dry-run']) {
      const result = await this.check(reading, progress, flags.show)
      if (result.shown && !this.jsonEnabled()) process.stdout.write(JSON.stringify(result.shown, null, 2) + '\n')
      this.note(
        `${result.file}: ${counted(result.rows, 'row')}, ${counted(result.bills, 'bill')}, ${n(result.valid)} valid${result.skipped ? `, ${counted(result.skipped, 'bill')} set aside (credit notes, or a status the map sets aside)` : ''}${result.record.file ? `, ${n(result.existing)} created earlier (an import skips them)${result.unconfirmed ? `, ${n(result.unconfirmed)} left unconfirmed by another import (not sent)` : ''}` : ''} (${n(result.durationMs)} ms); nothing was sent.`,
      )
      if (result.record.note) this.note(`Bills created earlier are not counted: ${result.record.note}.`)
      if (result.bills === 0 && result.stoppedAtLine === undefined) this.warnNoBill(result.file, reading.map)
      return result
    }
    // An export read through a map is checked whole first: a misread format would send wrong numbers
    // from its first row on, so nothing is sent unless every row reads. stdin cannot be read twice.
    if (reading.map && file !== '-') await this.check(reading, progress)

    const businessId = await this.businessId()
    const {api, credentials, tokens} = await this.session()
    const {recordFolderFor} = await import('../../bills/created-record.js')
    const journalFile = await this.journalFile(file)
    if (flags.restart && journalFile)
      await this.confirmRestart(journalFile, {
        folder: recordFolderFor(flags.record, this.configDir),
        baseUrl: credentials.baseUrl,
        businessId,
      })
    await this.announceWrite(`importing bills from ${inputName(file)}`)
    // Bad credentials fail here, before the file is read or the journal touched.
    await tokens.get()

    const {importBills} = await import('../../bills/import.js')
    const outcome = await this.stoppable(progress, (stop, abort) =>
      importBills({
        ...this.importOptions(file, reading, journalFile),
        businessId,
        baseUrl: credentials.baseUrl,
        recordFolder: recordFolderFor(flags.record, this.configDir),
        send: (bills, signal) => api.bills.create(businessId, bills, {performedBy: flags['performed-by'], signal}),
        stop,
        abort,
        warn: (line) => {
          progress?.pause()
          this.note(line)
        },
        onProgress: progress?.update,
        observe: this.ciReport?.observer,
      }),
    ).catch((error: unknown) => {
      this.ciReport?.abandon()
      throw error
    })
    this.ciReport?.finish(outcome)
    return this.finish(outcome, reading.map)
  }

  /** The whole file checked offline (--dry-run, or before an import through a map); throws on problems. */
  private async check(reading: Reading, progress: ProgressLine | undefined, show?: number): Promise<DryRunResult> {
    const {flags} = this
    const {dryRun} = await import('../../bills/import.js')
    const businessId = await this.businessIdIfGiven()
    const result = await dryRun({
      file: this.args.file,
      ...reading,
      businessId,
      record: await this.recordIfKnown(businessId),
      resendUnconfirmed: flags['resend-unconfirmed'] || flags['allow-duplicates'],
      maxErrors: flags['max-errors'],
      show,
      onProgress: progress?.update,
    })
    progress?.done()
    this.ciReport?.checked(result, flags['dry-run'])
    if (result.errorCount === 0) return result
    if (!this.jsonEnabled()) {
      for (const e of result.errors) process.stderr.write(e.text + '\n')
      for (const m of result.missingLookups ?? [])
        process.stderr.write(
          `${m.field}: ${counted(m.values.length, 'value')} missing from lookups: ${m.values.map((v) => JSON.stringify(v)).join(', ')} (${m.unfilled === m.values.length ? `fill in each id in ${m.file}` : m.unfilled > 0 ? `fill in the ${m.unfilled} listed without an id in ${m.file}, add the others (bk bills lookups init adds them)` : `add each to ${m.file}, or run bk bills lookups init`})\n`,
        )
    }
    const more = result.errorCount - result.errors.length
    throw new InputError(
      `${counted(result.errorCount, 'problem')} in ${result.file}${result.stoppedAtLine === undefined ? invalidPart(result.invalid, result.bills, more) : stoppedPart(result, more)}; nothing was sent`,
      {
        code: 'invalid_bills',
        details: result,
        hint: flags['dry-run']
          ? 'Fix the rows named above and run --dry-run again.'
          : 'An export read through a map is checked whole before anything is sent: fix the rows named above (or the map, or a lookup file) and run the import again.',
      },
    )
  }

  /** The record a dry run reads: known when the business and the environment are (offline). */
  private async recordIfKnown(businessId: string | undefined) {
    if (!businessId) return undefined
    const baseUrl = await this.credentials().then(
      (c) => c.baseUrl,
      () => undefined,
    )
    if (!baseUrl) return undefined
    const {recordFolderFor} = await import('../../bills/created-record.js')
    return {folder: recordFolderFor(this.flags.record, this.configDir), baseUrl, businessId}
  }

  /** The resume log's path: beside the input, or --journal (stdin has none unless given). */
  private async journalFile(file: string): Promise<string | undefined> {
    const {flags} = this
    const stdin = file === '-'
    if (stdin && (flags.resume || flags.restart) && !flags.journal) {
      throw new InputError('--resume and --restart need a journal, and stdin has none by default', {
        hint: 'Pass --journal FILE (the same one on every run).',
      })
    }
    const {resumeLogPathFor} = await import('../../files/resume-log.js')
    return flags.journal ?? (stdin ? undefined : resumeLogPathFor(file))
  }

  /** The import's options that come from the flags alone. */
  private importOptions(file: string, reading: Reading, journalFile: string | undefined) {
    const {flags} = this
    // The input's name without its extension, then the kind (bills.rejects.csv beside bills.csv).
    const base = file === '-' ? 'bills-import' : file.slice(0, file.length - extname(file).length)
    return {
      file,
      ...reading,
      batchSize: flags['batch-size'],
      concurrency: flags.concurrency,
      maxErrors: flags['max-errors'],
      rejectsFile: flags.rejects ?? `${base}.rejects.csv`,
      unconfirmedFile: flags.unconfirmed ?? `${base}.unconfirmed.csv`,
      unsentFile: `${base}.unsent.csv`,
      resultsFile: flags.results,
      journalFile,
      resume: flags.resume,
      restart: flags.restart,
      allowDuplicates: flags['allow-duplicates'],
      resendUnconfirmed: flags['resend-unconfirmed'],
      waitMs: flags.wait * 1000,
    }
  }

  /**
   * Runs the import with Ctrl-C (and SIGTERM) wired to it: the first stops reading and lets the
   * batches in flight finish, the second abandons them (they become unconfirmed).
   */
  private async stoppable<T>(
    progress: ProgressLine | undefined,
    fn: (stop: AbortSignal, abort: AbortSignal) => Promise<T>,
  ): Promise<T> {
    const stop = new AbortController()
    const abort = new AbortController()
    const onSignal = () => {
      if (stop.signal.aborted) return abort.abort()
      stop.abort()
      progress?.pause()
      process.stderr.write(
        '\nStopping: no new batches; waiting for the batches in flight (Ctrl-C again to abandon them: they become unconfirmed).\n',
      )
    }
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
    try {
      return await fn(stop.signal, abort.signal)
    } finally {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
      progress?.done()
    }
  }

  /** The summary printed, and the exit code: 130 interrupted, 6 partial, the failure's own. */
  private finish(outcome: ImportOutcome, map: unknown): BillsImportResult {
    const {summary, fatal} = outcome
    if (!this.jsonEnabled()) this.printSummary(summary, fatal !== undefined)
    if (summary.bills === 0 && !fatal && !summary.interrupted) this.warnNoBill(summary.file, map)
    if (fatal) throw fatal
    if (summary.interrupted) process.exitCode = 130
    else if (summary.failed > 0 || summary.unconfirmed > 0)
      return this.partial(
        summary,
        {failed: summary.failed, unconfirmed: summary.unconfirmed},
        outcome.reasons,
        // One reason a bill failed or unconfirmed; the tally keeps only the first.
        summary.failed + summary.unconfirmed,
        outcome.shown,
      )
    return summary
  }

  /**
   * A file with a header and no bill is not an error (an export of a period with no bills), but
   * a truncated export looks the same: said on stderr (a warning annotation in CI), exit 0.
   */
  private warnNoBill(file: string, map: unknown): void {
    const message = `No bill in ${file}: it has no row after its header${map ? ', or none the map keeps' : ''}; nothing was sent`
    this.warn(message)
    this.ciReport?.warn(message)
  }

  /** How the file is read: the map and the flags that beat it, and the lookups. */
  private async readingOptions() {
    const {flags} = this
    const {readingOptions} = await import('../../bills/reading.js')
    return readingOptions({
      map: flags.map,
      lookup: flags.lookup,
      dateFormat: flags['date-format'],
      year: flags.year,
      numberFormat: flags['number-format'],
      delimiter: flags.delimiter,
      encoding: flags.encoding,
      currency: flags.currency,
      amounts: flags.amounts,
      dueDays: flags['due-days'],
      credits: flags.credits,
      linesFile: flags['lines-file'],
    })
  }

  /**
   * --restart sends again what the journal records as created or unconfirmed, but for the bills
   * the record of created bills holds (skipped as any import skips them): when some would be sent
   * again, say how many and ask (or need --yes).
   */
  private async confirmRestart(journalFile: string, record: CreatedRecordOptions): Promise<void> {
    const {flags} = this
    const {existsSync} = await import('node:fs')
    if (!existsSync(journalFile)) return
    const {readBillLog} = await import('../../bills/resume-log.js')
    const state = await readBillLog(journalFile).catch(() => undefined)
    if (state === undefined) {
      return this.confirm(
        `discard the damaged journal ${journalFile}, which may record created bills, and send every bill again?`,
        flags.yes,
      )
    }
    const recorded = [...state.outcomes].filter(([, o]) => o.kind === 'created' || o.kind === 'unconfirmed')
    const held = await this.heldByRecord(
      recorded.map(([key]) => key),
      record,
    )
    const again = recorded.filter(([key]) => !held.has(key))
    const created = again.filter(([, o]) => o.kind === 'created').length
    const unconfirmed = again.length - created
    if (again.length === 0) return
    const holds = held.size > 0 ? ` (the record of created bills holds ${n(held.size)} more, which are skipped)` : ''
    await this.confirm(
      `discard the journal ${journalFile} and send again ${counted(created, 'bill')} it records as created and ${unconfirmed} unconfirmed${holds} (each would exist twice)?`,
      flags.yes,
    )
  }

  /** Of these bill keys, those a run skips as the record of created bills holds them (none with --allow-duplicates). */
  private async heldByRecord(keys: string[], options: CreatedRecordOptions): Promise<Set<string>> {
    const {flags} = this
    const held = new Set<string>()
    if (flags['allow-duplicates'] || keys.length === 0) return held
    const {readCreatedRecord} = await import('../../bills/created-record.js')
    const record = await readCreatedRecord(options)
    if (!record) return held
    try {
      for (const key of keys) {
        const earlier = record.lookup(key)
        // A bill another run left unconfirmed is skipped too, unless --resend-unconfirmed.
        if (earlier && (earlier.id !== undefined || !flags['resend-unconfirmed'])) held.add(key)
      }
    } finally {
      record.close()
    }
    return held
  }

  private printSummary(s: ImportSummary, stopped: boolean): void {
    const out = (line: string) => process.stdout.write(line + '\n')
    const seconds = (s.durationMs / 1000).toFixed(1)
    out(
      `${s.interrupted ? 'Interrupted' : stopped ? 'Stopped' : 'Done'}: ${n(s.created)} created, ${n(s.failed)} failed, ${n(s.unconfirmed)} unconfirmed, ${n(s.skipped)} skipped (created before${s.existing ? `; ${n(s.existing)} by an earlier import` : ''})${s.notSent ? `, ${n(s.notSent)} not sent` : ''}; ${counted(s.bills, 'bill')} in ${counted(s.rows, 'row')}${s.readToEnd ? '' : ` read, the rest of ${s.file} not`}, ${seconds} s.`,
    )
    // A two-file import's side files come in pairs: the bills, then their lines (for --lines-file).
    const pair = (file: string, lines: string | null) => (lines ? `${file}, their lines ${lines}` : file)
    if (s.rejectsFile) out(`  Failed bills (fix and import again): ${pair(s.rejectsFile, s.linesRejectsFile)}`)
    if (s.unconfirmedFile)
      out(
        `  Unconfirmed bills (check whether they exist before importing them again; never re-sent by bk): ${pair(s.unconfirmedFile, s.linesUnconfirmedFile)}`,
      )
    if (s.unsentFile) out(`  Bills read but not sent (the run stopped first): ${pair(s.unsentFile, s.linesUnsentFile)}`)
    if (s.resultsFile) out(`  Created bill ids: ${s.resultsFile}`)
    // --resume needs a journal: stdin without --journal has none, and a plain re-run would send again.
    const {file} = this.args
    if ((s.interrupted || s.notSent > 0) && s.journalFile)
      out(
        `  To continue: ${this.config.bin} bills import ${file} --resume${file === '-' ? ` --journal ${s.journalFile}` : ''}`,
      )
  }
}

/**
 * ` (3 of 40 bills invalid)`, or nothing when no bill was read (a problem of the whole file, as a
 * missing column): "0 of 0 bills invalid" says nothing.
 */
function invalidPart(invalid: number, bills: number, more: number): string {
  const parts = [bills > 0 ? `${n(invalid)} of ${counted(bills, 'bill')} invalid` : '', notListed(more)].filter(Boolean)
  return parts.length ? ` (${parts.join('; ')})` : ''
}

/**
 * `; reading stopped at line 2501, after 2,499 bills (0 invalid)`: a CSV error the file cannot be
 * read past. The bills before it were read and checked; what follows it, nobody knows.
 */
function stoppedPart(result: DryRunResult, more: number): string {
  const parts = [n(result.invalid) + ' invalid', notListed(more)].filter(Boolean).join('; ')
  const before = result.bills > 0 ? `after ${counted(result.bills, 'bill')} (${parts})` : 'before any bill'
  return `; reading stopped at line ${result.stoppedAtLine}, ${before}`
}

function notListed(more: number): string {
  return more > 0 ? `${n(more)} not listed, raise --max-errors to see them` : ''
}
