/**
 * The columns of `bk invoices list` and `bk refunds list` (docs/read-commands.md lists them).
 * Amounts are written as the service sent them: a JSON number as JavaScript prints it (its
 * shortest exact text), a decimal string unchanged; nothing is computed from them.
 */
import type {Invoice, InvoiceLine, Refund} from '../api/schemas/index.js'
import type {Column} from '../output/list-writer.js'

/** One output row of an invoice export: the invoice, and one of its lines with --lines. */
export interface InvoiceRow {
  invoice: Invoice
  line?: InvoiceLine | undefined
}

const inv = (header: string, get: (i: Invoice) => unknown): Column<InvoiceRow> => ({header, get: (r) => get(r.invoice)})
const line = (header: string, field: string): Column<InvoiceRow> => ({header, get: (r) => (r.line as Record<string, unknown> | undefined)?.[field]})

export const INVOICE_COLUMNS: Array<Column<InvoiceRow>> = [
  inv('ID', (i) => i.id),
  inv('NUMBER', (i) => i.number),
  inv('STATUS', (i) => i.status),
  inv('CUSTOMER ID', (i) => i.customer_id),
  inv('DESCRIPTION', (i) => i.description),
  inv('TOTAL AMOUNT', (i) => i.total_amount),
  inv('TOTAL PAID', (i) => i.total_paid),
  inv('CREDIT AMOUNT', (i) => i.credit_amount),
  inv('DUE AT', (i) => i.due_at),
  inv('SENT AT', (i) => i.sent_at),
  inv('VOIDED AT', (i) => i.voided_at),
  inv('SOURCE', (i) => i.source),
  inv('LINES', (i) => i.lines?.length ?? 0),
  inv('PAYMENTS', (i) => i.payments?.length ?? 0),
]

export const INVOICE_LINE_COLUMNS: Array<Column<InvoiceRow>> = [
  line('LINE ID', 'id'),
  line('LINE DESCRIPTION', 'description'),
  line('LINE LEDGER ID', 'ledger_id'),
  line('LINE AMOUNT', 'amount'),
  line('UNIT PRICE', 'unit_price'),
  line('QUANTITY', 'quantity'),
  line('DISCOUNT AMOUNT', 'discount_amount'),
  line('DISCOUNT RATE', 'discount_rate'),
  line('TAX AMOUNT', 'tax_amount'),
  line('TAX RATE', 'tax_rate'),
  line('IS PREPAYMENT', 'is_prepayment'),
]

/** The narrower table for a terminal. */
const TABLE_HEADERS = new Set(['ID', 'NUMBER', 'STATUS', 'CUSTOMER ID', 'TOTAL AMOUNT', 'TOTAL PAID', 'DUE AT'])
const TABLE_LINE_HEADERS = new Set(['LINE DESCRIPTION', 'LINE AMOUNT', 'UNIT PRICE', 'QUANTITY', 'TAX AMOUNT'])

export function invoiceColumns(options: {lines: boolean; table: boolean}): Array<Column<InvoiceRow>> {
  const head = options.table ? INVOICE_COLUMNS.filter((c) => TABLE_HEADERS.has(c.header) && !(options.lines && c.header === 'TOTAL PAID')) : INVOICE_COLUMNS
  if (!options.lines) return head
  return [...head, ...(options.table ? INVOICE_LINE_COLUMNS.filter((c) => TABLE_LINE_HEADERS.has(c.header)) : INVOICE_LINE_COLUMNS)]
}

/** One row per line; an invoice with no lines still gets one row, with empty line cells. */
export function invoiceRows(invoice: Invoice, lines: boolean): InvoiceRow[] {
  if (!lines || !invoice.lines?.length) return [{invoice}]
  return invoice.lines.map((l) => ({invoice, line: l}))
}

export const REFUND_COLUMNS: Array<Column<Refund>> = [
  {header: 'ID', get: (r) => r.id},
  {header: 'STATUS', get: (r) => r.status},
  {header: 'AMOUNT', get: (r) => r.amount},
  {header: 'AMOUNT PAID', get: (r) => r.amount_paid},
  {header: 'METHOD', get: (r) => r.method},
  {header: 'PROCESSOR', get: (r) => r.processor},
  {header: 'REFUNDED AT', get: (r) => r.refunded_at},
  {header: 'MEMO', get: (r) => r.memo},
  {header: 'EXTERNAL ID', get: (r) => r.external_id},
  {header: 'IS RETURN', get: (r) => r.is_return},
  {header: 'REFUND CREDIT', get: (r) => r.refund_credit},
  {header: 'INVOICE IDS', get: (r) => (r.refund_invoices ?? []).map((i) => i.invoice_id).filter(Boolean).join(' ')},
  {header: 'PAYMENTS', get: (r) => r.payments?.length ?? 0},
]

const REFUND_TABLE_HEADERS = new Set(['ID', 'STATUS', 'AMOUNT', 'AMOUNT PAID', 'METHOD', 'REFUNDED AT', 'MEMO'])

export function refundColumns(options: {table: boolean}): Array<Column<Refund>> {
  return options.table ? REFUND_COLUMNS.filter((c) => REFUND_TABLE_HEADERS.has(c.header)) : REFUND_COLUMNS
}
