import {z} from './zod.js'

import {id, jsonNumber, opt} from './common.js'
import {moneyOf} from '../../shared/money.js'
import {ID_PREFIX, THRESHOLD_PATTERN} from '../../shared/spec.js'

/** The spec shows no fields of the business record beyond its id. */
export const business = z.looseObject({id: id(ID_PREFIX.business)})
export type Business = z.infer<typeof business>

export const receiptRequestConfig = z.looseObject({
  is_enabled: z.boolean(),
  // An amount: read exactly, whatever digits the service writes (numberText prints it); -0 is 0.
  threshold_amount: jsonNumber.check(z.refine((value) => !moneyOf(value).lt(0), {message: 'expected 0 or more'})),
})
export type ReceiptRequestConfig = z.infer<typeof receiptRequestConfig>

/** PATCH body: every field optional; the threshold a number >= 0 or a decimal string. */
export const receiptRequestConfigUpdate = z.object({
  is_enabled: opt(z.boolean()),
  threshold_amount: opt(z.union([z.number().check(z.gte(0)), z.string().check(z.regex(THRESHOLD_PATTERN))])),
})
export type ReceiptRequestConfigUpdate = z.infer<typeof receiptRequestConfigUpdate>
