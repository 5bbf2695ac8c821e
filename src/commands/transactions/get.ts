import {Args, Flags} from '@oclif/core'

import {BaseCommand} from '../../base-command.js'
import {businessFlag} from '../../flags.js'
import type {Transaction} from '../../api/schemas/transaction.js'
import {ID_PREFIX} from '../../spec.js'

export type TransactionsGetResult = Transaction

export default class TransactionsGet extends BaseCommand<typeof TransactionsGet> {
  static override summary = 'Show one transaction: amount, status, category, line items and payments.'
  static override description =
    'A readable view for people; --json prints the whole object as the service sent it. With --include invoice_payments.invoice each invoice payment carries its invoice.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> txn_demo_invoice_payments',
    '<%= config.bin %> <%= command.id %> txn_demo_invoice_payments --include invoice_payments.invoice',
    '<%= config.bin %> <%= command.id %> txn_demo_invoice_payments --json',
  ]

  static override args = {
    id: Args.string({description: 'Transaction id (txn_…).', required: true}),
  }

  static override flags = {
    business: businessFlag(),
    include: Flags.option({
      options: ['invoice_payments.invoice'] as const,
      summary: 'Related objects to embed in the answer.',
    })(),
  }

  async run(): Promise<TransactionsGetResult> {
    const {args, flags} = this
    const {checkPrefix} = await import('../../records/entity-ids.js')
    checkPrefix('transaction id', args.id, ID_PREFIX.transaction)
    const businessId = await this.businessId()
    const {api} = await this.session()
    const txn = await api.transactions.get(businessId, args.id, {include: flags.include ? [flags.include] : undefined})
    if (!this.jsonEnabled()) {
      const {formatTransaction} = await import('../../records/transaction-view.js')
      process.stdout.write(formatTransaction(txn))
    }
    return txn
  }
}
