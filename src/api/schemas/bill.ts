import {z} from './zod.js'

import {datetime, id, metadata, opt, tagAllocations, jsonNumber} from './common.js'
import {billPayment} from './payments.js'
import {ID_PREFIX} from '../../shared/spec.js'

export const billLineInput = z.object({
  description: opt(z.string()),
  amount: z.number(),
  ledger_id: z.string().check(z.minLength(1)),
  metadata_: opt(metadata),
})
export type BillLineInput = z.infer<typeof billLineInput>

/** Inline tags: a single value, or a list of {value, amount} allocations. */
export const tagInput = z.record(
  z.string(),
  z.union([z.string(), z.array(z.object({value: z.string(), amount: z.number()}))]),
)

export const billInput = z.object({
  business_id: opt(id(ID_PREFIX.business)),
  number: z.string().check(z.minLength(1)),
  description: opt(z.string()),
  due_at: opt(datetime),
  issued_at: opt(datetime),
  vendor_id: opt(id(ID_PREFIX.vendor)),
  lines: z.array(billLineInput).check(z.minLength(1)),
  currency: opt(z.string().check(z.length(3))),
  tags: opt(tagInput),
  metadata_: opt(metadata),
})
export type BillInput = z.infer<typeof billInput>

export const billLine = z.looseObject({
  id: id(ID_PREFIX.billLine),
  bill_id: opt(z.string()),
  description: opt(z.string()),
  ledger_id: opt(z.string()),
  amount: opt(jsonNumber),
  metadata_: opt(metadata),
})

export const bill = z.looseObject({
  id: id(ID_PREFIX.bill),
  business_id: opt(z.string()),
  vendor_id: opt(z.string()),
  number: opt(z.string()),
  description: opt(z.string()),
  total_amount: opt(jsonNumber),
  total_paid: opt(jsonNumber),
  due_at: opt(datetime),
  issued_at: opt(datetime),
  voided_at: opt(datetime),
  status: opt(z.string()),
  currency: opt(z.string()),
  metadata_: opt(metadata),
  lines: opt(z.array(billLine)),
  payments: opt(z.array(billPayment)),
  tags: opt(tagAllocations),
})
export type Bill = z.infer<typeof bill>

/**
 * The answer to a batch of bills, checked for what an import reads of it: each bill's id and
 * number, and the errors. The rest is left out, not copied: the import does not read it, checking
 * every field of 100 bills was most of the time spent on an answer, and copying the fields it
 * does not check was a tenth of everything an import allocated.
 */
export const createBillsResponse = z.object({
  data: z.array(z.object({id: id(ID_PREFIX.bill), number: opt(z.string())})),
  errors: z._default(z.array(z.object({error: z.string(), bill_number: z.nullish(z.string())})), []),
})
export type CreateBillsResponse = z.infer<typeof createBillsResponse>
