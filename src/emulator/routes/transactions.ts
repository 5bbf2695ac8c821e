import {ID_PREFIX, TRANSACTION_INCLUDES} from '../../shared/spec.js'
import {SCOPES, requireAuth} from '../auth.js'
import {checkPathId} from '../path-id.js'
import {HttpError, listParam, ok} from '../http.js'
import type {EmulatorContext} from './context.js'

/**
 * GET …/transactions/{transaction_id}: one transaction; with include=invoice_payments.invoice
 * each invoice payment carries its invoice (without that invoice's own back-references).
 */
export function register({router, state}: EmulatorContext): void {
  router.add('GET', '/v0/business/:business_id/transactions/:transaction_id', (ctx) => {
    requireAuth(state, ctx, SCOPES.transactionRead)
    const businessId = ctx.params.business_id as string
    const id = checkPathId('transaction_id', ctx.params.transaction_id as string, ID_PREFIX.transaction)
    const include = listParam(ctx.query, 'include', TRANSACTION_INCLUDES) ?? []
    const txn = state.transactions.get(businessId, id)
    if (!txn) throw new HttpError(404, `Transaction ${id} not found`, {transaction_id: id})
    if (!include.includes('invoice_payments.invoice') || !txn.invoice_payments) return ok({data: txn})
    const invoicePayments = txn.invoice_payments.map((p) => {
      const invoice = p.invoice_id ? state.invoices.get(businessId, p.invoice_id) : undefined
      return {...p, invoice: invoice ?? null}
    })
    return ok({data: {...txn, invoice_payments: invoicePayments}})
  })
}
