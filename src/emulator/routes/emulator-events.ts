/**
 * POST /_emulator/events {type, content?, business_id?}: emits any event of the spec's table on
 * demand, as `stripe trigger` does. Missing content fields are filled with plausible values, from
 * the business of the content, else `business_id`, else the first; a `business_id` the emulator
 * does not hold is 404, as is an activation's business. The business
 * events make the change the spec ties them to: a triggered BUSINESS_CREATED creates its business
 * (new, or the id given), BUSINESS_ACTIVATED leaves its business active, BUSINESS_DEACTIVATED
 * inactive, so that `businesses list` agrees with the event a listener just received. Other
 * events change no state.
 */
import {EVENT_TYPES, buildEventContent, isEventType} from '../events.js'
import {HttpError, ok, parseJsonObject} from '../http.js'
import type {EmulatorContext} from './context.js'
import type {EmulatorState} from '../state.js'
import {ID_PREFIX} from '../../shared/spec.js'

/** The business a BUSINESS_CREATED announces; one that exists already is a conflict. */
function createBusiness(state: EmulatorState, content: Record<string, unknown>): void {
  const id = String(content.business_id)
  const externalId = String(content.business_external_id)
  if (state.businesses.has(id))
    throw new HttpError(409, `Business ${id} already exists`, {field: 'content.business_id', value: id})
  const taken = [...state.businesses.values()].find((b) => b.external_id === externalId)
  if (taken)
    throw new HttpError(409, `external_id ${externalId} is already used by ${taken.id}`, {
      field: 'content.business_external_id',
      business_id: taken.id,
    })
  const at = String(content.timestamp)
  state.businesses.set(id, {
    id,
    external_id: externalId,
    name: `Business ${state.businesses.size + 1}`,
    active: true,
    created_at: at,
  })
}

export function register({router, state}: EmulatorContext): void {
  router.add('GET', '/_emulator/events', () => ok({data: EVENT_TYPES}))

  router.add('POST', '/_emulator/events', (ctx) => {
    const body = parseJsonObject(ctx.rawBody, '{type, content?, business_id?}')
    const {type, content, business_id: from} = body as {type?: unknown; content?: unknown; business_id?: unknown}
    if (!isEventType(type)) {
      throw new HttpError(422, `type must be one of ${EVENT_TYPES.join(', ')}`, {
        field: 'type',
        value: type ?? null,
        allowed: EVENT_TYPES,
      })
    }
    if (from !== undefined && (typeof from !== 'string' || !from.startsWith(ID_PREFIX.business)))
      throw new HttpError(422, `business_id: expected an id starting with ${ID_PREFIX.business}`, {
        field: 'business_id',
        value: from,
      })
    const filled = buildEventContent(state, type, content, from)
    // The business the content is filled from, and the one an activation changes, must exist:
    // an event for an unknown one, or with another business's document, announces what never
    // happened. A business_id written into other content is the caller's, kept as given.
    const changed = type === 'BUSINESS_ACTIVATED' || type === 'BUSINESS_DEACTIVATED' ? filled.business_id : undefined
    for (const id of [type === 'BUSINESS_CREATED' ? undefined : from, changed])
      if (typeof id === 'string' && !state.businesses.has(id))
        throw new HttpError(404, `Business ${id} not found`, {business_id: id})
    if (type === 'BUSINESS_CREATED') createBusiness(state, filled)
    const business = state.businesses.get(String(filled.business_id))
    if (business && type === 'BUSINESS_ACTIVATED') business.active = true
    if (business && type === 'BUSINESS_DEACTIVATED') business.active = false
    state.events.emit(type, filled)
    return ok({data: {type, content: filled}}, 202)
  })
}
