import type {BkClient} from '../client.js'
import {Pager, type PagerOptions} from '../pagination.js'
import {path} from '../path.js'
import {invoice, type Invoice, pageEnvelope} from '../schemas/index.js'

export interface InvoiceListOptions extends PagerOptions {
  status?: readonly string[] | undefined
  dueAtStart?: string | undefined
  dueAtEnd?: string | undefined
  pageSize?: number | undefined
}

export class Invoices {
  constructor(private readonly client: BkClient) {}

  list(businessId: string, options: InvoiceListOptions = {}): Pager<Invoice> {
    const url = path`/v0/business/${businessId}/invoice`
    return new Pager(async (pageToken, signal) => {
      const res = await this.client.request({
        method: 'GET', path: url, schema: pageEnvelope, signal,
        query: {status: options.status, due_at_start: options.dueAtStart, due_at_end: options.dueAtEnd, page_size: options.pageSize, page_token: pageToken},
      })
      return res.data
    }, invoice, `GET ${url}`, options)
  }
}
