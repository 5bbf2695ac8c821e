/**
 * OAuth client credentials of the emulator: tokens with a lifetime, optionally limited to one
 * business and to a set of scopes; `requireAuth` checks a request's token against both.
 */
import {randomBytes} from 'node:crypto'

import {HttpError} from './http.js'
import type {EmulatorState} from './state.js'
import type {Grant, RequestContext} from './types.js'

/**
 * The scope each endpoint needs. The spec names the scope of six endpoints; the four it leaves
 * unnamed (business list, invoice list, refund list, notifications) use a `:read` scope of their
 * resource (docs/decisions.md).
 */
export const SCOPES = {
  businessRead: 'business:read',
  businessUpdate: 'business:update',
  billCreate: 'bill:create',
  journalEntryCreate: 'journal_entry:create',
  transactionRead: 'transaction:read',
  documentDelete: 'document:delete',
  requestDelete: 'request:delete',
  invoiceRead: 'invoice:read',
  refundRead: 'refund:read',
  webhookRead: 'webhook:read',
} as const

export interface TokenOptions {
  ttlSeconds: number
}

export function issueToken(
  state: EmulatorState,
  form: URLSearchParams,
  options: TokenOptions,
): {access_token: string; token_type: string; expires_in: number} {
  const clientId = form.get('client_id')
  const clientSecret = form.get('client_secret')
  if (!clientId || !clientSecret)
    throw new HttpError(422, 'client_id and client_secret are required', {fields: ['client_id', 'client_secret']})
  if (state.clients.get(clientId) !== clientSecret) throw new HttpError(401, 'Invalid client credentials')
  const businessId = form.get('business_id') || undefined
  if (businessId && !state.businesses.has(businessId))
    throw new HttpError(404, `Business ${businessId} not found`, {business_id: businessId})
  const scopeText = form.get('scope')?.trim()
  const scopes = scopeText ? new Set(scopeText.split(/\s+/)) : undefined
  if (scopes) {
    // The spec's scope list is not complete, so any <resource>:<action> name is accepted.
    const unknown = [...scopes].filter((s) => !/^[a-z_]+:[a-z_]+$/.test(s))
    if (unknown.length)
      throw new HttpError(422, `Invalid scope ${unknown.join(', ')}: scopes are written <resource>:<action>`, {
        scope: unknown,
      })
  }
  const token = 'emu_' + randomBytes(24).toString('base64url')
  state.tokens.set(token, {clientId, businessId, scopes, expiresAt: state.now() + options.ttlSeconds * 1000})
  return {access_token: token, token_type: 'Bearer', expires_in: options.ttlSeconds}
}

/**
 * Checks the bearer token: 401 when missing, unknown or expired; 403 when it lacks the scope or
 * is limited to another business; 404 when the business does not exist.
 */
export function requireAuth(state: EmulatorState, ctx: RequestContext, scope: string, now = state.now()): Grant {
  const header = ctx.headers.authorization ?? ''
  const match = /^Bearer\s+(\S+)$/i.exec(header)
  if (!match) throw new HttpError(401, 'Missing bearer token')
  const grant = state.tokens.get(match[1] as string)
  if (!grant) throw new HttpError(401, 'Invalid access token')
  if (grant.expiresAt <= now) throw new HttpError(401, 'Access token expired')
  if (grant.scopes && !grant.scopes.has(scope))
    throw new HttpError(403, `Token lacks the scope ${scope}`, {required_scope: scope})
  const businessId = ctx.params.business_id
  if (businessId !== undefined) {
    if (grant.businessId && grant.businessId !== businessId) {
      throw new HttpError(403, `Token is limited to business ${grant.businessId}`, {business_id: businessId})
    }
    if (!state.businesses.has(businessId))
      throw new HttpError(404, `Business ${businessId} not found`, {business_id: businessId})
  }
  ctx.grant = grant
  return grant
}
