import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {InputError} from '../../shared/errors.js'
import {billReadingFlags, businessFlag, yesFlag} from '../../cli/flags.js'
import type {DryRunResult, ImportProgress, ImportSummary} from '../../bills/import.js'

export type BillsImportResult = ImportSummary | DryRunResult

export default class BillsImport extends BaseCommand<typeof BillsImport> {
  static override summary = 'Import bills from a CSV file, in batches, resumably.'
  static override description = `One row per bill line; the bill-level columns repeat on each row of a bill, and a bill's rows are contiguous. Columns: number, vendor_id, description, issued_at, due_at, currency, line_description, line_amount, line_ledger_id, and optionally business_id, metadata, line_metadata (JSON) and tag:<field> (a value, or value=amount;value=amount). Headers are case-insensitive; --map renames your own headers.

Invalid bills are never sent: they go to the rejects file with their rows and an error column, and the valid bills around them are sent. A journal beside the input records every batch before and after it is sent: --resume skips every bill it records, and a bill whose outcome could not be known is listed as unconfirmed and never sent again by bk.

Exit codes: 0 every bill created (or created before), 2 invalid input (with --dry-run: any invalid bill), 6 some bills failed or are unconfirmed, 7 the service stayed unavailable, 130 interrupted.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> bills.csv --dry-run',
    '<%= config.bin %> <%= command.id %> bills.csv --results created.csv',
    '<%= config.bin %> <%= command.id %> export.csv --map examples/bills-map.yaml --performed-by ci-nightly',
    '<%= config.bin %> <%= command.id %> bills.csv --resume',
    'cat bills.csv | <%= config.bin %> <%= command.id %> - --journal bills.bk-journal --json',
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
    'due-days': Flags.integer({
      summary: 'Due date for bills without one: this many days after the issue date.',
      min: 0,
      max: 3650,
    }),
    'dry-run': Flags.boolean({summary: 'Check the whole file offline and list every problem; send nothing.'}),
    show: Flags.integer({
      summary: 'With --dry-run: print the first N bills exactly as they would be sent (JSON).',
      min: 1,
      dependsOn: ['dry-run'],
    }),
    'skip-existing': Flags.boolean({
      summary: 'Skip bills any earlier import into this business created (from any file).',
      exclusive: ['dry-run'],
    }),
    'max-errors': Flags.integer({summary: 'List at most this many problems.', default: 50, min: 1}),
    'batch-size': Flags.integer({summary: 'Bills per request (1 to 100).', default: 100, min: 1, max: 100}),
    concurrency: Flags.integer({summary: 'Requests in flight at once (1 to 16).', default: 4, min: 1, max: 16}),
    'performed-by': Flags.string({
      summary: 'Who performs the import, sent to the service with each batch.',
      helpValue: 'ID',
    }),
    rejects: Flags.string({
      summary: 'CSV of the bills not created, with an error column [default: <input>.rejects.csv].',
      helpValue: 'FILE.csv',
    }),
    results: Flags.string({summary: 'Write created bill ids here (.csv, or .ndjson/.jsonl).', helpValue: 'FILE'}),
    unconfirmed: Flags.string({
      summary: 'CSV of the bills whose outcome is unknown [default: <input>.unconfirmed.csv].',
      helpValue: 'FILE.csv',
    }),
    journal: Flags.string({
      summary: 'Import journal [default: <input>.bk-journal; none for stdin].',
      helpValue: 'FILE',
    }),
    resume: Flags.boolean({
      summary: 'Continue an import that has a journal: skip every bill it records.',
      exclusive: ['restart', 'dry-run'],
    }),
    restart: Flags.boolean({
      summary: 'Discard the journal and send every bill again (may create duplicates; asks first, or needs --yes).',
      exclusive: ['resume', 'dry-run'],
    }),
    junit: Flags.string({
      summary: 'Also write a JUnit XML report for CI test views: one test case per bill.',
      helpValue: 'FILE.xml',
      exclusive: ['dry-run'],
    }),
    yes: yesFlag(),
  }

  async run(): Promise<BillsImportResult> {
    const {flags, args} = this
    const file = args.file
    const {map, lookups} = await this.readingOptions()
    const ci = await import('../../ci/bill-import.js')
    const progress = process.stderr.isTTY ? progressLine() : ci.ciImportProgress()
    const report = await ci.BillImportReport.open(file, flags.junit)
    const check = async (show?: number) => {
      const {dryRun} = await import('../../bills/import.js')
      const result = await dryRun({
        file,
        map,
        lookups,
        businessId: await this.businessIdIfGiven(),
        maxErrors: flags['max-errors'],
        show,
        onProgress: progress?.update,
      })
      progress?.done()
      report?.checked(result, flags['dry-run'])
      if (result.errorCount > 0) {
        if (!this.jsonEnabled()) {
          for (const e of result.errors) process.stderr.write(e.text + '\n')
          for (const m of result.missingLookups ?? [])
            process.stderr.write(
              `${m.field}: ${m.values.length} value${m.values.length === 1 ? '' : 's'} missing from lookups: ${m.values.map((v) => JSON.stringify(v)).join(', ')} (add each to ${m.file})\n`,
            )
        }
        const more = result.errorCount - result.errors.length
        throw new InputError(
          `${result.errorCount} problem${result.errorCount === 1 ? '' : 's'} in ${result.file} (${result.invalid} of ${result.bills} bills invalid${more > 0 ? `; ${more} not listed, raise --max-errors to see them` : ''}); nothing was sent`,
          {
            code: 'invalid_bills',
            details: result,
            hint: flags['dry-run']
              ? 'Fix the rows named above and run --dry-run again.'
              : 'An export read through a map is checked whole before anything is sent: fix the rows named above (or the map, or a lookup file) and run the import again.',
          },
        )
      }
      return result
    }

    if (flags['dry-run']) {
      const result = await check(flags.show)
      if (result.shown && !this.jsonEnabled()) process.stdout.write(JSON.stringify(result.shown, null, 2) + '\n')
      this.note(
        `${result.file}: ${result.rows} rows, ${result.bills} bills, ${result.valid} valid${result.skipped ? `, ${result.skipped} credit notes skipped` : ''} (${result.durationMs} ms); nothing was sent.`,
      )
      return result
    }
    // An export read through a map is checked whole first: a misread format would send wrong numbers
    // from its first row on, so nothing is sent unless every row reads. stdin cannot be read twice.
    if (map && file !== '-') await check()

    const businessId = await this.businessId()
    const {api, credentials, tokens} = await this.session()
    const stdin = file === '-'
    const base = stdin ? 'bills-import' : file.replace(/\.csv$/i, '')
    const {resumeLogPathFor} = await import('../../files/resume-log.js')
    const journalFile = flags.journal ?? (stdin ? undefined : resumeLogPathFor(file))
    if (stdin && (flags.resume || flags.restart) && !flags.journal) {
      throw new InputError('--resume and --restart need a journal, and stdin has none by default', {
        hint: 'Pass --journal FILE (the same one on every run).',
      })
    }
    if (flags.restart && journalFile) await this.confirmRestart(journalFile, flags.yes)
    await this.announceWrite(`importing bills from ${stdin ? 'stdin' : file}`)
    // Bad credentials fail here, before the file is read or the journal touched.
    await tokens.get()

    const stop = new AbortController()
    const abort = new AbortController()
    let signals = 0
    const onSignal = () => {
      signals++
      if (signals === 1) {
        stop.abort()
        progress?.pause()
        process.stderr.write(
          '\nStopping: no new batches; waiting for the batches in flight (Ctrl-C again to abandon them: they become unconfirmed).\n',
        )
      } else abort.abort()
    }
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
    const {importBills} = await import('../../bills/import.js')
    // Every import records the bills it creates, per environment and business, so that a later
    // --skip-existing run (of this file or an overlapping one) knows them.
    const {openCreatedRecord} = await import('../../bills/created-record.js')
    const record = await openCreatedRecord({
      configDir: this.configDir,
      baseUrl: credentials.baseUrl,
      businessId,
      input: file,
    })
    let outcome
    try {
      outcome = await importBills({
        file,
        map,
        lookups,
        businessId,
        baseUrl: credentials.baseUrl,
        batchSize: flags['batch-size'],
        concurrency: flags.concurrency,
        maxErrors: flags['max-errors'],
        rejectsFile: flags.rejects ?? `${base}.rejects.csv`,
        unconfirmedFile: flags.unconfirmed ?? `${base}.unconfirmed.csv`,
        resultsFile: flags.results,
        journalFile,
        resume: flags.resume,
        restart: flags.restart,
        send: (bills, signal) => api.bills.create(businessId, bills, {performedBy: flags['performed-by'], signal}),
        stop: stop.signal,
        abort: abort.signal,
        warn: (line) => {
          progress?.pause()
          this.note(line)
        },
        onProgress: progress?.update,
        skipExisting: flags['skip-existing']
          ? (bill) => (bill.input.vendor_id ? record.lookup(bill.input.vendor_id, bill.number) : undefined)
          : undefined,
        onCreated: (created) =>
          record.add(created.map(({bill, id}) => ({vendorId: bill.input.vendor_id ?? '', number: bill.number, id}))),
        observe: report?.observer,
      })
    } catch (error) {
      report?.abandon()
      throw error
    } finally {
      record.close()
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
      progress?.done()
    }
    report?.finish(outcome)
    const {summary, fatal} = outcome
    if (!this.jsonEnabled()) this.printSummary(summary, fatal !== undefined)
    if (fatal) throw fatal
    if (summary.interrupted) process.exitCode = 130
    else if (summary.failed > 0 || summary.unconfirmed > 0)
      return this.partial(summary, {failed: summary.failed, unconfirmed: summary.unconfirmed}, outcome.reasons)
    return summary
  }

  /** How the file is read: the map and the flags that beat it, and the lookups. */
  private async readingOptions() {
    const {flags} = this
    const {readingOptions} = await import('../../bills/reading.js')
    return readingOptions({
      map: flags.map,
      lookup: flags.lookup,
      dateFormat: flags['date-format'],
      numberFormat: flags['number-format'],
      delimiter: flags.delimiter,
      encoding: flags.encoding,
      currency: flags.currency,
      amounts: flags.amounts,
      dueDays: flags['due-days'],
    })
  }

  /** --restart sends again what the journal records: say how much, and ask (or need --yes). */
  private async confirmRestart(journalFile: string, yes: boolean): Promise<void> {
    const {existsSync} = await import('node:fs')
    if (!existsSync(journalFile)) return
    const {readBillLog} = await import('../../bills/resume-log.js')
    const state = await readBillLog(journalFile).catch(() => undefined)
    if (state === undefined) {
      return this.confirm(
        `discard the damaged journal ${journalFile}, which may record created bills, and send every bill again?`,
        yes,
      )
    }
    const outcomes = [...state.outcomes.values()]
    const created = outcomes.filter((o) => o.kind === 'created').length
    const unconfirmed = outcomes.filter((o) => o.kind === 'unconfirmed').length
    if (created + unconfirmed === 0) return
    await this.confirm(
      `discard the journal ${journalFile} and send again ${created} bill${created === 1 ? '' : 's'} it records as created and ${unconfirmed} unconfirmed (each would exist twice)?`,
      yes,
    )
  }

  private printSummary(s: ImportSummary, stopped: boolean): void {
    const out = (line: string) => process.stdout.write(line + '\n')
    const seconds = (s.durationMs / 1000).toFixed(1)
    out(
      `${s.interrupted ? 'Interrupted' : stopped ? 'Stopped' : 'Done'}: ${s.created} created, ${s.failed} failed, ${s.unconfirmed} unconfirmed, ${s.skipped} skipped (created before${s.existing ? `; ${s.existing} by an earlier import, --skip-existing` : ''})${s.notSent ? `, ${s.notSent} not sent` : ''}; ${s.bills} bills in ${s.rows} rows, ${seconds} s.`,
    )
    if (s.rejectsFile) out(`  Failed bills (fix and import again): ${s.rejectsFile}`)
    if (s.unconfirmedFile)
      out(
        `  Unconfirmed bills (check whether they exist before importing them again; never re-sent by bk): ${s.unconfirmedFile}`,
      )
    if (s.resultsFile) out(`  Created bill ids: ${s.resultsFile}`)
    // --resume needs a journal: stdin without --journal has none, and a plain re-run would send again.
    if ((s.interrupted || s.notSent > 0) && s.journalFile)
      out(
        `  To continue: ${this.config.bin} bills import ${s.file === 'stdin' ? '-' : s.file} --resume${s.file === 'stdin' ? ` --journal ${s.journalFile}` : ''}`,
      )
  }
}

/** A one-line progress display on stderr (a TTY): rows, bills, rate and ETA. */
function progressLine(): {update: (p: ImportProgress) => void; pause: () => void; done: () => void} {
  let shown = false
  const clear = () => {
    if (shown) process.stderr.write('\r\u001B[2K')
    shown = false
  }
  return {
    update(p) {
      const secs = p.elapsedMs / 1000
      const rate = secs > 0 ? Math.round(p.bills / secs) : 0
      let eta = ''
      if (p.size && p.bytes > 0 && p.bytes < p.size) {
        const left = Math.round((secs * (p.size - p.bytes)) / p.bytes)
        eta = ` · ETA ${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`
      }
      const pct = p.size ? ` ${Math.min(100, Math.floor((p.bytes * 100) / p.size))}%` : ''
      process.stderr.write(
        `\r\u001B[2K${pct} rows ${p.rows.toLocaleString('en-US')} · bills ${p.bills.toLocaleString('en-US')} · created ${p.created.toLocaleString('en-US')} · ${rate.toLocaleString('en-US')} bills/s${eta}`,
      )
      shown = true
    },
    pause: clear,
    done() {
      if (shown) process.stderr.write('\n')
      shown = false
    },
  }
}
