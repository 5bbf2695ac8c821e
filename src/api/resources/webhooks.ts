import type {BkClient} from '../client.js'
import {Pager, type PagerOptions} from '../pagination.js'
import {jwks, type Jwks, pageEnvelope, webhookNotification, type WebhookNotification} from '../schemas/index.js'

export interface NotificationListOptions extends PagerOptions {
  /** The svc-id of the last webhook received: only notifications created after it. */
  webhookId?: string | undefined
  status?: readonly string[] | undefined
  pageSize?: number | undefined
}

export class Webhooks {
  constructor(private readonly client: BkClient) {}

  notifications(options: NotificationListOptions = {}): Pager<WebhookNotification> {
    return new Pager(async (pageToken, signal) => {
      const res = await this.client.request({
        method: 'GET', path: '/v0/tenant/webhook/notifications', schema: pageEnvelope, signal,
        query: {webhook_id: options.webhookId, status: options.status, page_size: options.pageSize, page_token: pageToken},
      })
      return res.data
    }, webhookNotification, 'GET /v0/tenant/webhook/notifications', options)
  }

  /** The public key set; needs no token. */
  async jwks(): Promise<Jwks> {
    const res = await this.client.request({method: 'GET', path: '/.well-known/jwks.json', schema: jwks, auth: false})
    return res.data
  }
}
