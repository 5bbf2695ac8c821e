import type {BkClient} from '../client.js'
import {path} from '../path.js'
import type {BillInput, CreateBillsResponse} from '../schemas/bill.js'
import {MAX_BILLS_PER_REQUEST, PERFORMED_BY_HEADER} from '../../shared/spec.js'

export class Bills {
  constructor(private readonly client: BkClient) {}

  async create(
    businessId: string,
    bills: BillInput[],
    options: {performedBy?: string | undefined; signal?: AbortSignal} = {},
  ): Promise<CreateBillsResponse> {
    if (bills.length > MAX_BILLS_PER_REQUEST) throw new RangeError(`at most ${MAX_BILLS_PER_REQUEST} bills per request`)
    const {createBillsResponse} = await import('../schemas/bill.js')
    const res = await this.client.request({
      method: 'POST',
      path: path`/v0/business/${businessId}/bills`,
      json: bills,
      schema: createBillsResponse,
      headers: {[PERFORMED_BY_HEADER]: options.performedBy},
      signal: options.signal,
    })
    return res.data
  }
}
