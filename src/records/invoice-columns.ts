/**
 * The columns of `bk invoices list` (docs/read-commands.md lists them), and
 * what those columns read of an item: csv and table output check only the fields they print
 * (json output, which prints everything, checks everything). A field they do not print cannot
 * fail an export, and a 100,000-invoice export does not pay for checking it.
 *
 * csv writes amounts as the service sent them: a JSON number digit for digit, as a plain
 * decimal (src/output/safe-csv.ts), a decimal string unchanged; nothing is computed from them. A table shows
 * them to their currency's minor unit, right-aligned (src/output/display.ts), with short headers
 * and a priority for each column it may drop on a narrow terminal.
 */
import {invoice, invoiceLine} from '../api/schemas/invoice.js'
import {z} from '../api/schemas/zod.js'
import {valueAt} from '../output/field-paths.js'
import type {OutputColumn} from '../output/list-writer.js'
import {fieldMask} from './field-mask.js'

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

const invoiceLineView = z.object(z.pick(invoiceLine, fieldMask(Object.values(LINE_FIELDS))).shape)
export type InvoiceLineView = z.infer<typeof invoiceLineView>

/** What the invoice columns read: their fields, and the lines (each checked with --lines) and payments they count. */
export function invoiceView(lines: boolean) {
  return z.object({
    ...z.pick(invoice, fieldMask([...Object.values(INVOICE_FIELDS), 'currency'])).shape,
    lines: z.nullish(z.array(lines ? invoiceLineView : z.unknown())),
    payments: z.nullish(z.array(z.unknown())),
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

const invoiceCurrency = (r: InvoiceRow) => r.invoice.currency

/**
 * The table for a terminal: short headers; on a narrow one the customer goes first, then the
 * status and what is paid; the id, number and amounts stay.
 */
const INVOICE_TABLE: Array<OutputColumn<InvoiceRow>> = [
  {header: 'ID', get: (r) => r.invoice.id, kind: 'id'},
  {header: 'NUMBER', get: (r) => r.invoice.number, kind: 'text'},
  {header: 'STATUS', get: (r) => r.invoice.status, kind: 'id', priority: 3},
  {header: 'CUSTOMER', get: (r) => r.invoice.customer_id, kind: 'id', priority: 1},
  {header: 'TOTAL', get: (r) => r.invoice.total_amount, kind: 'amount', currency: invoiceCurrency},
  {header: 'PAID', get: (r) => r.invoice.total_paid, kind: 'amount', currency: invoiceCurrency, priority: 2},
  {header: 'DUE', get: (r) => r.invoice.due_at, kind: 'date', priority: 4},
]
const INVOICE_LINES_TABLE: Array<OutputColumn<InvoiceRow>> = [
  {header: 'ID', get: (r) => r.invoice.id, kind: 'id'},
  {header: 'NUMBER', get: (r) => r.invoice.number, kind: 'text'},
  {header: 'STATUS', get: (r) => r.invoice.status, kind: 'id', priority: 2},
  {header: 'CUSTOMER', get: (r) => r.invoice.customer_id, kind: 'id', priority: 1},
  {header: 'TOTAL', get: (r) => r.invoice.total_amount, kind: 'amount', currency: invoiceCurrency, priority: 5},
  {header: 'DUE', get: (r) => r.invoice.due_at, kind: 'date', priority: 6},
  {header: 'LINE', get: (r) => r.line?.description, kind: 'text'},
  {header: 'AMOUNT', get: (r) => r.line?.amount, kind: 'amount', currency: invoiceCurrency},
  {header: 'UNIT PRICE', get: (r) => r.line?.unit_price, kind: 'amount', currency: invoiceCurrency, priority: 7},
  {header: 'QTY', get: (r) => r.line?.quantity, kind: 'number', priority: 4},
  {header: 'TAX', get: (r) => r.line?.tax_amount, kind: 'amount', currency: invoiceCurrency, priority: 3},
]

export function invoiceColumns(options: {lines: boolean; table: boolean}): Array<OutputColumn<InvoiceRow>> {
  if (options.table) return options.lines ? INVOICE_LINES_TABLE : INVOICE_TABLE
  return options.lines ? [...INVOICE_COLUMNS, ...INVOICE_LINE_COLUMNS] : INVOICE_COLUMNS
}

/** The value of a --fields path in a row: with --lines, `lines.…` is the row's own line. */
export function invoiceRowField(row: InvoiceRow, path: string): unknown {
  if (row.line && path.startsWith('lines.')) return valueAt(row.line, path.slice('lines.'.length))
  return valueAt(row.invoice, path)
}

/** One row per line; an invoice with no lines still gets one row, with empty line cells. */
export function invoiceRows(invoice: InvoiceView, lines: boolean): InvoiceRow[] {
  if (!lines || !invoice.lines?.length) return [{invoice}]
  // With --lines the view checked each line (invoiceView(true)).
  return (invoice.lines as InvoiceLineView[]).map((line) => ({invoice, line}))
}
