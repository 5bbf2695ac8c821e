import {z} from './zod.js'

import {datetime, id, opt, jsonNumber} from './common.js'
import {refundPayment} from './payments.js'
import {ID_PREFIX, REFUND_STATUSES} from '../../shared/spec.js'
export const refundStatus = z.enum(REFUND_STATUSES)

export const refundInvoice = z.looseObject({
  id: id(ID_PREFIX.refundInvoice),
  external_id: opt(z.string()),
  amount: opt(jsonNumber),
  memo: opt(z.string()),
  invoice_id: opt(z.string()),
  invoice_line_id: opt(z.string()),
})

export const refund = z.looseObject({
  id: id(ID_PREFIX.refund),
  business_id: opt(z.string()),
  external_id: opt(z.string()),
  amount: opt(jsonNumber),
  amount_paid: opt(jsonNumber),
  memo: opt(z.string()),
  /** Not in the spec's table; kept and used (--summary, table amounts) when the service sends it. */
  currency: opt(z.string()),
  processor: opt(z.string()),
  method: opt(z.string()),
  is_return: opt(z.boolean()),
  refund_credit: opt(z.boolean()),
  refunded_at: opt(datetime),
  status: opt(refundStatus),
  payments: opt(z.array(refundPayment)),
  refund_invoices: opt(z.array(refundInvoice)),
})
export type Refund = z.infer<typeof refund>
