/**
 * The constants of the service's API that both sides of bk use: the client (`src/api`, the
 * commands and their modules) and the emulator (`src/emulator`). They live here, in a leaf that
 * imports nothing, so that the emulator never reaches into the client's modules and the two
 * cannot drift apart. Each one is what `../shared/spec/bookkeeping-api.md` says or, where the
 * spec leaves a gap, what bk assumes (docs/decisions.md).
 */

/** Identifier kind prefixes (spec, Conventions). */
export const ID_PREFIX = {
  business: 'biz_',
  vendor: 'ven_',
  bill: 'bil_',
  billLine: 'bln_',
  billPayment: 'blp_',
  ledger: 'ldg_',
  tagValue: 'tv_',
  journalEntry: 'je_',
  lineEntry: 'le_',
  transaction: 'txn_',
  externalAccount: 'eac_',
  document: 'doc_',
  task: 'tsk_',
  refund: 'rfu_',
  refundPayment: 'rfp_',
  refundInvoice: 'rfi_',
  invoice: 'inv_',
  invoicePayment: 'inp_',
  invoiceLine: 'inl_',
  /** Not in the spec's list (customer records are shown by id only): bk's assumption. */
  customer: 'cus_',
} as const

/** What follows an id's prefix: letters, digits, `_` or `-` (the spec calls it opaque; ids go into paths). */
export const ID_SUFFIX = /^[A-Za-z0-9_-]+$/

/** The most items one page of any list holds (spec, Limits: page_size maximum). */
export const MAX_PAGE_SIZE = 100

/** The bound attached to the body of POST …/bills: at most this many bills per request. */
export const MAX_BILLS_PER_REQUEST = 100
/** The optional header naming who performed a creation; the spec leaves it unnamed. */
export const PERFORMED_BY_HEADER = 'x-external-entity-id'

/** The kinds of entity a document can be unlinked from: external accounts, transactions, journal entries. */
export const UNLINKABLE_PREFIXES = [ID_PREFIX.externalAccount, ID_PREFIX.transaction, ID_PREFIX.journalEntry] as const
/** The query parameter of the ids to unlink a document from; the spec leaves it unnamed. */
export const ENTITY_IDS_PARAM = 'entity_ids'

/** The values of `include` on GET …/transactions/{transaction_id}. */
export const TRANSACTION_INCLUDES = ['invoice_payments.invoice'] as const

/** Refund statuses, the one complete status list of the spec. */
export const REFUND_STATUSES = ['pending', 'completed', 'voided'] as const

/**
 * A decimal-string `threshold_amount` of PATCH …/rules/receipts (a number >= 0 is the other
 * form): digits with at most one point and an optional sign, not sign or point alone.
 */
export const THRESHOLD_PATTERN = /^(?!^[-+.]*$)[+-]?0*\d*\.?\d*$/

/** Webhook notification statuses (the `status` filter of the notification list). */
export const WEBHOOK_STATUSES = ['pending', 'sent', 'error'] as const
/** The past notifications, for replay. */
export const NOTIFICATIONS_PATH = '/v0/tenant/webhook/notifications'
/** The key set that verifies webhook signatures, under the base URL. */
export const JWKS_PATH = '/.well-known/jwks.json'
/** The header of a delivery's notification id (the signed text is `svc-id + "." + body`). */
export const WEBHOOK_ID_HEADER = 'svc-id'
/** The header of a delivery's signature. */
export const WEBHOOK_SIGNATURE_HEADER = 'svc-signature'
