import type {BkClient} from '../client.js'
import {path} from '../path.js'
import {ENTITY_IDS_PARAM} from '../../shared/spec.js'

export class Documents {
  constructor(private readonly client: BkClient) {}

  /** Unlinks the document from all the given entities in one request. */
  async unlink(businessId: string, documentId: string, entityIds: readonly string[]): Promise<unknown> {
    const res = await this.client.request({
      method: 'DELETE',
      path: path`/v0/business/${businessId}/document-association/${documentId}`,
      query: {[ENTITY_IDS_PARAM]: entityIds},
    })
    return res.data
  }
}
