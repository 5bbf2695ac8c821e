/**
 * Seed records behind the read commands: invoices over several statuses and due dates (with
 * both invoice-line variants of the spec), refunds in all three statuses, transactions that
 * pay invoices, documents with associations, and tasks. Deterministic: every choice comes from
 * the record's index or from state.rand(), every id from state.newId().
 *
 * `options.scale` N puts exactly N invoices into the first business (for benchmarks); that
 * path builds plain objects in one loop so that 100,000 take a second or two.
 */
import {ID_PREFIX, REFUND_STATUSES} from '../shared/spec.js'
import type {Invoice, Refund, Transaction} from './types.js'
import type {ResolvedEmulatorOptions} from './options.js'
import type {EmulatorState} from './state.js'

/** Invoice statuses the emulator uses (the spec shows only `open`; docs/read-commands.md, "Decisions"). */
export const INVOICE_STATUSES = ['draft', 'open', 'partially_paid', 'paid', 'void'] as const

/** Readable ids of the records the docs and examples name, in the first demo business. */
export const DEMO_RECORD_IDS = {
  /** A transaction paying two invoices. */
  transaction: 'txn_demo_invoice_payments',
  /** A card spend with no payments. */
  expenseTransaction: 'txn_demo_office_supplies',
  externalAccount: 'eac_demo_checking',
  journalEntry: 'je_demo_accrual',
  /** Linked to the checking account, the paying transaction and the journal entry. */
  document: 'doc_demo_receipt',
  /** Linked to nothing. */
  unlinkedDocument: 'doc_demo_statement',
  openTask: 'tsk_demo_receipt_request',
  completedTask: 'tsk_demo_reconnect_done',
} as const

/** Numbers and descriptions a spreadsheet would run as formulas: the CSV guard must defuse them. */
const FORMULA_TEXTS = [
  '=HYPERLINK("http://x","y")',
  '@SUM(A1:A2)',
  '+1 555 0100',
  '-1 credit adjustment',
  '=1+2',
] as const

const DEMO_INVOICES_FIRST = 300
const DEMO_INVOICES_OTHER = 24
const DAY_MS = 86_400_000
const DUE_BASE = Date.UTC(2026, 0, 1)

/** Same scheme as seed.ts: the first business keeps the readable id, others get a suffix. */
function recordId(base: string, businessId: string, first: boolean): string {
  return first ? base : `${base}_${businessId.slice(9)}`
}

const cents = (n: number) => n / 100
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z')

export function seedRecords(
  state: EmulatorState,
  businessId: string,
  index: number,
  options: ResolvedEmulatorOptions,
): void {
  const first = index === 0
  if (options.seed !== 'demo' && !(first && options.scale > 0)) return
  const ledger = (name: string) => state.ledgers.all(businessId).find((l) => l.name === name)?.id ?? `ldg_${name}`
  const count = first && options.scale > 0 ? options.scale : first ? DEMO_INVOICES_FIRST : DEMO_INVOICES_OTHER
  const invoices = seedInvoices(state, businessId, count, ledger('revenue'))
  if (options.seed !== 'demo') return

  // Accounts and a journal entry the documents and transactions refer to.
  const checking = state.externalAccounts.add(businessId, {
    id: recordId(DEMO_RECORD_IDS.externalAccount, businessId, first),
    business_id: businessId,
    name: 'Checking',
  })
  const card = state.externalAccounts.add(businessId, {
    id: state.newId(ID_PREFIX.externalAccount),
    business_id: businessId,
    name: 'Company card',
  })
  const accounts = {checking: checking.id, card: card.id}
  const transactions = seedTransactions(state, businessId, first, accounts, invoices, ledger)
  seedRefunds(state, businessId, first ? 60 : 6, invoices, transactions[0]!.id)
  const journalEntryId = recordId(DEMO_RECORD_IDS.journalEntry, businessId, first)
  seedDocuments(
    state,
    businessId,
    first,
    [checking.id, transactions[0]!.id, journalEntryId],
    [card.id, transactions.at(-1)!.id],
  )
  seedTasks(state, businessId, first)
}

