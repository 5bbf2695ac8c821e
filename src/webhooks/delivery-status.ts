/**
 * The delivery status (pending, sent, error) of each notification `bk webhooks replay` lists.
 * The spec's notification record carries no status: the list can only be filtered by one. So
 * each status is looked up in the list filtered by it, from the same --since, read only as far as
 * the notifications being shown need: a filtered list keeps the order of the whole, so once a
 * status's list has gone past them, every one of them it holds has been seen.
 *
 * A notification whose status changed while the lists were read can be missed by all of them
 * (its new status's list had already gone past it): it is reported as `unknown`, never guessed.
 */
import type {BkClient} from '../api/client.js'
import {CursorTrail} from '../api/cursor-trail.js'
import {paginated} from '../api/schemas/common.js'
import {webhookNotification} from '../api/schemas/webhook.js'
import {checkShape, parseResponseJson} from '../api/shape.js'
import {NOTIFICATIONS_PATH} from '../shared/spec.js'

export type DeliveryStatus = string

const pageSchema = paginated(webhookNotification)

interface StatusList {
  status: DeliveryStatus
  nextToken: string | undefined
  /** The cursors this list has followed (a service repeating one would be read forever). */
  trail: CursorTrail
  done: boolean
  /** The id of the last notification read from it. */
  last: string | undefined
}

export class DeliveryStatuses {
  private readonly lists: StatusList[]
  /** Read from a status's list, not yet asked for. */
  private readonly found = new Map<string, DeliveryStatus>()
  /** Asked for already: met again in another list, they were re-sent or failed meanwhile. */
  private readonly answered = new Set<string>()

  constructor(
    private readonly client: BkClient,
    statuses: readonly DeliveryStatus[],
    private readonly since: string | undefined,
    private readonly signal?: AbortSignal,
  ) {
    this.lists = statuses.map((status) => ({
      status,
      nextToken: undefined,
      trail: new CursorTrail(`GET ${NOTIFICATIONS_PATH}?status=${status}`),
      done: false,
      last: undefined,
    }))
  }

  /** The status of each of `ids` (a page of the whole list, in its order). */
  async of(ids: readonly string[]): Promise<Map<string, DeliveryStatus>> {
    const wanted = new Set(ids)
    const missing = () => ids.some((id) => !this.found.has(id))
    while (missing()) {
      // A list whose last notification read is not among these has gone past them all.
      const behind = this.lists.filter(
        (l) => !l.done && (l.last === undefined || wanted.has(l.last) || this.answered.has(l.last)),
      )
      if (behind.length === 0) break
      await Promise.all(behind.map((l) => this.readPage(l)))
    }
    const out = new Map<string, DeliveryStatus>()
    for (const id of ids) {
      out.set(id, this.found.get(id) ?? 'unknown')
      this.found.delete(id)
      this.answered.add(id)
    }
    return out
  }

  private async readPage(list: StatusList): Promise<void> {
    const res = await this.client.request<string>({
      method: 'GET',
      path: NOTIFICATIONS_PATH,
      responseText: true,
      signal: this.signal,
      query: {webhook_id: this.since, status: [list.status], page_size: 100, page_token: list.nextToken},
    })
    const what = `GET ${NOTIFICATIONS_PATH}?status=${list.status}`
    const page = checkShape(pageSchema, parseResponseJson(res.data, what), what)
    for (const record of page.data) {
      if (!this.answered.has(record.id)) this.found.set(record.id, list.status)
      list.last = record.id
    }
    list.nextToken = page.pagination.next_page_token ?? undefined
    if (list.nextToken) list.trail.follow(list.nextToken)
    list.done = !list.nextToken
  }
}
