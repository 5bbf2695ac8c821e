/**
 * GET /.well-known/jwks.json (no auth): the key set whose first key verifies webhook signatures,
 * with an ETag (its kid) for conditional re-fetches.
 * GET /v0/tenant/webhook/notifications: past notifications for replay, `{id, datetime,
 * notification}` in creation order; `webhook_id` keeps those created after it (an unknown id is
 * 404, since "after" cannot be placed), `status` filters (comma-separated), page_size 1..100
 * (default 50). A business-scoped token sees only the notifications of its business.
 * Responses are written as Python's json.dumps does, as the service writes its bodies.
 */
import {JWKS_PATH, MAX_PAGE_SIZE, NOTIFICATIONS_PATH, WEBHOOK_STATUSES} from '../../shared/spec.js'
import {SCOPES, requireAuth} from '../auth.js'
import {paginate} from '../cursor.js'
import {HttpError, intParam, listParam, type Reply} from '../http.js'
import type {WebhookNotificationRecord} from '../types.js'
import {pythonJsonDumps} from '../../shared/python-json.js'
import type {EmulatorContext} from './context.js'

const DEFAULT_PAGE_SIZE = 50

const json = (body: unknown): Reply => ({status: 200, body: pythonJsonDumps(body)})

export function register({router, state, webhooks}: EmulatorContext): void {
  // The kid (the key's thumbprint) is the ETag: a listener re-fetching after a failed signature
  // asks If-None-Match and gets 304 when the key has not changed.
  router.add('GET', JWKS_PATH, async (ctx) => {
    const jwks = await webhooks.signer.jwks()
    const etag = `"${jwks.keys[0]?.kid ?? ''}"`
    const headers = {etag, 'last-modified': new Date(webhooks.signer.since).toUTCString()}
    const asked = ctx.headers['if-none-match']
    if (typeof asked === 'string' && asked.split(',').some((t) => t.trim().replace(/^W\//, '') === etag))
      return {status: 304, headers}
    return {...json(jwks), headers}
  })

  router.add('GET', NOTIFICATIONS_PATH, (ctx) => {
    const grant = requireAuth(state, ctx, SCOPES.webhookRead)
    const pageSize = intParam(ctx.query, 'page_size', {min: 1, max: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE})
    const statuses = listParam(ctx.query, 'status', WEBHOOK_STATUSES)
    const after = ctx.query.get('webhook_id') || undefined
    if (after !== undefined && !state.notifications.some((n) => n.id === after)) {
      throw new HttpError(404, `Webhook notification ${after} not found`, {webhook_id: after})
    }
    const business = grant.businessId
    const page = paginate(state.notifications, {
      pageSize,
      pageToken: ctx.query.get('page_token'),
      filters: {after: after ?? null, status: statuses ?? null, business: business ?? null},
      keep: (n) =>
        (after === undefined || n.id > after) &&
        (!statuses || statuses.includes(n.status)) &&
        (!business || n.notification.content.business_id === business),
    })
    return json({data: page.data.map(toWire), pagination: page.pagination})
  })
}

function toWire(n: WebhookNotificationRecord): {
  id: string
  datetime: string
  notification: WebhookNotificationRecord['notification']
} {
  return {id: n.id, datetime: n.sentAt ?? n.createdAt, notification: n.notification}
}
