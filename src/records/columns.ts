/**
 * The columns of `bk invoices list` and `bk refunds list` (docs/read-commands.md lists them), and
 * what those columns read of an item: csv and table output check only the fields they print
 * (json output, which prints everything, checks everything). A field they do not print cannot
 * fail an export, and a 100,000-invoice export does not pay for checking it.
 *
 * Amounts are written as the service sent them: a JSON number as JavaScript prints it (its
 * shortest exact text), a decimal string unchanged; nothing is computed from them.
 */
import {z} from 'zod'

import {invoice, invoiceLine} from '../api/schemas/invoice.js'
import {refund, refundInvoice} from '../api/schemas/refund.js'
import type {OutputColumn} from '../output/list-writer.js'

/** `{a: true, b: true}`, the argument of zod's pick. */
function mask<K extends string>(keys: readonly K[]): {[P in K]: true} {
  return Object.fromEntries(keys.map((k) => [k, true])) as {[P in K]: true}
}

/** Column header → invoice field, in column order. */
const INVOICE_FIELDS = {
  ID: 'id',
  NUMBER: 'number',
  STATUS: 'status',
  'CUSTOMER ID': 'customer_id',
  DESCRIPTION: 'description',
  'TOTAL AMOUNT': 'total_amount',
  'TOTAL PAID': 'total_paid',
  'CREDIT AMOUNT': 'credit_amount',
  'DUE AT': 'due_at',
  'SENT AT': 'sent_at',
  'VOIDED AT': 'voided_at',
  SOURCE: 'source',
} as const
/** Column header → invoice line field (--lines). */
const LINE_FIELDS = {
  'LINE ID': 'id',
  'LINE DESCRIPTION': 'description',
  'LINE LEDGER ID': 'ledger_id',
  'LINE AMOUNT': 'amount',
  'UNIT PRICE': 'unit_price',
  QUANTITY: 'quantity',
  'DISCOUNT AMOUNT': 'discount_amount',
  'DISCOUNT RATE': 'discount_rate',
  'TAX AMOUNT': 'tax_amount',
  'TAX RATE': 'tax_rate',
  'IS PREPAYMENT': 'is_prepayment',
} as const

const invoiceLineView = z.object(invoiceLine.pick(mask(Object.values(LINE_FIELDS))).shape)
export type InvoiceLineView = z.infer<typeof invoiceLineView>

/** What the invoice columns read: their fields, and the lines (each checked with --lines) and payments they count. */
export function invoiceView(lines: boolean) {
  return z.object({
    ...invoice.pick(mask(Object.values(INVOICE_FIELDS))).shape,
    lines: z.array(lines ? invoiceLineView : z.unknown()).nullish(),
    payments: z.array(z.unknown()).nullish(),
  })
}
export type InvoiceView = z.infer<ReturnType<typeof invoiceView>>

/** One output row of an invoice export: the invoice, and one of its lines with --lines. */
export interface InvoiceRow {
  invoice: InvoiceView
  line?: InvoiceLineView | undefined
}

const INVOICE_COLUMNS: Array<OutputColumn<InvoiceRow>> = [
  ...Object.entries(INVOICE_FIELDS).map(([header, field]) => ({header, get: (r: InvoiceRow) => r.invoice[field]})),
  {header: 'LINES', get: (r) => r.invoice.lines?.length ?? 0},
  {header: 'PAYMENTS', get: (r) => r.invoice.payments?.length ?? 0},
]

const INVOICE_LINE_COLUMNS: Array<OutputColumn<InvoiceRow>> = Object.entries(LINE_FIELDS).map(([header, field]) => ({
  header,
  get: (r) => r.line?.[field],
}))

/** The narrower table for a terminal. */
const TABLE_HEADERS = new Set(['ID', 'NUMBER', 'STATUS', 'CUSTOMER ID', 'TOTAL AMOUNT', 'TOTAL PAID', 'DUE AT'])
const TABLE_LINE_HEADERS = new Set(['LINE DESCRIPTION', 'LINE AMOUNT', 'UNIT PRICE', 'QUANTITY', 'TAX AMOUNT'])

export function invoiceColumns(options: {lines: boolean; table: boolean}): Array<OutputColumn<InvoiceRow>> {
  const head = options.table
    ? INVOICE_COLUMNS.filter((c) => TABLE_HEADERS.has(c.header) && !(options.lines && c.header === 'TOTAL PAID'))
    : INVOICE_COLUMNS
  if (!options.lines) return head
  return [
    ...head,
    ...(options.table ? INVOICE_LINE_COLUMNS.filter((c) => TABLE_LINE_HEADERS.has(c.header)) : INVOICE_LINE_COLUMNS),
  ]
}

/** One row per line; an invoice with no lines still gets one row, with empty line cells. */
export function invoiceRows(invoice: InvoiceView, lines: boolean): InvoiceRow[] {
  if (!lines || !invoice.lines?.length) return [{invoice}]
  // With --lines the view checked each line (invoiceView(true)).
  return (invoice.lines as InvoiceLineView[]).map((line) => ({invoice, line}))
}

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
  ...refund.pick(mask(Object.values(REFUND_FIELDS))).shape,
  refund_invoices: z.array(z.object(refundInvoice.pick({invoice_id: true}).shape)).nullish(),
  payments: z.array(z.unknown()).nullish(),
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

const REFUND_TABLE_HEADERS = new Set(['ID', 'STATUS', 'AMOUNT', 'AMOUNT PAID', 'METHOD', 'REFUNDED AT', 'MEMO'])

export function refundColumns(options: {table: boolean}): Array<OutputColumn<RefundView>> {
  return options.table ? REFUND_COLUMNS.filter((c) => REFUND_TABLE_HEADERS.has(c.header)) : REFUND_COLUMNS
}
