import type {BkClient} from '../client.js'
import {deleteRecord, type RemovalResult} from '../lost-answer.js'
import {path} from '../path.js'

export class Tasks {
  constructor(private readonly client: BkClient) {}

  /** Deletes the task; a 404 after an attempt whose answer was lost is that attempt's success. */
  async delete(businessId: string, taskId: string): Promise<RemovalResult> {
    return deleteRecord(this.client, path`/v0/business/${businessId}/task/${taskId}`)
  }
}
