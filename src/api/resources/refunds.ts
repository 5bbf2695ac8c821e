import {z} from 'zod'

import type {BkClient} from '../client.js'
import {Pager, checkItems, type PagerOptions} from '../pagination.js'
import {path} from '../path.js'
import {paginated, refund, type Refund} from '../schemas/index.js'

export interface RefundListOptions extends PagerOptions {
  status?: readonly string[] | undefined
  pageSize?: number | undefined
}

export class Refunds {
  constructor(private readonly client: BkClient) {}

  /** Pages are checked envelope first, items after the next request has left (see Pager). */
  list(businessId: string, options: RefundListOptions = {}): Pager<Refund> {
    const url = path`/v0/business/${businessId}/refunds`
    return new Pager(async (pageToken, signal) => {
      const res = await this.client.request({
        method: 'GET', path: url, schema: paginated(z.unknown()), signal,
        query: {status: options.status, page_size: options.pageSize, page_token: pageToken},
      })
      return res.data
    }, options, checkItems(refund, `GET ${url}`))
  }
}
