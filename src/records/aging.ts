/**
 * `bk invoices aging`: what each business is owed, by how late it is. Every invoice is read once,
 * page by page (memory holds the totals, never the invoices); its outstanding amount is
 * total_amount − total_paid − credit_amount, exact (decimal.js), and falls in a bucket by the
 * days between its due date and the as-of date, both UTC calendar days. Amounts are summed per
 * currency, never across currencies.
 *
 * Not aged: void and draft invoices (nothing is owed on them yet, or any more), and invoices with
 * nothing outstanding (paid, or credited in full). An invoice without a due date is current.
 */
import {invoice} from '../api/schemas/invoice.js'
import {z} from '../api/schemas/zod.js'
import {ISO_8601_EXPECTED, parseIsoDatetime} from '../shared/datetime.js'
import {InputError} from '../shared/errors.js'
import type {JsonNumber} from '../shared/exact-json.js'
import {Decimal, moneyOf, type Money} from '../shared/money.js'

/** What aging reads of an invoice: only these fields are checked, so a 100,000-invoice run does not pay for the rest. */
export const agingView = z.object(
  z.pick(invoice, {
    id: true,
    status: true,
    customer_id: true,
    currency: true,
    total_amount: true,
    total_paid: true,
    credit_amount: true,
    due_at: true,
    voided_at: true,
  }).shape,
)
export type AgingInvoice = z.infer<typeof agingView>

/** Statuses whose invoices are not receivables. */
export const NOT_AGED_STATUSES = ['void', 'draft'] as const

export type AgingGroup = 'currency' | 'customer'

export interface AgingBucket {
  label: string
  /** Days past due, inclusive; null: no lower bound (current: not yet due, or due on the as-of date). */
  from_days: number | null
  to_days: number | null
}

export interface BucketTotal {
  /** The bucket's label, as in `buckets`. */
  label: string
  invoices: number
  /** Decimal string, exact. */
  amount: string
}

export interface AgingRow {
  currency: string | null
  /** With --by customer. */
  customer_id?: string | null
  invoices: number
  outstanding: string
  /** One per bucket, in the order of `buckets`. */
  buckets: BucketTotal[]
}

export interface AgingReport {
  as_of: string
  by: AgingGroup
  buckets: AgingBucket[]
  /** By currency, or by customer and currency with --by customer. */
  rows: AgingRow[]
  /** By currency, whatever the grouping. */
  totals: AgingRow[]
  /** Invoices read, and why those not aged were left out. */
  invoices_read: number
  not_aged: {void_or_draft: number; nothing_outstanding: number}
}

export const DEFAULT_BUCKETS = [30, 60, 90]
const DAY_MS = 86_400_000

/** --buckets "30,60,90": ascending whole days, each after the one before. */
export function parseBuckets(value: string | undefined): number[] {
  if (value === undefined) return DEFAULT_BUCKETS
  const parts = value.split(',').map((s) => s.trim())
  const days: number[] = []
  for (const part of parts) {
    if (!/^\d+$/.test(part) || Number(part) < 1 || Number(part) > 100_000)
      throw new InputError(`--buckets "${value}": "${part}" is not a whole number of days from 1 to 100000`, {
        hint: 'Give the days each bucket ends at, ascending: --buckets 30,60,90.',
        details: {flag: '--buckets', value},
      })
    const day = Number(part)
    const last = days.at(-1)
    if (last !== undefined && day <= last)
      throw new InputError(`--buckets "${value}": ${day} does not come after ${last}`, {
        hint: 'Give the days each bucket ends at, ascending: --buckets 30,60,90.',
        details: {flag: '--buckets', value},
      })
    days.push(day)
  }
  if (days.length > 12)
    throw new InputError(`--buckets "${value}": at most 12 buckets`, {details: {flag: '--buckets', value}})
  return days
}

/** --as-of: a date or datetime; its UTC calendar day (today in UTC when not given). */
export function parseAsOf(value: string | undefined, now: Date = new Date()): string {
  if (value === undefined) return now.toISOString().slice(0, 10)
  const parsed = parseIsoDatetime(value)
  if (!parsed.ok)
    throw new InputError(`--as-of "${value}" is not ${ISO_8601_EXPECTED}`, {
      details: {flag: '--as-of', value},
      hint: 'Give the day as YYYY-MM-DD: --as-of 2026-06-30.',
    })
  return new Date(parsed.value.epochMs).toISOString().slice(0, 10)
}

/** The buckets for these boundaries: current, 1-30, 31-60, 61-90, 91+. */
export function bucketsFor(days: readonly number[]): AgingBucket[] {
  const out: AgingBucket[] = [{label: 'current', from_days: null, to_days: 0}]
  let from = 1
  for (const to of days) {
    out.push({label: `${from}-${to}`, from_days: from, to_days: to})
    from = to + 1
  }
  out.push({label: `${from}+`, from_days: from, to_days: null})
  return out
}

