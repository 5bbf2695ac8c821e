import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'

import {BaseCommand, type FieldsListing} from '../../cli/base-command.js'
import {businessFlag, chosenFields, fieldsFlag} from '../../cli/flags.js'
import type {Transaction} from '../../api/schemas/transaction.js'
import {ID_PREFIX} from '../../shared/spec.js'

export type TransactionsGetResult = Transaction | FieldsListing

export default class TransactionsGet extends BaseCommand<typeof TransactionsGet> {
  static override summary = 'Show one transaction: amount, status, category, line items and payments.'
  static override description =
    'A readable view for people; --json prints the whole object as the service sent it, --fields only the fields named (`--fields` alone lists them). With --include invoice_payments.invoice each invoice payment carries its invoice.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> txn_demo_invoice_payments',
    '<%= config.bin %> <%= command.id %> txn_demo_invoice_payments --include invoice_payments.invoice',
    '<%= config.bin %> <%= command.id %> txn_demo_invoice_payments --json',
    '<%= config.bin %> <%= command.id %> txn_demo_invoice_payments --fields id,amount,invoice_payments.invoice_id',
  ]

  static override args = {
    id: Args.string({description: 'Transaction id (txn_…).'}),
  }

  static override flags = {
    business: businessFlag(),
    include: Flags.option({
      options: ['invoice_payments.invoice'] as const,
      summary: 'Related objects to embed in the answer.',
    })(),
    fields: fieldsFlag(),
  }

  async run(): Promise<TransactionsGetResult> {
    const {args, flags} = this
    const {fieldCatalog} = await import('../../output/field-paths.js')
    const {transaction} = await import('../../api/schemas/transaction.js')
    const catalog = fieldCatalog(transaction)
    if (flags.fields === '') return this.listFields(catalog)
    const fields = await chosenFields(flags.fields, catalog, 'a transaction', 'transactions get')
    const {checkPrefix, requireArgument} = await import('../../records/entity-ids.js')
    const id = requireArgument('transaction id', args.id, 'bk transactions get txn_…')
    checkPrefix('transaction id', id, ID_PREFIX.transaction)
    const businessId = await this.businessId()
    const {api} = await this.session()
    const txn = await api.transactions.get(businessId, id, {include: flags.include ? [flags.include] : undefined})
    if (fields) {
      const {projector} = await import('../../output/field-paths.js')
      const chosen = projector(fields)(txn) as Transaction
      if (!this.jsonEnabled()) {
        const {formatFields} = await import('../../output/field-view.js')
        process.stdout.write(formatFields(chosen, fields, catalog))
      }
      return chosen
    }
    if (!this.jsonEnabled()) {
      const {formatTransaction} = await import('../../records/transaction-view.js')
      const {colorWanted, terminalWidth} = await import('../../output/terminal.js')
      const tty = Boolean(process.stdout.isTTY)
      process.stdout.write(
        formatTransaction(txn, {width: tty ? terminalWidth() : Number.POSITIVE_INFINITY, color: tty && colorWanted()}),
      )
    }
    return txn
  }
}
