/**
 * Emulator-only business lifecycle (the spec does not show the operations that create, activate
 * or deactivate a business): each change emits its BUSINESS_* event through `state.events`.
 * No token needed, never faulted.
 */
import {businessEventContent} from '../events.js'
import {HttpError, ok, parseJsonObject} from '../http.js'
import type {BusinessRecord} from '../types.js'
import type {EmulatorContext} from './context.js'
import {ID_PREFIX} from '../../shared/spec.js'

interface CreateInput {
  name?: unknown
  external_id?: unknown
  active?: unknown
}

function optionalString(input: CreateInput, field: 'name' | 'external_id'): string | undefined {
  const value = input[field]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string' || value.trim() === '')
    throw new HttpError(422, `${field} must be a non-empty string`, {field, value})
  return value
}

export function register({router, state}: EmulatorContext): void {
  router.add('POST', '/_emulator/businesses', (ctx) => {
    const input = parseJsonObject(ctx.rawBody, '{name?, external_id?, active?}', {optional: true}) as CreateInput
    const id = state.newId(ID_PREFIX.business)
    const name = optionalString(input, 'name') ?? `Business ${state.businesses.size + 1}`
    const externalId = optionalString(input, 'external_id') ?? `ext-${id.slice(4)}`
    if (input.active !== undefined && typeof input.active !== 'boolean')
      throw new HttpError(422, 'active must be a boolean', {field: 'active', value: input.active})
    const taken = [...state.businesses.values()].find((b) => b.external_id === externalId)
    if (taken)
      throw new HttpError(409, `external_id ${externalId} is already used by ${taken.id}`, {
        field: 'external_id',
        business_id: taken.id,
      })
    const business: BusinessRecord = {
      id,
      external_id: externalId,
      name,
      active: input.active ?? true,
      created_at: new Date().toISOString(),
    }
    state.businesses.set(id, business)
    state.events.emit('BUSINESS_CREATED', businessEventContent(business))
    return ok({data: business}, 201)
  })

  for (const [action, active, event] of [
    ['activate', true, 'BUSINESS_ACTIVATED'],
    ['deactivate', false, 'BUSINESS_DEACTIVATED'],
  ] as const) {
    router.add('POST', `/_emulator/businesses/:business_id/${action}`, (ctx) => {
      const businessId = ctx.params.business_id as string
      const business = state.businesses.get(businessId)
      if (!business) throw new HttpError(404, `Business ${businessId} not found`, {business_id: businessId})
      // The spec's transitions start from the other state; repeating one is a conflict, not a no-op.
      if (business.active === active) {
        throw new HttpError(409, `Business ${businessId} is already ${active ? 'active' : 'inactive'}`, {
          business_id: businessId,
          active,
        })
      }
      business.active = active
      state.events.emit(event, businessEventContent(business))
      return ok({data: business})
    })
  }
}
