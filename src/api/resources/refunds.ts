import type {BkClient} from '../client.js'
import {Pager, type PagerOptions} from '../pagination.js'
import {path} from '../path.js'
import {pageEnvelope, type Refund, refund} from '../schemas/index.js'

export interface RefundListOptions extends PagerOptions {
  status?: readonly string[] | undefined
  pageSize?: number | undefined
}

export class Refunds {
  constructor(private readonly client: BkClient) {}

  list(businessId: string, options: RefundListOptions = {}): Pager<Refund> {
    const url = path`/v0/business/${businessId}/refunds`
    return new Pager(async (pageToken, signal) => {
      const res = await this.client.request({
        method: 'GET', path: url, schema: pageEnvelope, signal,
        query: {status: options.status, page_size: options.pageSize, page_token: pageToken},
      })
      return res.data
    }, refund, `GET ${url}`, options)
  }
}
