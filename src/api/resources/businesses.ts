import type {BkClient} from '../client.js'
import {listPager, type Pager, type PagerOptions} from '../pagination.js'
import {path} from '../path.js'
import type {Business, ReceiptRequestConfig, ReceiptRequestConfigUpdate} from '../schemas/business.js'

const schemas = () => import('../schemas/business.js')

export interface ListOptions extends PagerOptions {
  pageSize?: number | undefined
}

export class Businesses {
  constructor(private readonly client: BkClient) {}

  list(options: ListOptions = {}): Pager<Business> {
    return listPager(
      this.client,
      '/v0/business',
      {page_size: options.pageSize},
      schemas().then((m) => m.business),
      options,
    )
  }

  /** PATCH …/rules/receipts: only the fields given change. */
  async updateReceiptRules(businessId: string, update: ReceiptRequestConfigUpdate): Promise<ReceiptRequestConfig> {
    const {receiptRequestConfig} = await schemas()
    const res = await this.client.request({
      method: 'PATCH',
      path: path`/v0/business/${businessId}/rules/receipts`,
      json: update,
      schema: receiptRequestConfig,
    })
    return res.data
  }
}
