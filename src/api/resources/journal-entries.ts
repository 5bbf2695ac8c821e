import type {BkClient} from '../client.js'
import {path} from '../path.js'
import type {JournalEntry, JournalEntryInput} from '../schemas/journal-entry.js'
import {PERFORMED_BY_HEADER} from '../../shared/spec.js'

export class JournalEntries {
  constructor(private readonly client: BkClient) {}

  async create(
    businessId: string,
    entry: JournalEntryInput,
    options: {performedBy?: string | undefined} = {},
  ): Promise<JournalEntry> {
    const [{single}, {journalEntry}] = await Promise.all([
      import('../schemas/common.js'),
      import('../schemas/journal-entry.js'),
    ])
    const res = await this.client.request({
      method: 'POST',
      path: path`/v0/business/${businessId}/journal-entries`,
      json: entry,
      schema: single(journalEntry),
      headers: {[PERFORMED_BY_HEADER]: options.performedBy},
    })
    return res.data.data
  }
}
