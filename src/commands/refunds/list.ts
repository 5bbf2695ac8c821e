import * as Flags from '@oclif/core/flags'

import {BaseCommand, type FieldsListing} from '../../cli/base-command.js'
import {businessFlag, chosenFields, closedList, listFlags, summaryFlag} from '../../cli/flags.js'
import type {Refund} from '../../api/schemas/refund.js'
import type {ListJson} from '../../output/list-command.js'
import {REFUND_STATUSES} from '../../shared/spec.js'

export type RefundsListResult = ListJson<Refund> | FieldsListing

export default class RefundsList extends BaseCommand<typeof RefundsList> {
  static override summary = 'List the refunds of a business.'
  static override description =
    'One page by default, --limit N items, or --all pages streamed with flat memory. A table on a terminal (through the pager when long), JSON otherwise; --output csv writes spreadsheet-safe CSV unless --raw-csv. --fields picks the columns (and cuts JSON objects); --summary counts and totals them by status.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --status pending',
    '<%= config.bin %> <%= command.id %> --status completed,voided --all --output csv --file refunds.csv',
    '<%= config.bin %> <%= command.id %> --all --summary',
    '<%= config.bin %> <%= command.id %> --fields id,amount,refund_invoices.invoice_id --json',
  ]

  static override flags = {
    business: businessFlag(),
    status: Flags.string({
      summary: 'Only refunds in these statuses, comma-separated: pending, completed, voided.',
      helpValue: 'STATUS,…',
    }),
    summary: summaryFlag(),
    ...listFlags(),
  }

  async run(): Promise<RefundsListResult | undefined> {
    const {flags} = this
    const {fieldCatalog} = await import('../../output/field-paths.js')
    const {refund} = await import('../../api/schemas/refund.js')
    const catalog = fieldCatalog(refund)
    if (flags.fields === '') return this.listFields(catalog)
    const fields = await chosenFields(flags.fields, catalog, 'a refund', 'refunds list')
    const status = closedList(flags.status, REFUND_STATUSES, 'refund status in --status', 'bk refunds list')
    const {checkOutputFlags, pagingOptions, runList} = await import('../../output/list-command.js')
    checkOutputFlags(flags, this.jqGiven, this.jsonEnabled())
    const businessId = await this.businessId()
    const {api} = await this.session()
    const {refundColumns, refundView} = await import('../../records/refund-columns.js')
    return runList({
      pager: api.refunds.list(businessId, {status, ...pagingOptions(flags)}),
      view: refundView,
      flags,
      json: this.jsonEnabled(),
      columns: (format) => refundColumns({table: format === 'table'}),
      fields: fields && {paths: fields, catalog, currency: (row) => (row as {currency?: string | null}).currency},
      summary: flags.summary
        ? new (await import('../../records/summary.js')).SummaryBuilder('amount', 'refunds')
        : undefined,
      collect: this.jqGiven,
      noun: ['refund', 'refunds'],
      onMore: (token) => this.note(`More refunds: --page-token ${token}, or --all.`),
    })
  }
}
