import {ISO_8601_EXPECTED, parseIsoDatetime} from '../../shared/datetime.js'
import {MAX_PAGE_SIZE} from '../../shared/spec.js'
import {SCOPES, requireAuth} from '../auth.js'
import {paginate} from '../cursor.js'
import {HttpError, intParam, listParam, ok} from '../http.js'
import {INVOICE_STATUSES} from '../seed-records.js'
import type {EmulatorContext} from './context.js'

/** The invoice list's own default page size (the spec's general default is 50). */
const INVOICE_DEFAULT_PAGE_SIZE = 100

/** An ISO 8601 query parameter as epoch milliseconds; absent, empty or `null` is no bound. */
function instantParam(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name)
  if (raw === null || raw === '' || raw === 'null') return undefined
  const parsed = parseIsoDatetime(raw)
  if (!parsed.ok) throw new HttpError(422, `${name} must be ${ISO_8601_EXPECTED}`, {field: name, value: raw})
  return parsed.value.epochMs
}

/**
 * GET …/invoice: due_at_start and due_at_end inclusive, status comma-separated, page_size 1..100
 * (default 100), cursors in both directions bound to the filters they were made for.
 */
export function register({router, state}: EmulatorContext): void {
  router.add('GET', '/v0/business/:business_id/invoice', (ctx) => {
    requireAuth(state, ctx, SCOPES.invoiceRead)
    const businessId = ctx.params.business_id as string
    const pageSize = intParam(ctx.query, 'page_size', {min: 1, max: MAX_PAGE_SIZE, default: INVOICE_DEFAULT_PAGE_SIZE})
    const status = listParam(ctx.query, 'status', INVOICE_STATUSES)
    const start = instantParam(ctx.query, 'due_at_start')
    const end = instantParam(ctx.query, 'due_at_end')
    if (start !== undefined && end !== undefined && start > end) {
      throw new HttpError(422, 'due_at_start is after due_at_end', {
        due_at_start: ctx.query.get('due_at_start'),
        due_at_end: ctx.query.get('due_at_end'),
      })
    }
    const statuses = status ? new Set<string>(status) : undefined
    const byDue = start !== undefined || end !== undefined
    const filtered = statuses || byDue
    return ok(
      paginate(state.invoices.all(businessId), {
        pageSize,
        pageToken: ctx.query.get('page_token'),
        filters: {status: status ?? null, start: start ?? null, end: end ?? null},
        ...(filtered
          ? {
              keep: (inv) => {
                if (statuses && !statuses.has(inv.status ?? '')) return false
                if (!byDue) return true
                if (!inv.due_at) return false
                const due = Date.parse(inv.due_at)
                return (start === undefined || due >= start) && (end === undefined || due <= end)
              },
            }
          : {}),
      }),
    )
  })
}
