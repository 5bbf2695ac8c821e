import type {BkClient} from '../client.js'
import {path} from '../path.js'

export class Tasks {
  constructor(private readonly client: BkClient) {}

  async delete(businessId: string, taskId: string): Promise<unknown> {
    const res = await this.client.request({method: 'DELETE', path: path`/v0/business/${businessId}/task/${taskId}`})
    return res.data
  }
}
