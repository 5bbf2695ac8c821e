import type {BkClient} from '../client.js'
import {path} from '../path.js'
import {single, transaction, type Transaction} from '../schemas/index.js'

export class Transactions {
  constructor(private readonly client: BkClient) {}

  async get(
    businessId: string,
    transactionId: string,
    options: {include?: readonly string[] | undefined} = {},
  ): Promise<Transaction> {
    const res = await this.client.request({
      method: 'GET',
      path: path`/v0/business/${businessId}/transactions/${transactionId}`,
      schema: single(transaction),
      query: {include: options.include},
    })
    return res.data.data
  }
}
