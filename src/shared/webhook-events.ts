/**
 * The spec's event table (Events, "Event kinds and content"): each type with its content fields,
 * in the spec's order. The emulator emits these; `bk webhooks listen --events` takes only these.
 */

const AGGREGATOR = ['business_id', 'timestamp', 'account_id'] as const
const BUSINESS = ['business_id', 'business_external_id', 'timestamp'] as const

/** Every event type of the spec with its content fields, in the spec's order. */
export const EVENT_FIELDS = {
  AGGREGATOR_ACCOUNT_CONNECTED: AGGREGATOR,
  AGGREGATOR_ACCOUNT_DISCONNECTED: AGGREGATOR,
  AGGREGATOR_ACCOUNT_EXPIRED: AGGREGATOR,
  AGGREGATOR_SYNC_STARTED: AGGREGATOR,
  AGGREGATOR_TRANSACTIONS_SYNCED: AGGREGATOR,
  ACCOUNT_BALANCE_UPDATED: AGGREGATOR,
  TASK_REQUEST: ['business_id', 'task_types'],
  TASKS_REQUEST_COMPLETED: ['business_id', 'timestamp'],
  BUSINESS_CREATED: BUSINESS,
  BUSINESS_ACTIVATED: BUSINESS,
  BUSINESS_DEACTIVATED: BUSINESS,
  RECEIPT_MATCHED: ['document_id', 'transaction_id', 'timestamp'],
  STATEMENT_IMPORTED: ['business_id', 'account_id', 'document_id', 'timestamp'],
} as const satisfies Record<string, readonly string[]>

export type EventType = keyof typeof EVENT_FIELDS
export const EVENT_TYPES = Object.keys(EVENT_FIELDS) as EventType[]

export function isEventType(type: unknown): type is EventType {
  return typeof type === 'string' && Object.hasOwn(EVENT_FIELDS, type)
}
