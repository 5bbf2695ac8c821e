/**
 * POST /_emulator/events {type, content?}: emits any event of the spec's table on demand, as
 * `stripe trigger` does. Missing content fields are filled with plausible values. The business
 * events the spec ties to a transition make it: a triggered BUSINESS_ACTIVATED leaves its business
 * active, BUSINESS_DEACTIVATED inactive (as the spec's table says), so that `businesses list`
 * agrees with the event a listener just received. Other events change no state.
 */
import {EVENT_TYPES, buildEventContent, isEventType} from '../events.js'
import {HttpError, ok, parseJsonObject} from '../http.js'
import type {EmulatorContext} from './context.js'

export function register({router, state}: EmulatorContext): void {
  router.add('GET', '/_emulator/events', () => ok({data: EVENT_TYPES}))

  router.add('POST', '/_emulator/events', (ctx) => {
    const {type, content} = parseJsonObject(ctx.rawBody, '{type, content?}') as {type?: unknown; content?: unknown}
    if (!isEventType(type)) {
      throw new HttpError(422, `type must be one of ${EVENT_TYPES.join(', ')}`, {
        field: 'type',
        value: type ?? null,
        allowed: EVENT_TYPES,
      })
    }
    const filled = buildEventContent(state, type, content)
    const business = state.businesses.get(String(filled.business_id))
    if (business && type === 'BUSINESS_ACTIVATED') business.active = true
    if (business && type === 'BUSINESS_DEACTIVATED') business.active = false
    state.events.emit(type, filled)
    return ok({data: {type, content: filled}}, 202)
  })
}
