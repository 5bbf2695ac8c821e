/**
 * The service's resources over one transport: `api.invoices.list(businessId, …)`. The two webhook
 * endpoints (notifications, key set) are read in src/webhooks, which needs their raw text.
 * Each resource loads its response schemas when first called: building them all would cost every
 * command the time of the dozen it does not use.
 */
import type {BkClient} from './client.js'
import {Auth} from './resources/auth.js'
import {Bills} from './resources/bills.js'
import {Businesses} from './resources/businesses.js'
import {Documents} from './resources/documents.js'
import {Invoices} from './resources/invoices.js'
import {JournalEntries} from './resources/journal-entries.js'
import {Refunds} from './resources/refunds.js'
import {Tasks} from './resources/tasks.js'
import {Transactions} from './resources/transactions.js'

export class Api {
  readonly auth: Auth
  readonly bills: Bills
  readonly businesses: Businesses
  readonly documents: Documents
  readonly invoices: Invoices
  readonly journalEntries: JournalEntries
  readonly refunds: Refunds
  readonly tasks: Tasks
  readonly transactions: Transactions

  constructor(readonly client: BkClient) {
    this.auth = new Auth(client)
    this.bills = new Bills(client)
    this.businesses = new Businesses(client)
    this.documents = new Documents(client)
    this.invoices = new Invoices(client)
    this.journalEntries = new JournalEntries(client)
    this.refunds = new Refunds(client)
    this.tasks = new Tasks(client)
    this.transactions = new Transactions(client)
  }
}
