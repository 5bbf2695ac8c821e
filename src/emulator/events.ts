/**
 * The spec's event table (src/shared/webhook-events.ts) as the emulator uses it:
 * `buildEventContent`, which checks given content and fills the missing fields
 * with plausible values, for the trigger route and the business lifecycle.
 */
import {randomBytes} from 'node:crypto'

import {parseIsoDatetime} from '../shared/datetime.js'
import {HttpError} from './http.js'
import type {EmulatorState} from './state.js'
import type {BusinessRecord} from './types.js'
import {ID_PREFIX} from '../shared/spec.js'
import {EVENT_FIELDS, type EventType} from '../shared/webhook-events.js'

/** Allowed `task_types` values of a TASK_REQUEST. */
export const TASK_TYPES = [
  'categorize_transaction',
  'reconnect_account',
  'request_other_document',
  'request_receipt',
  'request_statement',
  'review_personal_transaction',
  'other',
] as const

export {EVENT_FIELDS, EVENT_TYPES, isEventType, type EventType} from '../shared/webhook-events.js'

/** UTC ISO 8601 without milliseconds, as the seed data writes timestamps. */
export function timestamp(date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z')
}

/** The content of a BUSINESS_* event for this business. */
export function businessEventContent(business: BusinessRecord, at = new Date()): Record<string, unknown> {
  return {business_id: business.id, business_external_id: business.external_id, timestamp: timestamp(at)}
}

/** A real date and time of day with a zone (Z or an offset). */
function isDatetimeWithZone(text: string): boolean {
  const parsed = parseIsoDatetime(text)
  return parsed.ok && parsed.value.time !== undefined && parsed.value.offsetMinutes !== undefined
}

/** Id prefixes the content fields must carry when given. */
const PREFIXES: Record<string, string> = {
  business_id: ID_PREFIX.business,
  document_id: ID_PREFIX.document,
  transaction_id: ID_PREFIX.transaction,
}

function invalid(field: string, value: unknown, expected: string): HttpError {
  return new HttpError(422, `content.${field}: expected ${expected}`, {field: `content.${field}`, value: value ?? null})
}

function check(type: EventType, field: string, value: unknown): void {
  if (field === 'task_types') {
    if (!Array.isArray(value) || value.length === 0)
      throw invalid(field, value, `a non-empty array of ${TASK_TYPES.join(', ')}`)
    const bad = value.find((v) => !(TASK_TYPES as readonly unknown[]).includes(v))
    if (bad !== undefined) throw invalid(field, bad, `one of ${TASK_TYPES.join(', ')}`)
    return
  }
  if (typeof value !== 'string' || value === '') throw invalid(field, value, 'a non-empty string')
  if (field === 'timestamp' && !isDatetimeWithZone(value)) throw invalid(field, value, 'an ISO 8601 datetime')
  // A statement is imported into an external account; the aggregator's account_id is its own item id.
  const prefix = field === 'account_id' && type === 'STATEMENT_IMPORTED' ? ID_PREFIX.externalAccount : PREFIXES[field]
  if (prefix && !value.startsWith(prefix)) throw invalid(field, value, `an id starting with ${prefix}`)
}

/** The first seeded business, for filling content. */
function defaultBusiness(state: EmulatorState): BusinessRecord | undefined {
  return state.businesses.values().next().value
}

function fill(
  state: EmulatorState,
  field: string,
  content: Record<string, unknown>,
  type: EventType,
  business: string | undefined,
): unknown {
  const businessId =
    typeof content.business_id === 'string' ? content.business_id : (business ?? defaultBusiness(state)?.id)
  switch (field) {
    case 'business_id':
      // A created business is a new one, not the first seeded.
      if (type === 'BUSINESS_CREATED') return state.newId(ID_PREFIX.business)
      return businessId ?? ID_PREFIX.business + randomBytes(6).toString('hex')
    case 'business_external_id':
      if (type === 'BUSINESS_CREATED') return `ext-${String(content.business_id).slice(ID_PREFIX.business.length)}`
      return (businessId && state.businesses.get(businessId)?.external_id) ?? 'ext-' + randomBytes(4).toString('hex')
    case 'timestamp':
      return timestamp()
    case 'task_types':
      return ['categorize_transaction', 'request_receipt']
    case 'account_id':
      if (type === 'STATEMENT_IMPORTED')
        return (
          (businessId && state.externalAccounts.all(businessId)[0]?.id) ??
          ID_PREFIX.externalAccount + randomBytes(6).toString('hex')
        )
      return 'item_' + randomBytes(8).toString('hex')
    case 'document_id':
      return (
        (businessId && state.documents.all(businessId)[0]?.id) ?? ID_PREFIX.document + randomBytes(6).toString('hex')
      )
    case 'transaction_id':
      return (
        (businessId && state.transactions.all(businessId)[0]?.id) ??
        ID_PREFIX.transaction + randomBytes(6).toString('hex')
      )
    default:
      return null
  }
}

/**
 * The content of an event of `type`: the given fields, checked (id prefixes, ISO 8601
 * timestamps, allowed task types, no field outside the spec's list), and every missing field
 * filled from the emulator's data (the business of the content, else `business`, else the first;
 * its external account, document and transaction) or made up.
 */
export function buildEventContent(
  state: EmulatorState,
  type: EventType,
  given: unknown = {},
  business?: string,
): Record<string, unknown> {
  if (given === null || given === undefined) given = {}
  if (typeof given !== 'object' || Array.isArray(given))
    throw new HttpError(422, 'content must be a JSON object', {field: 'content'})
  const fields: readonly string[] = EVENT_FIELDS[type]
  const input = given as Record<string, unknown>
  const extra = Object.keys(input).filter((k) => !fields.includes(k))
  if (extra.length)
    throw new HttpError(422, `${type} content has no field ${extra.join(', ')}; its fields are ${fields.join(', ')}`, {
      field: 'content',
      unknown: extra,
      allowed: fields,
    })
  for (const [field, value] of Object.entries(input)) check(type, field, value)
  const content: Record<string, unknown> = {}
  for (const field of fields)
    content[field] = field in input ? input[field] : fill(state, field, {...input, ...content}, type, business)
  return content
}
