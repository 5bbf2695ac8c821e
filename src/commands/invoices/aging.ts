import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {InputError} from '../../shared/errors.js'
import {businessFlag, noPagerFlag} from '../../cli/flags.js'
import type {AgingReport} from '../../records/aging.js'

export type InvoicesAgingResult = AgingReport

export default class InvoicesAging extends BaseCommand<typeof InvoicesAging> {
  static override summary = 'What is owed and how late: outstanding invoices by days past due, per currency.'
  static override description = `Reads every invoice of the business (page by page; memory stays flat) and sums what is outstanding on each, total_amount − total_paid − credit_amount, exactly, per currency (never across currencies), in buckets of days past due on the --as-of date (UTC days; today by default): current (not yet due, or due that day), 1-30, 31-60, 61-90 and 91+ with the default --buckets 30,60,90. Void and draft invoices, and invoices with nothing outstanding, are not aged.

A table with a bar per bucket on a terminal; --output csv (one row per currency, or per customer and currency with --by customer) and --json for scripts, amounts as exact decimal strings.`

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --as-of 2026-06-30 --buckets 15,30,60,90',
    '<%= config.bin %> <%= command.id %> --by customer --output csv --file aging.csv',
    "<%= config.bin %> <%= command.id %> --jq '.totals[] | {currency, outstanding}'",
  ]

  static override flags = {
    business: businessFlag(),
    'as-of': Flags.string({
      summary: 'Age the invoices as on this date (ISO 8601; a datetime counts as its UTC day) [default: today, UTC].',
      helpValue: 'DATE',
    }),
    buckets: Flags.string({
      summary: 'The days past due each bucket ends at, ascending [default: 30,60,90].',
      helpValue: 'DAYS,…',
    }),
    by: Flags.option({
      options: ['currency', 'customer'] as const,
      summary: 'One row per currency, or per customer and currency.',
      default: 'currency',
    })(),
    output: Flags.option({
      options: ['table', 'json', 'csv'] as const,
      char: 'o',
      summary: 'Output format; a table on a terminal, json otherwise.',
    })(),
    file: Flags.string({summary: 'Write the output to this file (- for stdout).', helpValue: 'PATH'}),
    'page-size': Flags.integer({summary: 'Invoices per request (1 to 100) [default: 100].', min: 1, max: 100}),
    'no-pager': noPagerFlag(),
  }

  async run(): Promise<InvoicesAgingResult | undefined> {
    const {flags} = this
    const {AgingBuilder, agingView, parseAsOf, parseBuckets} = await import('../../records/aging.js')
    const asOf = parseAsOf(flags['as-of'])
    const days = parseBuckets(flags.buckets)
    const json = this.jsonEnabled()
    if (this.jqGiven && ((flags.output && flags.output !== 'json') || (flags.file && flags.file !== '-')))
      throw new InputError('--jq filters the JSON result on stdout: drop --output and --file', {
        details: {flag: '--jq'},
      })
    const {chooseFormat, FORMAT_NAMES, writesFile} = await import('../../output/output-format.js')
    const format = chooseFormat(flags, json, ['table', 'json', 'csv'] as const)
    const {openSink} = await import('../../output/sink.js')
    // Opened before anything is fetched: an unusable --file costs no request.
    const sink = json ? undefined : await openSink(flags.file)
    const businessId = await this.businessId()
    const {api} = await this.session()
    const builder = new AgingBuilder(asOf, days, flags.by)
    const pager = api.invoices
      .list(businessId, {pageSize: flags['page-size'] ?? 100, prefetch: true})
      .checking(agingView)
    try {
      for await (const page of pager.pages()) builder.add(page.data)
    } catch (error) {
      await sink?.abort()
      throw error
    }
    const report = builder.result()
    if (!sink) return report
    if (format === 'json') {
      await sink.write(JSON.stringify(report, null, 2) + '\n')
    } else if (format === 'csv') {
      const {agingCsv} = await import('../../records/aging-view.js')
      await sink.write(agingCsv(report))
    } else {
      const {agingTable} = await import('../../records/aging-view.js')
      const {colorWanted, terminalWidth} = await import('../../output/terminal.js')
      const {writeMaybePaged} = await import('../../output/list-writer.js')
      const text = agingTable(report, {
        width: sink.isTty ? terminalWidth() : Number.POSITIVE_INFINITY,
        color: sink.isTty && colorWanted(),
      })
      await writeMaybePaged(sink, text, {pager: sink.isTty && !flags['no-pager']})
    }
    await sink.end()
    if (writesFile(flags)) this.note(`Wrote the aging report as ${FORMAT_NAMES[format]} to ${flags.file}.`)
    return undefined
  }
}
