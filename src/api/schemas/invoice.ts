import {z} from 'zod'

import {datetime, id, metadata, opt} from './common.js'

/** Invoice lines come in two variants: one with `amount`, one with unit, discount and tax fields. */
const invoiceLineBase = {
  id: z.string(),
  invoice_id: opt(z.string()),
  description: opt(z.string()),
  ledger_id: opt(z.string()),
  metadata_: opt(metadata),
}
export const invoiceLineAmount = z.looseObject({...invoiceLineBase, amount: z.number()})
export const invoiceLinePriced = z.looseObject({
  ...invoiceLineBase,
  unit_price: opt(z.number()),
  quantity: opt(z.number()),
  discount_amount: opt(z.number()),
  discount_rate: opt(z.number()),
  tax_amount: opt(z.number()),
  tax_rate: opt(z.number()),
  is_prepayment: opt(z.boolean()),
})
/**
 * Either variant as one schema: the priced variant has every field optional, so the union
 * accepted exactly what this does, but trying the `amount` variant first and failing on every
 * priced line cost a third of a large export's parsing time.
 */
export const invoiceLine = invoiceLinePriced.extend({amount: opt(z.number())})
export type InvoiceLine = z.infer<typeof invoiceLine>

export const invoicePayment = z.looseObject({
  id: id('inp_'),
  invoice_id: opt(z.string()),
  transaction_id: opt(z.string()),
  payment_id: opt(z.string()),
  datetime: opt(datetime),
  payment_amount: opt(z.number()),
  invoice: z.unknown().optional(),
})
export type InvoicePayment = z.infer<typeof invoicePayment>

export const invoice = z.looseObject({
  id: id('inv_'),
  business_id: opt(z.string()),
  customer_id: opt(z.string()),
  number: opt(z.string()),
  description: opt(z.string()),
  total_amount: opt(z.number()),
  total_paid: opt(z.number()),
  credit_amount: opt(z.number()),
  source: opt(z.string()),
  status: opt(z.string()),
  due_at: opt(datetime),
  sent_at: opt(datetime),
  voided_at: opt(datetime),
  metadata_: opt(metadata),
  lines: opt(z.array(invoiceLine)),
  payments: opt(z.array(invoicePayment)),
})
export type Invoice = z.infer<typeof invoice>
