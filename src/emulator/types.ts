/**
 * The shapes the emulator's modules share, in one module of types that imports none of them, so
 * that no cycle runs through the modules that use them (state, auth, router, the webhook hub):
 * - the records the service holds, as the emulator stores and serves them (the spec's fields,
 *   every one present; `null` where the spec's record has no value). They are the emulator's own,
 *   not the client's schemas in src/api/schemas (which accept what any service may send): the
 *   emulator is a second reading of the spec, and it must not lean on the client it tests;
 * - the emulator's own records (businesses, reference data, documents, tasks, notifications);
 * - how the parts meet: a token's grant, a request as the routes see it, the event sink.
 */
import type {IncomingHttpHeaders} from 'node:http'

import type {REFUND_STATUSES, WEBHOOK_STATUSES} from '../shared/spec.js'

export type Metadata = Record<string, unknown>
/** Per tag field, the values a record is allocated to, amounts as decimal strings. */
export type TagAllocations = Record<string, Array<{amount: string; value: string}>>

// ---------------------------------------------------------------------------------------------
// Bills

export interface BillLine {
  id: string
  bill_id: string
  description: string | null
  ledger_id: string
  amount: number
  metadata_: Metadata
}

export interface BillPayment {
  id: string
  bill_id: string
  payment_id: string | null
  datetime: string | null
  /** A decimal string. */
  payment_amount: string | null
  transaction_id: string | null
  credit_journal_entry_id: string | null
  vendor_credit_id: string | null
}

export interface Bill {
  id: string
  business_id: string
  vendor_id: string
  number: string
  description: string | null
  total_amount: number
  total_paid: number
  due_at: string | null
  issued_at: string | null
  voided_at: string | null
  status: string
  currency: string | null
  metadata_: Metadata
  lines: BillLine[]
  payments: BillPayment[]
  tags: TagAllocations
}

// ---------------------------------------------------------------------------------------------
// Journal entries

export interface LineEntry {
  id: string
  journal_entry_id: string
  transaction_id: string | null
  ledger_id: string
  description: string
  debit_credit: 'debit' | 'credit'
  /** A positive decimal string, exactly as received. */
  amount: string
  tag_value_ids: string[]
}

export interface JournalEntry {
  id: string
  business_id: string
  description: string
  clean_description: string
  datetime: string
  is_reconciled: boolean
  review_status: string
  basis: string
  transaction_id: string | null
  categorization_method: string
  invoice_id: string | null
  line_entries: LineEntry[]
}

// ---------------------------------------------------------------------------------------------
// Invoices

interface InvoiceLineCommon {
  id: string
  invoice_id: string
  description: string
  ledger_id: string
  metadata_: Metadata
}

/** The spec's two invoice-line variants: an `amount`, or a unit price with discount and tax. */
export type InvoiceLine =
  | (InvoiceLineCommon & {amount: number})
  | (InvoiceLineCommon & {
      unit_price: number
      quantity: number
      discount_amount: number
      discount_rate: number
      tax_amount: number
      tax_rate: number
      is_prepayment: boolean
    })

export interface InvoicePayment {
  id: string
  invoice_id: string
  transaction_id: string
  payment_id: string
  datetime: string
  payment_amount: number
}

export interface Invoice {
  id: string
  business_id: string
  customer_id: string
  number: string
  description: string
  total_amount: number
  total_paid: number
  credit_amount: number
  source: string
  status: string
  due_at: string
  sent_at: string | null
  voided_at: string | null
  metadata_: Metadata
  lines: InvoiceLine[]
  payments: InvoicePayment[]
}

// ---------------------------------------------------------------------------------------------
// Transactions and refunds

export interface TransactionLineItem {
  id: string
  ledger_id: string
  category: string
  description: string
  amount: number
}

export interface RefundPayment {
  id: string
  amount: number
  transaction_id: string
}

export interface Transaction {
  id: string
  external_id: string
  external_account_id: string
  amount: number
  datetime: string
  description: string
  posted: boolean
  type: string
  reviewed: boolean
  status: string
  metadata_: Metadata
  /** Category splits, amounts as decimal strings. */
  category: Array<{amount: string; name: string}>
  line_items: TransactionLineItem[]
  invoice_payments: InvoicePayment[] | null
  refund_payments: RefundPayment[] | null
  bill_payments: BillPayment[] | null
  tags: TagAllocations
}

export interface RefundInvoice {
  id: string
  external_id: string
  amount: number
  memo: string
  invoice_id: string
  invoice_line_id: string | null
}

export interface Refund {
  id: string
  business_id: string
  external_id: string
  amount: number
  amount_paid: number
  memo: string
  processor: string
  method: string
  is_return: boolean
  refund_credit: boolean
  refunded_at: string
  status: (typeof REFUND_STATUSES)[number]
  payments: RefundPayment[]
  refund_invoices: RefundInvoice[]
}

// ---------------------------------------------------------------------------------------------
// Business settings

/** A business's receipt-request override (PATCH …/rules/receipts). */
export interface ReceiptRequestConfig {
  is_enabled: boolean
  threshold_amount: number
}

// ---------------------------------------------------------------------------------------------
// The emulator's own records

export interface BusinessRecord {
  id: string
  external_id: string
  name: string
  active: boolean
  created_at: string
}

/** Vendors, customers, ledgers and external accounts: what bills and the seed refer to. */
export interface NamedRecord {
  id: string
  business_id: string
  name: string
}

export interface DocumentRecord {
  id: string
  business_id: string
  name: string
  /** Ids of the external accounts, transactions and journal entries the document is linked to. */
  associations: Set<string>
}

export interface TaskRecord {
  id: string
  business_id: string
  type: string
  status: string
}

export type NotificationStatus = (typeof WEBHOOK_STATUSES)[number]

export interface DeliveryAttempt {
  /** When the attempt started (ms since the epoch). */
  at: number
  /** The delay it waited after the previous attempt, already scaled (0 for the first). */
  delayMs: number
  /** The HTTP status received, or null for a timeout or connection failure. */
  status: number | null
  error?: string
}

/** A webhook notification and its deliveries (src/emulator/webhooks/hub.ts). */
export interface WebhookNotificationRecord {
  /** The svc-id of its deliveries. */
  id: string
  createdAt: string
  sentAt: string | null
  status: NotificationStatus
  /** The original message. */
  notification: {type: string; content: Record<string, unknown>}
  /** The message as delivered and signed. */
  body: string
  attempts: DeliveryAttempt[]
}

// ---------------------------------------------------------------------------------------------
// How the parts meet

/** What a bearer token allows (src/emulator/auth.ts). */
export interface Grant {
  clientId: string
  businessId?: string | undefined
  /** Undefined: every scope. */
  scopes?: ReadonlySet<string> | undefined
  expiresAt: number
}

/** A request as a route handler sees it (src/emulator/router.ts). */
export interface RequestContext {
  method: string
  path: string
  params: Record<string, string>
  query: URLSearchParams
  headers: IncomingHttpHeaders
  /** The raw body text ('' when none). */
  rawBody: string
  /** The bearer token's grant, set by `requireAuth` in auth.ts. */
  grant?: Grant
}

/** Receives the service's events; the webhook hub delivers them (src/emulator/webhooks). */
export interface EventSink {
  emit(type: string, content: Record<string, unknown>): void
}
