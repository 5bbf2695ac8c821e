import type {BkClient} from '../client.js'
import {path} from '../path.js'
import type {Transaction} from '../schemas/transaction.js'

export class Transactions {
  constructor(private readonly client: BkClient) {}

  async get(
    businessId: string,
    transactionId: string,
    options: {include?: readonly string[] | undefined} = {},
  ): Promise<Transaction> {
    const [{single}, {transaction}] = await Promise.all([
      import('../schemas/common.js'),
      import('../schemas/transaction.js'),
    ])
    const res = await this.client.request({
      method: 'GET',
      path: path`/v0/business/${businessId}/transactions/${transactionId}`,
      schema: single(transaction),
      query: {include: options.include},
    })
    return res.data.data
  }
}
