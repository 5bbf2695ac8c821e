import * as Flags from '@oclif/core/flags'

import {BaseCommand, type FieldsListing} from '../../cli/base-command.js'
import {InputError} from '../../shared/errors.js'
import {businessFlag, chosenFields, listFlags, splitList, summaryFlag} from '../../cli/flags.js'
import type {Invoice} from '../../api/schemas/invoice.js'
import type {ListJson} from '../../output/list-command.js'

export type InvoicesListResult = ListJson<Invoice> | FieldsListing

export default class InvoicesList extends BaseCommand<typeof InvoicesList> {
  static override summary = 'List the invoices of a business.'
  static override description =
    'One page by default, --limit N items, or --all pages streamed with flat memory. A table on a terminal (through the pager when long), JSON otherwise; --output csv writes spreadsheet-safe CSV (cells that would run as formulas get a leading apostrophe unless --raw-csv). --due-from and --due-to are inclusive ISO 8601 dates or datetimes; a date alone covers the whole day (UTC). --lines writes one row per invoice line. --fields picks the columns (and cuts JSON objects); --summary counts and totals them by status.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --status open,partially_paid',
    '<%= config.bin %> <%= command.id %> --due-from 2026-03-01 --due-to 2026-03-31 --output csv',
    '<%= config.bin %> <%= command.id %> --all --lines --output csv --file invoice-lines.csv',
    '<%= config.bin %> <%= command.id %> --fields id,number,total_amount,lines.amount --output csv',
    '<%= config.bin %> <%= command.id %> --all --jq \'map(select(.status == "open")) | length\'',
    '<%= config.bin %> <%= command.id %> --all --summary --output csv --file invoices.csv',
    '<%= config.bin %> <%= command.id %> --json --page-size 20',
  ]

  static override flags = {
    business: businessFlag(),
    status: Flags.string({
      summary: 'Only invoices in these statuses, comma-separated (e.g. open,paid).',
      helpValue: 'STATUS,…',
    }),
    'due-from': Flags.string({
      summary: 'Only invoices due at or after this ISO 8601 date or datetime.',
      helpValue: 'DATE',
    }),
    'due-to': Flags.string({
      summary: 'Only invoices due at or before this ISO 8601 date or datetime (a date covers the whole day).',
      helpValue: 'DATE',
    }),
    lines: Flags.boolean({summary: 'One row per invoice line (csv and table output).'}),
    summary: summaryFlag(),
    ...listFlags(),
  }

  async run(): Promise<InvoicesListResult | undefined> {
    const {flags} = this
    const {fieldCatalog} = await import('../../output/field-paths.js')
    const {invoice} = await import('../../api/schemas/invoice.js')
    const catalog = fieldCatalog(invoice)
    if (flags.fields === '') return this.listFields(catalog)
    const fields = await chosenFields(flags.fields, catalog, 'an invoice', 'invoices list')
    const {dueRange} = await import('../../records/due-range.js')
    const range = dueRange(flags['due-from'], flags['due-to'])
    const status = splitList(flags.status)
    const {checkOutputFlags, listFormat, pagingOptions, runList} = await import('../../output/list-command.js')
    checkOutputFlags(flags, this.jqGiven, this.jsonEnabled())
    const format = listFormat(flags, this.jsonEnabled())
    if (flags.lines && (format === 'json' || format === 'ndjson')) {
      throw new InputError(`--lines applies to csv and table output, not ${this.jsonEnabled() ? '--json' : format}`, {
        hint: 'Add --output csv (the lines are already inside each invoice in JSON).',
      })
    }
    const businessId = await this.businessId()
    const {api} = await this.session()
    const {invoiceColumns, invoiceRowField, invoiceRows, invoiceView} = await import('../../records/invoice-columns.js')
    const lines = Boolean(flags.lines)
    return runList({
      pager: api.invoices.list(businessId, {status, ...range, ...pagingOptions(flags)}),
      view: invoiceView(lines),
      flags,
      json: this.jsonEnabled(),
      columns: (f) => invoiceColumns({lines, table: f === 'table'}),
      rows: (item) => invoiceRows(item, lines),
      fields: fields && {paths: fields, catalog, get: invoiceRowField, currency: (row) => row.invoice.currency},
      summary: flags.summary
        ? new (await import('../../records/summary.js')).SummaryBuilder('total_amount', 'invoices')
        : undefined,
      collect: this.jqGiven,
      noun: ['invoice', 'invoices'],
      onMore: (token) => this.note(`More invoices: --page-token ${token}, or --all.`),
    })
  }
}
