import {MAX_PAGE_SIZE, REFUND_STATUSES} from '../../shared/spec.js'
import {SCOPES, requireAuth} from '../auth.js'
import {paginate} from '../cursor.js'
import {intParam, listParam, ok} from '../http.js'
import type {EmulatorContext} from './context.js'

/** The spec bounds the refund page size to 1..100 but gives no default: the general 50. */
const REFUND_DEFAULT_PAGE_SIZE = 50

/** GET …/refunds: status among pending, completed, voided (comma-separated), page_size 1..100. */
export function register({router, state}: EmulatorContext): void {
  router.add('GET', '/v0/business/:business_id/refunds', (ctx) => {
    requireAuth(state, ctx, SCOPES.refundRead)
    const businessId = ctx.params.business_id as string
    const pageSize = intParam(ctx.query, 'page_size', {min: 1, max: MAX_PAGE_SIZE, default: REFUND_DEFAULT_PAGE_SIZE})
    const status = listParam(ctx.query, 'status', REFUND_STATUSES)
    const statuses = status ? new Set<string>(status) : undefined
    return ok(
      paginate(state.refunds.all(businessId), {
        pageSize,
        pageToken: ctx.query.get('page_token'),
        filters: {status: status ?? null},
        ...(statuses ? {keep: (r) => statuses.has(r.status ?? '')} : {}),
      }),
    )
  })
}
