import {z} from './zod.js'

import {datetime, decimalString, id, metadata, opt, tagAllocations, jsonNumber} from './common.js'
import {billPayment, invoicePayment, refundPayment} from './payments.js'
import {ID_PREFIX} from '../../shared/spec.js'

export const transactionLineItem = z.looseObject({
  id: id(ID_PREFIX.lineEntry),
  ledger_id: opt(z.string()),
  category: opt(z.string()),
  description: opt(z.string()),
  amount: opt(jsonNumber),
})

export const transaction = z.looseObject({
  id: id(ID_PREFIX.transaction),
  external_id: opt(z.string()),
  external_account_id: opt(z.string()),
  amount: opt(jsonNumber),
  datetime: opt(datetime),
  description: opt(z.string()),
  posted: opt(z.boolean()),
  type: opt(z.string()),
  reviewed: opt(z.boolean()),
  status: opt(z.string()),
  metadata_: opt(metadata),
  category: opt(z.array(z.looseObject({amount: decimalString, name: z.string()}))),
  line_items: opt(z.array(transactionLineItem)),
  invoice_payments: opt(z.array(invoicePayment)),
  refund_payments: opt(z.array(refundPayment)),
  bill_payments: opt(z.array(billPayment)),
  tags: opt(tagAllocations),
})
export type Transaction = z.infer<typeof transaction>
