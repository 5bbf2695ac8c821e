/**
 * The columns of `bk refunds list` (docs/read-commands.md lists them), and what they read of a
 * refund: as for invoices (src/records/invoice-columns.ts), csv and table output check only the
 * fields they print.
 */
import {refund, refundInvoice} from '../api/schemas/refund.js'
import {z} from '../api/schemas/zod.js'
import type {OutputColumn} from '../output/list-writer.js'
import {fieldMask} from './field-mask.js'

/** Column header → refund field, in column order. */
const REFUND_FIELDS = {
  ID: 'id',
  STATUS: 'status',
  AMOUNT: 'amount',
  'AMOUNT PAID': 'amount_paid',
  METHOD: 'method',
  PROCESSOR: 'processor',
  'REFUNDED AT': 'refunded_at',
  MEMO: 'memo',
  'EXTERNAL ID': 'external_id',
  'IS RETURN': 'is_return',
  'REFUND CREDIT': 'refund_credit',
} as const

/** What the refund columns read: their fields, the invoice ids of the refund invoices, and the payments they count. */
export const refundView = z.object({
  ...z.pick(refund, fieldMask([...Object.values(REFUND_FIELDS), 'currency'])).shape,
  refund_invoices: z.nullish(z.array(z.object(z.pick(refundInvoice, {invoice_id: true}).shape))),
  payments: z.nullish(z.array(z.unknown())),
})
export type RefundView = z.infer<typeof refundView>

const REFUND_COLUMNS: Array<OutputColumn<RefundView>> = [
  ...Object.entries(REFUND_FIELDS).map(([header, field]) => ({header, get: (r: RefundView) => r[field]})),
  {
    header: 'INVOICE IDS',
    get: (r) =>
      (r.refund_invoices ?? [])
        .map((i) => i.invoice_id)
        .filter(Boolean)
        .join(' '),
  },
  {header: 'PAYMENTS', get: (r) => r.payments?.length ?? 0},
]

const refundCurrency = (r: RefundView) => r.currency

/** The table for a terminal: the memo is cut first, then the method, what is paid and the date go. */
const REFUND_TABLE: Array<OutputColumn<RefundView>> = [
  {header: 'ID', get: (r) => r.id, kind: 'id'},
  {header: 'STATUS', get: (r) => r.status, kind: 'id', priority: 5},
  {header: 'AMOUNT', get: (r) => r.amount, kind: 'amount', currency: refundCurrency},
  {header: 'PAID', get: (r) => r.amount_paid, kind: 'amount', currency: refundCurrency, priority: 3},
  {header: 'METHOD', get: (r) => r.method, kind: 'text', priority: 2},
  {header: 'REFUNDED', get: (r) => r.refunded_at, kind: 'date', priority: 4},
  {header: 'MEMO', get: (r) => r.memo, kind: 'text', priority: 1},
]

export function refundColumns(options: {table: boolean}): Array<OutputColumn<RefundView>> {
  return options.table ? REFUND_TABLE : REFUND_COLUMNS
}
