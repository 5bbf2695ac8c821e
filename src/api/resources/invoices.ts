import type {BkClient} from '../client.js'
import {listPager, type Pager, type PagerOptions} from '../pagination.js'
import {path} from '../path.js'
import type {Invoice} from '../schemas/invoice.js'

export interface InvoiceListOptions extends PagerOptions {
  status?: readonly string[] | undefined
  dueAtStart?: string | undefined
  dueAtEnd?: string | undefined
  pageSize?: number | undefined
}

export class Invoices {
  constructor(private readonly client: BkClient) {}

  list(businessId: string, options: InvoiceListOptions = {}): Pager<Invoice> {
    const query = {
      status: options.status,
      due_at_start: options.dueAtStart,
      due_at_end: options.dueAtEnd,
      page_size: options.pageSize,
    }
    return listPager(
      this.client,
      path`/v0/business/${businessId}/invoice`,
      query,
      import('../schemas/invoice.js').then((m) => m.invoice),
      options,
    )
  }
}
