/**
 * The readable view of one transaction for `bk transactions get` (people; --json gives the whole
 * object). Amounts appear as the service sent them: decimal strings unchanged, numbers as
 * JavaScript prints them (their shortest exact text); nothing is summed or rounded here.
 */
import type {Transaction} from '../api/schemas/index.js'

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

export function formatTransaction(t: Transaction): string {
  const out: string[] = [`Transaction ${t.id}`]
  const flags = [
    t.posted ? 'posted' : t.posted === false ? 'not posted' : undefined,
    t.reviewed ? 'reviewed' : t.reviewed === false ? 'not reviewed' : undefined,
  ].filter(Boolean)
  out.push(
    ...table([
      ['Amount', text(t.amount)],
      ['Date', text(t.datetime)],
      ['Status', text(t.status) + (flags.length ? ` (${flags.join(', ')})` : '')],
      ['Type', text(t.type)],
      ['Description', text(t.description)],
      ['Account', text(t.external_account_id)],
      ['External id', text(t.external_id)],
    ]),
  )
  const categories = t.category ?? []
  out.push('', 'Category')
  out.push(...(categories.length ? table(categories.map((c) => [c.name, c.amount])) : ['  (none)']))
  const items = t.line_items ?? []
  out.push('', 'Line items')
  out.push(
    ...(items.length
      ? table([
          ['ID', 'LEDGER', 'CATEGORY', 'DESCRIPTION', 'AMOUNT'],
          ...items.map((i) => [i.id, text(i.ledger_id), text(i.category), text(i.description), text(i.amount)]),
        ])
      : ['  (none)']),
  )
  const payments = t.invoice_payments ?? []
  if (payments.length) {
    out.push('', 'Invoice payments')
    out.push(
      ...table([
        ['ID', 'DATE', 'AMOUNT', 'INVOICE', 'NUMBER', 'STATUS', 'TOTAL'],
        ...payments.map((p) => {
          const invoice = (p.invoice && typeof p.invoice === 'object' ? p.invoice : {}) as Record<string, unknown>
          return [
            p.id,
            text(p.datetime),
            text(p.payment_amount),
            text(p.invoice_id),
            text(invoice.number),
            text(invoice.status),
            text(invoice.total_amount),
          ]
        }),
      ]),
    )
  }
  const refunds = t.refund_payments ?? []
  if (refunds.length) {
    out.push('', 'Refund payments')
    out.push(...table(refunds.map((r) => [r.id, text(r.amount)])))
  }
  const bills = t.bill_payments ?? []
  if (bills.length) {
    out.push('', 'Bill payments')
    out.push(...table(bills.map((b) => [b.id, text(b.bill_id), text(b.payment_amount)])))
  }
  const tags = Object.entries(t.tags ?? {})
  if (tags.length) {
    out.push('', 'Tags')
    out.push(...table(tags.flatMap(([field, values]) => values.map((v) => [field, v.value, v.amount]))))
  }
  return out.join('\n') + '\n'
}