interface Totals {
  currency: string | null
  customer: string | null
  invoices: number
  outstanding: Money
  counts: number[]
  amounts: Money[]
}

const ZERO = new Decimal(0)
const money = (value: number | JsonNumber | null | undefined): Money =>
  value === null || value === undefined ? ZERO : moneyOf(value)

export class AgingBuilder {
  private readonly asOfDay: number
  private readonly bucketList: AgingBucket[]
  private readonly groups = new Map<string, Totals>()
  private read = 0
  private voidOrDraft = 0
  private settled = 0

  constructor(
    private readonly asOf: string,
    private readonly days: readonly number[],
    private readonly by: AgingGroup,
  ) {
    this.asOfDay = Math.floor(Date.parse(`${asOf}T00:00:00Z`) / DAY_MS)
    this.bucketList = bucketsFor(days)
  }

  add(invoices: readonly AgingInvoice[]): void {
    for (const inv of invoices) {
      this.read++
      if ((NOT_AGED_STATUSES as readonly string[]).includes(inv.status ?? '') || inv.voided_at) {
        this.voidOrDraft++
        continue
      }
      const outstanding = money(inv.total_amount).minus(money(inv.total_paid)).minus(money(inv.credit_amount))
      if (outstanding.lte(0)) {
        this.settled++
        continue
      }
      const bucket = this.bucketOf(inv.due_at)
      const currency = inv.currency || null
      const customer = this.by === 'customer' ? (inv.customer_id ?? null) : null
      const key = `${currency ?? ''}\u0000${customer ?? ''}`
      let totals = this.groups.get(key)
      if (!totals) {
        totals = {
          currency,
          customer,
          invoices: 0,
          outstanding: ZERO,
          counts: this.bucketList.map(() => 0),
          amounts: this.bucketList.map(() => ZERO),
        }
        this.groups.set(key, totals)
      }
      totals.invoices++
      totals.outstanding = totals.outstanding.plus(outstanding)
      totals.counts[bucket] = (totals.counts[bucket] ?? 0) + 1
      totals.amounts[bucket] = (totals.amounts[bucket] ?? ZERO).plus(outstanding)
    }
  }

  /** The bucket index for a due date: days past due on the as-of date, UTC days. */
  private bucketOf(dueAt: string | null | undefined): number {
    if (!dueAt) return 0
    const parsed = parseIsoDatetime(dueAt)
    if (!parsed.ok) return 0
    const late = this.asOfDay - Math.floor(parsed.value.epochMs / DAY_MS)
    if (late <= 0) return 0
    const at = this.days.findIndex((d) => late <= d)
    return at === -1 ? this.days.length + 1 : at + 1
  }

  result(): AgingReport {
    const groups = [...this.groups.values()]
    const byCurrency = new Map<string, Totals>()
    for (const g of groups) {
      const key = g.currency ?? ''
      const t = byCurrency.get(key)
      if (!t) {
        byCurrency.set(key, {...g, customer: null, counts: [...g.counts], amounts: [...g.amounts]})
        continue
      }
      t.invoices += g.invoices
      t.outstanding = t.outstanding.plus(g.outstanding)
      g.counts.forEach((c, i) => (t.counts[i] = (t.counts[i] ?? 0) + c))
      g.amounts.forEach((a, i) => (t.amounts[i] = (t.amounts[i] ?? ZERO).plus(a)))
    }
    const order = (a: Totals, b: Totals) =>
      (a.currency ?? '').localeCompare(b.currency ?? '') || (a.customer ?? '').localeCompare(b.customer ?? '')
    const row = (t: Totals, withCustomer: boolean): AgingRow => ({
      currency: t.currency,
      ...(withCustomer ? {customer_id: t.customer} : {}),
      invoices: t.invoices,
      outstanding: t.outstanding.toFixed(),
      buckets: t.amounts.map((a, i) => ({
        label: this.bucketList[i]?.label ?? '',
        invoices: t.counts[i] ?? 0,
        amount: a.toFixed(),
      })),
    })
    const totals = [...byCurrency.values()].sort(order).map((t) => row(t, false))
    return {
      as_of: this.asOf,
      by: this.by,
      buckets: this.bucketList,
      rows: this.by === 'customer' ? groups.sort(order).map((t) => row(t, true)) : totals,
      totals,
      invoices_read: this.read,
      not_aged: {void_or_draft: this.voidOrDraft, nothing_outstanding: this.settled},
    }
  }
}
