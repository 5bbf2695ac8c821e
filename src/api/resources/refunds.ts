import type {BkClient} from '../client.js'
import {listPager, type Pager, type PagerOptions} from '../pagination.js'
import {path} from '../path.js'
import type {Refund} from '../schemas/refund.js'

export interface RefundListOptions extends PagerOptions {
  status?: readonly string[] | undefined
  pageSize?: number | undefined
}

export class Refunds {
  constructor(private readonly client: BkClient) {}

  list(businessId: string, options: RefundListOptions = {}): Pager<Refund> {
    return listPager(
      this.client,
      path`/v0/business/${businessId}/refunds`,
      {status: options.status, page_size: options.pageSize},
      import('../schemas/refund.js').then((m) => m.refund),
      options,
    )
  }
}