/** The customers and `count` invoices of a business; returns the first 40, which the other records use. */
function seedInvoices(state: EmulatorState, businessId: string, count: number, revenue: string): Invoice[] {
  const customers = [
    'Northwind Traders',
    'Blue Bottle Cafe',
    'Contoso Catering',
    'Fabrikam Hotels',
    'Tailspin Events',
  ].map((name) => state.customers.add(businessId, {id: state.newId('cus_'), business_id: businessId, name}))
  const invoices: Invoice[] = []
  for (let k = 0; k < count; k++) {
    const inv = makeInvoice(state, businessId, k, customers[k % customers.length]!.id, revenue)
    state.invoices.add(businessId, inv)
    if (k < 40) invoices.push(inv)
  }
  return invoices
}

/** Transactions: one paying the first two paid invoices, one per other paid invoice, and a card spend. */
function seedTransactions(
  state: EmulatorState,
  businessId: string,
  first: boolean,
  accounts: {checking: string; card: string},
  invoices: Invoice[],
  ledger: (name: string) => string,
): Transaction[] {
  const revenue = ledger('revenue')
  const paid = invoices.filter((i) => i.status === 'paid' || i.status === 'partially_paid')
  const paying = paid.slice(0, 2)
  const transactions: Transaction[] = []
  const demoId = recordId(DEMO_RECORD_IDS.transaction, businessId, first)
  transactions.push(paymentTransaction(state, businessId, demoId, accounts.checking, paying, revenue))
  for (const inv of paid.slice(2, 8))
    transactions.push(
      paymentTransaction(state, businessId, state.newId(ID_PREFIX.transaction), accounts.checking, [inv], revenue),
    )
  const spendId = recordId(DEMO_RECORD_IDS.expenseTransaction, businessId, first)
  transactions.push(cardSpend(state, spendId, accounts.card, ledger('expenses')))
  for (const t of transactions) state.transactions.add(businessId, t)
  return transactions
}

/** An office-supplies card spend with two line items and a department tag. */
function cardSpend(state: EmulatorState, id: string, cardId: string, expenses: string): Transaction {
  return {
    id,
    external_id: 'card-20260212-0042',
    external_account_id: cardId,
    amount: -120.5,
    datetime: '2026-02-12T15:04:00Z',
    description: 'OFFICE DEPOT #1123',
    posted: true,
    type: 'business',
    reviewed: false,
    status: 'confirmed',
    metadata_: {},
    category: [
      {amount: '100.00', name: 'Office supplies'},
      {amount: '20.50', name: 'Sales tax'},
    ],
    line_items: [
      {
        id: state.newId(ID_PREFIX.lineEntry),
        ledger_id: expenses,
        category: 'Office supplies',
        description: 'Paper and toner',
        amount: -100,
      },
      {
        id: state.newId(ID_PREFIX.lineEntry),
        ledger_id: expenses,
        category: 'Sales tax',
        description: 'Tax',
        amount: -20.5,
      },
    ],
    invoice_payments: null,
    refund_payments: null,
    bill_payments: null,
    tags: {department: [{amount: '120.50', value: 'operations'}]},
  }
}

/** A receipt linked to `receiptLinks`, a statement linked to nothing, a scan linked to `scanLinks`. */
function seedDocuments(
  state: EmulatorState,
  businessId: string,
  first: boolean,
  receiptLinks: string[],
  scanLinks: string[],
): void {
  state.documents.add(businessId, {
    id: recordId(DEMO_RECORD_IDS.document, businessId, first),
    business_id: businessId,
    name: 'receipt-2026-02-12.pdf',
    associations: new Set(receiptLinks),
  })
  state.documents.add(businessId, {
    id: recordId(DEMO_RECORD_IDS.unlinkedDocument, businessId, first),
    business_id: businessId,
    name: 'statement-2026-01.pdf',
    associations: new Set(),
  })
  state.documents.add(businessId, {
    id: state.newId(ID_PREFIX.document),
    business_id: businessId,
    name: 'invoice-scan.png',
    associations: new Set(scanLinks),
  })
}

