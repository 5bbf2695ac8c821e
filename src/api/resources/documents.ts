import type {BkClient} from '../client.js'
import {path} from '../path.js'

/** The kinds of entity a document can be unlinked from. */
export const UNLINKABLE_PREFIXES = ['eac_', 'txn_', 'je_'] as const
/** The spec leaves the query parameter unnamed; see README "Assumptions". */
export const ENTITY_IDS_PARAM = 'entity_ids'

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
