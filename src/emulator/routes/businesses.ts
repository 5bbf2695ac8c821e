import {MAX_PAGE_SIZE} from '../../shared/spec.js'
import {SCOPES, requireAuth} from '../auth.js'
import {paginate} from '../cursor.js'
import {intParam, ok} from '../http.js'
import type {EmulatorContext} from './context.js'

/** The spec's general page-size default (the invoice list has its own). */
export const DEFAULT_PAGE_SIZE = 50

/** GET /v0/business: the tenant's businesses; a business-scoped token sees only its own. */
export function register({router, state}: EmulatorContext): void {
  router.add('GET', '/v0/business', (ctx) => {
    const grant = requireAuth(state, ctx, SCOPES.businessRead)
    const pageSize = intParam(ctx.query, 'page_size', {min: 1, max: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE})
    // paginate() needs id order; businesses created later may sort anywhere among the seeded ones.
    const all = [...state.businesses.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    return ok(
      paginate(all, {
        pageSize,
        pageToken: ctx.query.get('page_token'),
        filters: {business: grant.businessId ?? null},
        keep: (b) => !grant.businessId || b.id === grant.businessId,
      }),
    )
  })
}
