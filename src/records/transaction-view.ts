/**
 * The readable view of one transaction for `bk transactions get` (people; --json gives the whole
 * object). Amounts and dates read as in the list tables (src/output/display.ts: `1068.70`,
 * `2026-02-01 10:00Z`); nothing is summed or rounded here. The tables of line items and payments
 * fit the terminal as the list tables do, dropping the least needed columns first.
 */
import type {Transaction} from '../api/schemas/index.js'
import {formatAmount, formatDatetime} from '../output/display.js'
import {renderTable, type TableColumn, type TableOptions} from '../output/table.js'

const text = (v: unknown): string =>
  v === null || v === undefined || v === '' ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v)

function table(rows: string[][], indent = '  '): string[] {
  const widths: number[] = []
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)))
  return rows.map(
    (row) =>
      indent +
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
  )
}

/** A table of the list commands' kind, indented under its heading. */
function fitted(columns: TableColumn[], rows: string[][], options: TableOptions): string[] {
  return renderTable(columns, rows, {...options, width: options.width - 2}).map((line) => `  ${line}`)
}

const amount = (v: unknown): string => text(formatAmount(v))
const date = (v: unknown): string => text(formatDatetime(v))

export function formatTransaction(
  t: Transaction,
  options: TableOptions = {width: Number.POSITIVE_INFINITY, color: false},
): string {
  const out: string[] = [`Transaction ${t.id}`]
  const flags = [
    t.posted ? 'posted' : t.posted === false ? 'not posted' : undefined,
    t.reviewed ? 'reviewed' : t.reviewed === false ? 'not reviewed' : undefined,
  ].filter(Boolean)
  out.push(
    ...table([
      ['Amount', amount(t.amount)],
      ['Date', date(t.datetime)],
      ['Status', text(t.status) + (flags.length ? ` (${flags.join(', ')})` : '')],
      ['Type', text(t.type)],
      ['Description', text(t.description)],
      ['Account', text(t.external_account_id)],
      ['External id', text(t.external_id)],
    ]),
  )
  const categories = t.category ?? []
  out.push('', 'Category')
  out.push(...(categories.length ? table(categories.map((c) => [c.name, amount(c.amount)])) : ['  (none)']))
  const items = t.line_items ?? []
  out.push('', 'Line items')
  out.push(
    ...(items.length
      ? fitted(
          [
            {header: 'ID', kind: 'id'},
            {header: 'LEDGER', kind: 'id', priority: 2},
            {header: 'CATEGORY', kind: 'text', priority: 3},
            {header: 'DESCRIPTION', kind: 'text', priority: 1},
            {header: 'AMOUNT', kind: 'amount'},
          ],
          items.map((i) => [i.id, text(i.ledger_id), text(i.category), text(i.description), amount(i.amount)]),
          options,
        )
      : ['  (none)']),
  )
  const payments = t.invoice_payments ?? []
  if (payments.length) {
    out.push('', 'Invoice payments')
    out.push(
      ...fitted(
        [
          {header: 'ID', kind: 'id', priority: 1},
          {header: 'DATE', kind: 'date'},
          {header: 'AMOUNT', kind: 'amount'},
          {header: 'INVOICE', kind: 'id'},
          {header: 'NUMBER', kind: 'id', priority: 4},
          {header: 'STATUS', kind: 'id', priority: 3},
          {header: 'TOTAL', kind: 'amount', priority: 2},
        ],
        payments.map((p) => {
          const invoice = (p.invoice && typeof p.invoice === 'object' ? p.invoice : {}) as Record<string, unknown>
          return [
            p.id,
            date(p.datetime),
            amount(p.payment_amount),
            text(p.invoice_id),
            text(invoice.number),
            text(invoice.status),
            amount(invoice.total_amount),
          ]
        }),
        options,
      ),
    )
  }
  const refunds = t.refund_payments ?? []
  if (refunds.length) {
    out.push('', 'Refund payments')
    out.push(...table(refunds.map((r) => [r.id, amount(r.amount)])))
  }
  const bills = t.bill_payments ?? []
  if (bills.length) {
    out.push('', 'Bill payments')
    out.push(...table(bills.map((b) => [b.id, text(b.bill_id), amount(b.payment_amount)])))
  }
  const tags = Object.entries(t.tags ?? {})
  if (tags.length) {
    out.push('', 'Tags')
    out.push(...table(tags.flatMap(([field, values]) => values.map((v) => [field, v.value, amount(v.amount)]))))
  }
  return out.join('\n') + '\n'
}
