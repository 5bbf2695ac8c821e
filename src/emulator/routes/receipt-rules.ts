import {Decimal, fitsJsonNumber} from '../../shared/money.js'
import {THRESHOLD_PATTERN} from '../../shared/spec.js'
import {SCOPES, requireAuth} from '../auth.js'
import {HttpError, ok, parseJsonBody} from '../http.js'
import type {ReceiptRequestConfig} from '../types.js'
import type {EmulatorContext} from './context.js'

/** What a business without an override starts from (spec rule 2). */
const RECEIPT_DEFAULTS: Readonly<ReceiptRequestConfig> = {is_enabled: true, threshold_amount: 0}
const FIELDS = new Set(['is_enabled', 'threshold_amount'])

/**
 * PATCH …/rules/receipts: only the fields sent change; with no override yet the omitted ones take
 * the defaults. An explicit null counts as omitted (the spec leaves it open). The answer is the
 * config itself, as the endpoint's section shows (not wrapped in `data`).
 */
export function register({router, state}: EmulatorContext): void {
  router.add('PATCH', '/v0/business/:business_id/rules/receipts', (ctx) => {
    requireAuth(state, ctx, SCOPES.businessUpdate)
    const businessId = ctx.params.business_id as string
    const body = parseJsonBody(ctx.rawBody)
    if (!body || typeof body !== 'object' || Array.isArray(body))
      throw new HttpError(422, 'The body must be a JSON object', {body})
    const fields = body as Record<string, unknown>
    const unknown = Object.keys(fields).filter((k) => !FIELDS.has(k))
    if (unknown.length)
      throw new HttpError(422, `Unknown field ${unknown.join(', ')}: expected is_enabled, threshold_amount`, {
        fields: unknown,
      })
    const next: ReceiptRequestConfig = {...(state.receiptConfigs.get(businessId) ?? RECEIPT_DEFAULTS)}
    const enabled = fields.is_enabled
    if (enabled !== undefined && enabled !== null) {
      if (typeof enabled !== 'boolean')
        throw new HttpError(422, 'is_enabled must be a boolean or null', {field: 'is_enabled', value: enabled})
      next.is_enabled = enabled
    }
    const threshold = fields.threshold_amount
    if (threshold !== undefined && threshold !== null) next.threshold_amount = parseThreshold(threshold)
    state.receiptConfigs.set(businessId, next)
    return ok(next)
  })
}

function parseThreshold(value: unknown): number {
  const bad = (why: string) => new HttpError(422, `threshold_amount ${why}`, {field: 'threshold_amount', value})
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) throw bad('must be a number >= 0')
    return value
  }
  if (typeof value !== 'string') throw bad('must be a number >= 0, a decimal string or null')
  if (!THRESHOLD_PATTERN.test(value)) throw bad(`must match ${THRESHOLD_PATTERN.source}`)
  const amount = new Decimal(value)
  if (amount.lt(0)) throw bad('must be >= 0')
  if (!fitsJsonNumber(amount)) throw bad('has more significant digits than the service keeps')
  return Number(amount.abs().toFixed())
}