/** The demo's open and completed tasks, and one of each other type, open or not by chance. */
function seedTasks(state: EmulatorState, businessId: string, first: boolean): void {
  state.tasks.add(businessId, {
    id: recordId(DEMO_RECORD_IDS.openTask, businessId, first),
    business_id: businessId,
    type: 'request_receipt',
    status: 'open',
  })
  state.tasks.add(businessId, {
    id: recordId(DEMO_RECORD_IDS.completedTask, businessId, first),
    business_id: businessId,
    type: 'reconnect_account',
    status: 'completed',
  })
  for (const type of ['categorize_transaction', 'request_statement', 'other'] as const) {
    state.tasks.add(businessId, {
      id: state.newId(ID_PREFIX.task),
      business_id: businessId,
      type,
      status: state.rand() < 0.5 ? 'open' : 'completed',
    })
  }
}

/**
 * Invoice number k of a business. Even k: lines with `amount`; odd k: lines with unit price,
 * quantity, discount, tax and prepayment. Amounts are whole cents divided by 100, so each JSON
 * number is the shortest text of its decimal (no float artefacts).
 */
function makeInvoice(
  state: EmulatorState,
  businessId: string,
  k: number,
  customerId: string,
  ledgerId: string,
): Invoice {
  const id = state.newId(ID_PREFIX.invoice)
  const status = INVOICE_STATUSES[(k * 7 + 3) % INVOICE_STATUSES.length]!
  const due = DUE_BASE + ((k * 37) % 365) * DAY_MS + (k % 4 === 3 ? 17 * 3_600_000 : 0)
  const lineCount = 1 + (k % 3)
  const priced = k % 2 === 1
  const lines: NonNullable<Invoice['lines']> = []
  let totalCents = 0
  for (let j = 0; j < lineCount; j++) {
    const lineId = state.newId(ID_PREFIX.invoiceLine)
    const description = `${['Sourdough loaves', 'Catering service', 'Delivery', 'Pastry box'][(k + j) % 4]} ${j + 1}`
    if (!priced) {
      const amount = 1000 + Math.floor(state.rand() * 90_000)
      totalCents += amount
      lines.push({id: lineId, invoice_id: id, description, ledger_id: ledgerId, metadata_: {}, amount: cents(amount)})
    } else {
      const unit = 250 + Math.floor(state.rand() * 20_000)
      const quantity = 1 + ((k + j) % 5)
      const discountRate = (k + j) % 3 === 0 ? 0.1 : 0
      const gross = unit * quantity
      const discount = Math.round(gross * discountRate)
      const taxRate = j === 0 ? 0.2 : 0
      const tax = Math.round((gross - discount) * taxRate)
      totalCents += gross - discount + tax
      lines.push({
        id: lineId,
        invoice_id: id,
        description,
        ledger_id: ledgerId,
        metadata_: {},
        unit_price: cents(unit),
        quantity,
        discount_amount: cents(discount),
        discount_rate: discountRate,
        tax_amount: cents(tax),
        tax_rate: taxRate,
        is_prepayment: (k + j) % 11 === 0,
      })
    }
  }
  const paidCents = status === 'paid' ? totalCents : status === 'partially_paid' ? Math.floor(totalCents / 2) : 0
  const formula = k >= 3 && k < 3 + FORMULA_TEXTS.length ? FORMULA_TEXTS[k - 3] : undefined
  return {
    id,
    business_id: businessId,
    customer_id: customerId,
    number: formula && k % 2 === 0 ? formula : `INV-${String(1001 + k).padStart(5, '0')}`,
    description: formula && k % 2 === 1 ? formula : `Order ${1001 + k}`,
    total_amount: cents(totalCents),
    total_paid: cents(paidCents),
    credit_amount: 0,
    source: k % 5 === 0 ? 'api' : 'manual',
    status,
    due_at: iso(due),
    sent_at: status === 'draft' ? null : iso(due - 30 * DAY_MS),
    voided_at: status === 'void' ? iso(due - 10 * DAY_MS) : null,
    metadata_: {},
    lines,
    payments: [],
  }
}

