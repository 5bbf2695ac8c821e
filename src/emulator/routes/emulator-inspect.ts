/**
 * Emulator-only inspection routes, so tests and scripts can check what the service holds:
 * the bills and journal entries created, counts of every collection, reset, fault counters.
 * No token needed, never faulted (faults.ts exempts /_emulator/).
 */
import {HttpError, ok, parseJsonObject} from '../http.js'
import {seedState} from '../seed.js'
import {BusinessCollection, type EmulatorState} from '../state.js'
import type {EmulatorContext} from './context.js'

const RESET_KINDS = ['created', 'all'] as const

/** Every emulator-only route, served by GET /_emulator (docs/emulator.md has the details). */
const EMULATOR_ROUTES = [
  {
    method: 'POST',
    path: '/_emulator/businesses',
    summary: 'Create a business {name?, external_id?, active?}; emits BUSINESS_CREATED',
  },
  {
    method: 'POST',
    path: '/_emulator/businesses/{business_id}/activate',
    summary: 'Activate an inactive business; emits BUSINESS_ACTIVATED',
  },
  {
    method: 'POST',
    path: '/_emulator/businesses/{business_id}/deactivate',
    summary: 'Deactivate an active business; emits BUSINESS_DEACTIVATED',
  },
  {method: 'GET', path: '/_emulator/events', summary: 'The event types the trigger accepts'},
  {method: 'POST', path: '/_emulator/events', summary: 'Emit any event of the spec {type, content?, business_id?}'},
  {
    method: 'GET',
    path: '/_emulator/businesses/{business_id}/bills',
    summary: 'Bills created (include_seed=true for all)',
  },
  {
    method: 'GET',
    path: '/_emulator/businesses/{business_id}/journal-entries',
    summary: 'Journal entries created (include_seed=true for all)',
  },
  {method: 'GET', path: '/_emulator/counts', summary: 'Counts of every collection (business_id=… for one business)'},
  {method: 'GET', path: '/_emulator/faults', summary: 'Fault settings and how many of each kind were injected'},
  {method: 'POST', path: '/_emulator/reset', summary: 'Reset {what: "created" (default) | "all"}'},
  {
    method: 'POST',
    path: '/_emulator/fixtures',
    summary: 'Add a fixture set (businesses, vendors, ledgers, tag fields, …), whole or not at all',
  },
  {method: 'GET', path: '/_emulator/webhook', summary: 'The webhook URL in force, and since when the signing key is'},
  {
    method: 'PUT',
    path: '/_emulator/webhook',
    summary: 'Deliver webhooks to {url} from now on (bk webhooks listen does)',
  },
  {method: 'DELETE', path: '/_emulator/webhook', summary: 'Stop delivering to ?url= (back to --webhook-url)'},
] as const

/**
 * Counts of every collection of the state, by field name: a Map or Set its size, a
 * BusinessCollection its items; `tagFields` counts tag values. With a business, only what
 * belongs to it.
 */
function countState(state: EmulatorState, businessId?: string): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const [key, value] of Object.entries(state)) {
    if (key === 'tagFields') {
      const fields =
        businessId === undefined
          ? [...state.tagFields.values()]
          : [state.tagFields.get(businessId)].filter((f) => f !== undefined)
      counts.tagValues = fields.reduce(
        (n, byName) => n + [...byName.values()].reduce((m, values) => m + values.size, 0),
        0,
      )
    } else if (value instanceof BusinessCollection) {
      counts[key] = value.count(businessId)
    } else if (businessId !== undefined) {
      if (key === 'receiptConfigs') counts[key] = state.receiptConfigs.has(businessId) ? 1 : 0
    } else if (value instanceof Map || value instanceof Set) {
      counts[key] = value.size
    } else if (Array.isArray(value)) {
      counts[key] = value.length
    }
  }
  return counts
}

export function register({router, state, options, faults, webhooks}: EmulatorContext): void {
  const business = (id: string) => {
    if (!state.businesses.has(id)) throw new HttpError(404, `Business ${id} not found`, {business_id: id})
    return id
  }

  for (const [path, key] of [
    ['bills', 'bills'],
    ['journal-entries', 'journalEntries'],
  ] as const) {
    router.add('GET', `/_emulator/businesses/:business_id/${path}`, (ctx) => {
      const all = state[key].all(business(ctx.params.business_id as string)) as ReadonlyArray<{id: string}>
      const includeSeed = ctx.query.get('include_seed') === 'true'
      const items = includeSeed ? all : all.filter((item) => !state.seeded[key].has(item.id))
      return ok({data: items, count: items.length})
    })
  }

  router.add('GET', '/_emulator', () => ok({data: EMULATOR_ROUTES}))

  router.add('GET', '/_emulator/counts', (ctx) => {
    const businessId = ctx.query.get('business_id') || undefined
    return ok({data: countState(state, businessId === undefined ? undefined : business(businessId))})
  })

  router.add('GET', '/_emulator/faults', () =>
    ok({
      data: {rate: options.faultRate, seed: options.faultSeed, kinds: options.faultKinds, counts: {...faults.counts}},
    }),
  )

  // {"what": "created"} (the default) forgets the bills and journal entries created since the
  // seed; "all" goes back to the seed data with the same ids (clients and tokens are kept).
  router.add('POST', '/_emulator/reset', (ctx) => {
    const body = parseJsonObject(ctx.rawBody, '{what?}', {optional: true})
    const what = (body as {what?: unknown}).what ?? 'created'
    if (!(RESET_KINDS as readonly unknown[]).includes(what)) {
      throw new HttpError(422, `what must be one of ${RESET_KINDS.join(', ')}`, {
        field: 'what',
        value: what,
        allowed: RESET_KINDS,
      })
    }
    if (what === 'all') {
      webhooks.cancelPending()
      state.clearAll()
      seedState(state, options)
    } else {
      for (const key of ['bills', 'journalEntries'] as const) {
        const collection: BusinessCollection<{id: string}> = state[key]
        for (const businessId of state.businesses.keys()) {
          for (const item of [...collection.all(businessId)])
            if (!state.seeded[key].has(item.id)) collection.delete(businessId, item.id)
        }
      }
    }
    return ok({data: {reset: what, counts: countState(state)}})
  })
}
