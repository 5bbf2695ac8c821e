import {Flags} from '@oclif/core'

import {BaseCommand} from '../../base-command.js'
import {InputError} from '../../errors.js'
import {businessFlag, listFlags, splitList} from '../../flags.js'
import type {Refund} from '../../api/schemas/refund.js'
import type {ListResult} from '../../output/list-command.js'
import {REFUND_STATUSES} from '../../spec.js'

export type RefundsListResult = ListResult<Refund>

export default class RefundsList extends BaseCommand<typeof RefundsList> {
  static override summary = 'List the refunds of a business.'
  static override description =
    'One page by default, --limit N items, or --all pages streamed with flat memory. A table on a terminal, JSON otherwise; --output csv writes spreadsheet-safe CSV unless --raw-csv.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --status pending',
    '<%= config.bin %> <%= command.id %> --status completed,voided --all --output csv --file refunds.csv',
  ]

  static override flags = {
    business: businessFlag(),
    status: Flags.string({
      summary: 'Only refunds in these statuses, comma-separated: pending, completed, voided.',
      helpValue: 'STATUS,…',
    }),
    ...listFlags(),
  }

  async run(): Promise<RefundsListResult | undefined> {
    const {flags} = this
    const status = splitList(flags.status)
    const bad = status?.find((s) => !(REFUND_STATUSES as readonly string[]).includes(s))
    if (bad !== undefined)
      throw new InputError(`--status "${bad}" is not a refund status: expected ${REFUND_STATUSES.join(', ')}`, {
        details: {flag: '--status', value: bad},
      })
    const businessId = await this.businessId()
    const {api} = await this.session()
    const {pagingOptions, runList} = await import('../../output/list-command.js')
    const {refundColumns, refundView} = await import('../../records/columns.js')
    return runList({
      pager: api.refunds.list(businessId, {status, ...pagingOptions(flags)}),
      view: refundView,
      flags,
      json: this.jsonEnabled(),
      columns: (format) => refundColumns({table: format === 'table'}),
      onMore: (token) => this.note(`More refunds: --page-token ${token}, or --all.`),
    })
  }
}
