/**
 * `--summary` of `invoices list` and `refunds list`: how many records each status has, and their
 * amounts summed exactly (decimal.js) per currency, never across currencies. It covers the records
 * listed (one page, --limit N, or every page with --all), added page by page as they stream.
 */
import {JsonNumber} from '../shared/exact-json.js'
import {Decimal, moneyOf, type Money} from '../shared/money.js'
import {counted} from '../shared/counts.js'
import {renderTable} from '../output/table.js'
import {formatAmount} from '../output/display.js'

export interface CurrencyTotal {
  /** The records' currency; null when they name none (the spec gives invoices and refunds none). */
  currency: string | null
  /** The sum, as a decimal string. */
  amount: string
}

export interface StatusSummary {
  status: string | null
  count: number
  totals: CurrencyTotal[]
}

export interface ListSummary {
  count: number
  /** Which field was summed (total_amount of invoices, amount of refunds). */
  amount_field: string
  by_status: StatusSummary[]
}

export class SummaryBuilder {
  private count = 0
  private readonly statuses = new Map<string | null, {count: number; totals: Map<string | null, Money>}>()

  constructor(
    /** The field summed. */
    private readonly amountField: string,
    /** The plural noun people read ("invoices"). */
    private readonly noun: string,
  ) {}

  add(items: readonly unknown[]): void {
    for (const item of items) {
      const record = item as Record<string, unknown>
      const status = typeof record.status === 'string' ? record.status : null
      const currency = typeof record.currency === 'string' && record.currency !== '' ? record.currency : null
      let entry = this.statuses.get(status)
      if (!entry) this.statuses.set(status, (entry = {count: 0, totals: new Map()}))
      entry.count++
      this.count++
      const value = record[this.amountField]
      let amount: Money
      if (typeof value === 'number' || value instanceof JsonNumber) amount = moneyOf(value)
      else if (typeof value === 'string') amount = new Decimal(value)
      else continue
      entry.totals.set(currency, (entry.totals.get(currency) ?? new Decimal(0)).plus(amount))
    }
  }

  result(): ListSummary {
    const byName = (a: string | null, b: string | null) => (a ?? '').localeCompare(b ?? '')
    return {
      count: this.count,
      amount_field: this.amountField,
      by_status: [...this.statuses.entries()]
        .sort(([a], [b]) => byName(a, b))
        .map(([status, entry]) => ({
          status,
          count: entry.count,
          totals: [...entry.totals.entries()]
            .sort(([a], [b]) => byName(a, b))
            .map(([currency, sum]) => ({currency, amount: sum.toFixed()})),
        })),
    }
  }

  /** The summary for people (stderr): one line per status and currency. */
  text(width: number): string {
    const summary = this.result()
    const rows: string[][] = []
    for (const s of summary.by_status) {
      const totals = s.totals.length ? s.totals : [undefined]
      totals.forEach((t, i) => {
        rows.push([
          i === 0 ? (s.status ?? '-') : '',
          i === 0 ? String(s.count) : '',
          t ? (t.currency ?? '-') : '',
          t ? formatAmount(t.amount, t.currency) : '',
        ])
      })
    }
    const lines = renderTable(
      [
        {header: 'STATUS', kind: 'text'},
        {header: 'COUNT', kind: 'number'},
        {header: 'CURRENCY', kind: 'text'},
        {header: this.amountField.replace(/_/g, ' ').toUpperCase(), kind: 'amount'},
      ],
      rows,
      {width, color: false},
    )
    return (
      [
        `Summary: ${counted(summary.count, this.noun.replace(/s$/, ''), this.noun)}`,
        ...(rows.length ? lines : []),
      ].join('\n') + '\n'
    )
  }
}
