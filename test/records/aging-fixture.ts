/**
 * A fixture business for `bk invoices aging`, added to a running emulator's state (so no seeded
 * count changes): invoices in three currencies, partly paid, credited, paid in full, void, draft,
 * not yet due, due on the as-of day, and one whose outstanding amount a binary float gets wrong
 * (0.3 − 0.1 − 0.1). The expected report, to the cent, is worked out by hand below.
 */
import type {RunningEmulator} from '../helpers/emulator.js'
import type {Invoice} from '../../src/emulator/types.js'

export const AGING_BUSINESS = 'biz_fixture_aging'
export const AS_OF = '2026-06-30'

interface Spec {
  customer: string
  currency: string
  total: number
  paid?: number
  credit?: number
  due: string
  status?: string
}

const ACME = 'cus_fixture_acme'
const BETA = 'cus_fixture_beta'

/** Days past due are counted on UTC days from AS_OF. */
const INVOICES: Spec[] = [
  // Due on the as-of day (late in it): current. 1000.10 − 400.05 = 600.05.
  {customer: ACME, currency: 'USD', total: 1000.1, paid: 400.05, due: '2026-06-30T17:00:00Z', status: 'partially_paid'},
  // 15 days late, credited: 250 − 50.25 = 199.75 in 1-30.
  {customer: BETA, currency: 'USD', total: 250, credit: 50.25, due: '2026-06-15T00:00:00Z', status: 'open'},
  // Paid and credited: 300 − 100 − 50 = 150 in 1-30 (30 days late, the bucket's last day).
  {customer: ACME, currency: 'USD', total: 300, paid: 100, credit: 50, due: '2026-05-31T09:00:00Z', status: 'open'},
  // Paid in full: not aged.
  {customer: ACME, currency: 'USD', total: 99.99, paid: 99.99, due: '2026-01-10T00:00:00Z', status: 'paid'},
  // Void and draft: not aged.
  {customer: BETA, currency: 'USD', total: 500, due: '2026-01-10T00:00:00Z', status: 'void'},
  {customer: BETA, currency: 'USD', total: 75, due: '2026-01-10T00:00:00Z', status: 'draft'},
  // 121 days late: 0.3 − 0.1 − 0.1 = 0.1 exactly (a float says 0.09999999999999998) in 91+.
  {customer: BETA, currency: 'USD', total: 0.3, paid: 0.1, credit: 0.1, due: '2026-03-01T00:00:00Z', status: 'open'},
  // 60 days late: 1234.56 − 0.56 = 1234.00 in 31-60.
  {customer: ACME, currency: 'EUR', total: 1234.56, paid: 0.56, due: '2026-05-01T00:00:00Z', status: 'partially_paid'},
  // Not yet due: current.
  {customer: BETA, currency: 'EUR', total: 10, due: '2026-07-15T00:00:00Z', status: 'open'},
  // 90 days late: 5000 − 1000 = 4000 yen in 61-90.
  {customer: ACME, currency: 'JPY', total: 5000, paid: 1000, due: '2026-04-01T00:00:00Z', status: 'partially_paid'},
  // Credited beyond its total: nothing outstanding, not aged.
  {customer: BETA, currency: 'JPY', total: 800, credit: 900, due: '2026-04-01T00:00:00Z', status: 'open'},
]

/** The report's per-currency totals: [current, 1-30, 31-60, 61-90, 91+], outstanding, invoices. */
export const EXPECTED_TOTALS = [
  {currency: 'EUR', buckets: ['10', '0', '1234', '0', '0'], outstanding: '1244', invoices: 2},
  {currency: 'JPY', buckets: ['0', '0', '0', '4000', '0'], outstanding: '4000', invoices: 1},
  {currency: 'USD', buckets: ['600.05', '349.75', '0', '0', '0.1'], outstanding: '949.9', invoices: 4},
]

/** With --by customer: [customer, currency, outstanding]. */
export const EXPECTED_BY_CUSTOMER = [
  [ACME, 'EUR', '1234'],
  [BETA, 'EUR', '10'],
  [ACME, 'JPY', '4000'],
  [ACME, 'USD', '750.05'],
  [BETA, 'USD', '199.85'],
]

export const AGED_READ = INVOICES.length
export const NOT_AGED = {void_or_draft: 2, nothing_outstanding: 2}

export function addAgingBusiness(emulator: RunningEmulator): void {
  addBusiness(emulator, AGING_BUSINESS, 'Aging Fixture Ltd', INVOICES)
}

/** A business whose customers have long ids and owe millions in every bucket: too wide for 80 columns. */
export const WIDE_BUSINESS = 'biz_fixture_aging_wide'
export const WIDE_CUSTOMERS = [
  'cus_fixture_northwind_traders_international',
  'cus_fixture_contoso_pharmaceuticals_emea',
]
/** Due dates in each bucket of the default --buckets, as of AS_OF: current, 1-30, 31-60, 61-90, 91+. */
const WIDE_DUES = [
  '2026-07-15T00:00:00Z',
  '2026-06-20T00:00:00Z',
  '2026-05-20T00:00:00Z',
  '2026-04-20T00:00:00Z',
].concat(['2026-01-20T00:00:00Z'])
export const WIDE_AMOUNTS = ['1234567.89', '2345678.91', '3456789.12', '4567891.23', '5678912.34']

export function addWideAgingBusiness(emulator: RunningEmulator): void {
  const specs = WIDE_CUSTOMERS.flatMap((customer) =>
    WIDE_DUES.map((due, k): Spec => ({customer, currency: 'USD', total: Number(WIDE_AMOUNTS[k]), due})),
  )
  addBusiness(emulator, WIDE_BUSINESS, 'Aging Wide Ltd', specs)
}

function addBusiness(emulator: RunningEmulator, businessId: string, name: string, invoices: Spec[]): void {
  const state = emulator.state
  state.businesses.set(businessId, {
    id: businessId,
    external_id: `ext-${businessId}`,
    name,
    active: true,
    created_at: '2026-01-01T00:00:00Z',
  })
  invoices.forEach((spec, k) => {
    const id = state.newId('inv_')
    const invoice = {
      id,
      business_id: businessId,
      customer_id: spec.customer,
      number: `AGE-${k + 1}`,
      description: `Fixture ${k + 1}`,
      total_amount: spec.total,
      total_paid: spec.paid ?? 0,
      credit_amount: spec.credit ?? 0,
      source: 'manual',
      status: spec.status ?? 'open',
      // Not in the spec's invoice: the service may send it, and aging groups by it.
      currency: spec.currency,
      due_at: spec.due,
      sent_at: null,
      voided_at: spec.status === 'void' ? '2026-01-05T00:00:00Z' : null,
      metadata_: {},
      lines: [],
      payments: [],
    } as Invoice
    state.invoices.add(businessId, invoice)
  })
}
