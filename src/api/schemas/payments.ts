/**
 * The payments each record lists, in a module of their own: a transaction embeds all three kinds,
 * and building them should not build the bills', invoices' and refunds' other schemas.
 */
import {z} from './zod.js'

import {datetime, decimalString, id, opt, jsonNumber} from './common.js'
import {ID_PREFIX} from '../../shared/spec.js'

export const billPayment = z.looseObject({
  id: id(ID_PREFIX.billPayment),
  bill_id: opt(z.string()),
  payment_id: opt(z.string()),
  datetime: opt(datetime),
  payment_amount: opt(decimalString),
  transaction_id: opt(z.string()),
  credit_journal_entry_id: opt(z.string()),
  vendor_credit_id: opt(z.string()),
  bill: z.optional(z.unknown()),
})

export const invoicePayment = z.looseObject({
  id: id(ID_PREFIX.invoicePayment),
  invoice_id: opt(z.string()),
  transaction_id: opt(z.string()),
  payment_id: opt(z.string()),
  datetime: opt(datetime),
  payment_amount: opt(jsonNumber),
  invoice: z.optional(z.unknown()),
})
export type InvoicePayment = z.infer<typeof invoicePayment>

export const refundPayment = z.looseObject({
  id: id(ID_PREFIX.refundPayment),
  amount: opt(jsonNumber),
  transaction_id: opt(z.string()),
})
