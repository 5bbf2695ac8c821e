import type {BkClient} from '../client.js'
import {path} from '../path.js'
import type {BillInput, CreateBillsResponse, createBillsResponse} from '../schemas/bill.js'
import {MAX_BILLS_PER_REQUEST, PERFORMED_BY_HEADER} from '../../shared/spec.js'

/** A batch of bills already written as the request's JSON text (an array of bill inputs). */
export interface PreparedBills {
  count: number
  jsonText: string
}

/**
 * The answer's schema, loaded with its module at the first batch, not at start-up, and kept: an
 * import asks for it once a batch, and each `import()` of the bundle copies the module's exports.
 */
let answerSchema: Promise<typeof createBillsResponse> | undefined

export class Bills {
  constructor(private readonly client: BkClient) {}

  async create(
    businessId: string,
    bills: BillInput[] | PreparedBills,
    options: {performedBy?: string | undefined; signal?: AbortSignal} = {},
  ): Promise<CreateBillsResponse> {
    const prepared = Array.isArray(bills) ? undefined : bills
    const count = prepared ? prepared.count : (bills as BillInput[]).length
    if (count > MAX_BILLS_PER_REQUEST) throw new RangeError(`at most ${MAX_BILLS_PER_REQUEST} bills per request`)
    const schema = await (answerSchema ??= import('../schemas/bill.js').then((m) => m.createBillsResponse))
    const res = await this.client.request({
      method: 'POST',
      path: path`/v0/business/${businessId}/bills`,
      ...(prepared ? {jsonText: prepared.jsonText} : {json: bills}),
      schema,
      // The import reads each created bill's id and number, no amount: a batch of a hundred is
      // parsed as it is, its text not searched for numbers a double would change.
      exactNumbers: prepared === undefined,
      headers: {[PERFORMED_BY_HEADER]: options.performedBy},
      signal: options.signal,
    })
    return res.data
  }
}