/** A transaction paying the given invoices in full (or half, when partially paid). */
function paymentTransaction(
  state: EmulatorState,
  businessId: string,
  id: string,
  accountId: string,
  invoices: Invoice[],
  revenue: string,
): Transaction {
  let totalCents = 0
  const payments = invoices.map((inv, i) => {
    const amountCents = Math.round((inv.total_paid ?? 0) * 100)
    totalCents += amountCents
    const payment = {
      id: state.newId(ID_PREFIX.invoicePayment),
      invoice_id: inv.id,
      transaction_id: id,
      payment_id: `pay_${inv.id.slice(4)}`,
      datetime: iso(Date.UTC(2026, 1, 1 + i, 10)),
      payment_amount: cents(amountCents),
    }
    inv.payments = [...(inv.payments ?? []), payment]
    return payment
  })
  return {
    id,
    external_id: `bank-${id.slice(4, 16)}`,
    external_account_id: accountId,
    amount: cents(totalCents),
    datetime: iso(Date.UTC(2026, 1, 1, 10)),
    description: `Customer payment ${invoices.map((i) => i.number).join(', ')}`,
    posted: true,
    type: 'business',
    reviewed: true,
    status: 'confirmed',
    metadata_: {source: 'bank-feed'},
    category: [{amount: (totalCents / 100).toFixed(2), name: 'Sales'}],
    line_items: [
      {
        id: state.newId(ID_PREFIX.lineEntry),
        ledger_id: revenue,
        category: 'Sales',
        description: 'Invoice payments',
        amount: cents(totalCents),
      },
    ],
    invoice_payments: payments,
    refund_payments: null,
    bill_payments: null,
    tags: {},
  }
}

function seedRefunds(
  state: EmulatorState,
  businessId: string,
  count: number,
  invoices: Invoice[],
  transactionId: string,
): void {
  for (let k = 0; k < count; k++) {
    const status = REFUND_STATUSES[k % REFUND_STATUSES.length]!
    const amountCents = 500 + Math.floor(state.rand() * 20_000)
    const inv = invoices[k % Math.max(1, invoices.length)]
    const refund: Refund = {
      id: state.newId(ID_PREFIX.refund),
      business_id: businessId,
      external_id: `re_${String(7000 + k)}`,
      amount: cents(amountCents),
      amount_paid: status === 'completed' ? cents(amountCents) : 0,
      memo: k === 4 ? '=HYPERLINK("http://x","refund")' : `Refund for order ${1001 + k}`,
      processor: k % 2 ? 'stripe' : 'square',
      method: ['cash', 'card', 'bank_transfer'][k % 3]!,
      is_return: k % 4 === 0,
      refund_credit: k % 5 === 0,
      refunded_at: iso(Date.UTC(2026, 2, 1 + (k % 28), 12)),
      status,
      payments:
        status === 'completed'
          ? [{id: state.newId(ID_PREFIX.refundPayment), amount: cents(amountCents), transaction_id: transactionId}]
          : [],
      refund_invoices: inv
        ? [
            {
              id: state.newId(ID_PREFIX.refundInvoice),
              external_id: `ri_${7000 + k}`,
              amount: cents(amountCents),
              memo: 'Returned goods',
              invoice_id: inv.id,
              invoice_line_id: inv.lines?.[0]?.id ?? null,
            },
          ]
        : [],
    }
    state.refunds.add(businessId, refund)
  }
}
