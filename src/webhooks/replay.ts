/**
 * `bk webhooks replay`: pages through past notifications (after `since`, filtered by status)
 * and hands each to `onItem` with its delivery status, or re-posts each original message to a
 * URL first.
 *
 * Pages are read as text and each `notification` is re-serialised from that text as Python's
 * json.dumps writes it (number literals as the service wrote them), so the re-posted body is the
 * original message as it was signed, not a JS round trip of it.
 *
 * Re-posted requests cannot be re-signed (bk has no private key) and carry no `svc-signature`.
 * They carry `content-type: application/json`, `svc-id` (the original notification id) and
 * `bk-replay: 1`, so a receiver can tell a replay from a delivery.
 */
import type {BkClient} from '../api/client.js'
import {CursorTrail} from '../api/cursor-trail.js'
import {paginated} from '../api/schemas/common.js'
import {webhookNotification} from '../api/schemas/webhook.js'
import {checkShape, parseResponseJson} from '../api/shape.js'
import {postThroughNetwork} from '../net/post.js'
import {REPLAY_HEADER} from './forward.js'
import type {PostResult} from '../shared/post-body.js'
import {parseJsonTree, type JsonNode} from '../shared/exact-json.js'
import {pythonJsonFromTree} from '../shared/python-json.js'
import {NOTIFICATIONS_PATH, WEBHOOK_ID_HEADER, WEBHOOK_STATUSES} from '../shared/spec.js'
import {DeliveryStatuses} from './delivery-status.js'

export interface ReplayItem {
  id: string
  datetime: string
  /** Its delivery status: pending, sent, error (or unknown: see delivery-status.ts). */
  status: string
  type: string
  notification: {type: string; content: Record<string, unknown>}
  /** The original message as re-posted (Python json.dumps text). */
  body: string
  forwarded: PostResult | null
}

export interface ReplayOptions {
  client: BkClient
  since?: string | undefined
  status?: readonly string[] | undefined
  limit?: number | undefined
  pageSize?: number | undefined
  forwardTo?: string | undefined
  /** Stops between notifications: the one being re-posted finishes first. */
  signal?: AbortSignal | undefined
  onItem(item: ReplayItem): void | Promise<void>
}

export interface ReplaySummary {
  count: number
  failed: number
  /** The id of the last notification handled: pass it as --since to continue. */
  lastId: string | null
  interrupted: boolean
}

const pageSchema = paginated(webhookNotification)

export async function replay(options: ReplayOptions): Promise<ReplaySummary> {
  const summary: ReplaySummary = {count: 0, failed: 0, lastId: null, interrupted: false}
  // With one status asked for, every notification listed has it; else each is looked up.
  const only = options.status?.length === 1 ? options.status[0] : undefined
  const statuses = only
    ? undefined
    : new DeliveryStatuses(options.client, options.status ?? WEBHOOK_STATUSES, options.since, options.signal)
  const limit = options.limit ?? Number.POSITIVE_INFINITY
  let pageToken: string | undefined
  const trail = new CursorTrail(`GET ${NOTIFICATIONS_PATH}`)
  for (;;) {
    if (options.signal?.aborted) {
      summary.interrupted = true
      return summary
    }
    const pageSize =
      options.pageSize ?? (Number.isFinite(limit) ? Math.min(100, Math.max(1, limit - summary.count)) : 100)
    const res = await options.client
      .request<string>({
        method: 'GET',
        path: NOTIFICATIONS_PATH,
        responseText: true,
        signal: options.signal,
        query: {webhook_id: options.since, status: options.status, page_size: pageSize, page_token: pageToken},
      })
      .catch((error: unknown) => {
        if (options.signal?.aborted) return undefined
        throw error
      })
    if (res === undefined) {
      summary.interrupted = true
      return summary
    }
    const page = parsePage(res.data)
    const status = statuses ? await statuses.of(page.data.map((r) => r.id)) : undefined
    for (const [i, record] of page.data.entries()) {
      if (summary.count >= limit) return summary
      if (options.signal?.aborted) {
        summary.interrupted = true
        return summary
      }
      const body = pythonJsonFromTree(page.notificationNodes[i] as JsonNode)
      let forwarded: PostResult | null = null
      if (options.forwardTo) {
        forwarded = await postThroughNetwork(
          options.forwardTo,
          {'content-type': 'application/json', [WEBHOOK_ID_HEADER]: record.id, [REPLAY_HEADER]: '1'},
          Buffer.from(body, 'utf8'),
        )
        if (!forwarded.ok) summary.failed++
      }
      summary.count++
      summary.lastId = record.id
      await options.onItem({
        id: record.id,
        datetime: record.datetime,
        status: only ?? status?.get(record.id) ?? 'unknown',
        type: record.notification.type,
        notification: record.notification,
        body,
        forwarded,
      })
    }
    const next = page.pagination.next_page_token
    if (!next || summary.count >= limit) return summary
    trail.follow(next)
    pageToken = next
  }
}

function parsePage(text: string) {
  const what = `GET ${NOTIFICATIONS_PATH}`
  const page = checkShape(pageSchema, parseResponseJson(text, what), what)
  const tree = parseJsonTree(text)
  const data = member(tree, 'data')
  const notificationNodes = data?.kind === 'array' ? data.items.map((item) => member(item, 'notification')) : []
  return {data: page.data, pagination: page.pagination, notificationNodes}
}

/** The last value of a key in an object node (as JSON.parse keeps it). */
function member(node: JsonNode | undefined, key: string): JsonNode | undefined {
  if (node?.kind !== 'object') return undefined
  let found: JsonNode | undefined
  for (const [k, v] of node.members) if (k === key) found = v
  return found
}
