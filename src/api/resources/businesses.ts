import type {BkClient} from '../client.js'
import {setValues, type SetResult} from '../lost-answer.js'
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

  /** PATCH …/rules/receipts: only the fields given change, to the values given, so a lost answer is sent again. */
  async updateReceiptRules(
    businessId: string,
    update: ReceiptRequestConfigUpdate,
  ): Promise<SetResult<ReceiptRequestConfig>> {
    const {receiptRequestConfig} = await schemas()
    const request = {
      method: 'PATCH' as const,
      path: path`/v0/business/${businessId}/rules/receipts`,
      json: update,
      schema: receiptRequestConfig,
    }
    return setValues(this.client, request, `update the receipt rules of ${businessId}`)
  }
}
