/**
 * The aging report for people and spreadsheets. For people (a table): by currency, one block per
 * currency with a row per bucket and a bar showing its share of the largest bucket; by customer,
 * one row per customer and currency with a column per bucket and the currency's total under
 * them. For spreadsheets (csv): one row per currency (or customer and currency), one column per
 * bucket, amounts exact as decimal strings.
 */
import {Decimal} from '../shared/money.js'
import {counted} from '../shared/counts.js'
import {formatAmount} from '../output/display.js'
import {safeCsv} from '../output/safe-csv.js'
import {renderTable, type TableColumn} from '../output/table.js'
import {displayWidth, styles, wrapWords} from '../output/terminal.js'
import type {AgingReport, AgingRow} from './aging.js'

const BAR_MAX = 40
const BAR_MIN = 4

/** A bar of `fraction` (0..1) of `width` columns, in eighths of a block. */
export function bar(fraction: number, width: number): string {
  if (!(fraction > 0) || width <= 0) return ''
  const eighths = Math.max(1, Math.round(Math.min(1, fraction) * width * 8))
  const partial = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'][eighths % 8] as string
  return '█'.repeat(Math.floor(eighths / 8)) + partial
}

const currencyLabel = (c: string | null) => c ?? '(no currency)'

export function agingTable(report: AgingReport, options: {width: number; color: boolean}): string {
  if (report.totals.length === 0)
    return `Nothing outstanding as of ${report.as_of} (${counted(report.invoices_read, 'invoice')} read).\n`
  const {bold} = styles(options.color)
  const out = wrapWords(`Outstanding invoices as of ${report.as_of}, by days past due`, options.width)
  if (report.by === 'customer') {
    out.push('', ...customerTable(report, options))
    return out.join('\n') + '\n'
  }
  for (const total of report.totals) {
    // A bar only shows a proportion: a float is exact enough for its length (amounts stay decimal).
    const largest = Math.max(...total.buckets.map((b) => Number(b.amount)))
    const columns: TableColumn[] = [
      {header: 'DAYS PAST DUE', kind: 'id'},
      {header: 'INVOICES', kind: 'number'},
      {header: 'AMOUNT', kind: 'amount'},
    ]
    const rows = [
      ...total.buckets.map((b) => [b.label, String(b.invoices), formatAmount(b.amount, total.currency)]),
      ['total', String(total.invoices), formatAmount(total.outstanding, total.currency)],
    ]
    const lines = renderTable(columns, rows, options)
    // Measured without colour: escape codes take no columns.
    const tableWidth = Math.max(...renderTable(columns, rows, {...options, color: false}).map(displayWidth))
    const barWidth = Math.min(BAR_MAX, options.width - tableWidth - 2)
    out.push('', bold(currencyLabel(total.currency)), lines[0] as string)
    total.buckets.forEach((b, i) => {
      const line = lines[i + 1] as string
      const shown = barWidth >= BAR_MIN ? bar(Number(b.amount) / largest, barWidth) : ''
      out.push(shown ? `${line.padEnd(tableWidth)}  ${shown}` : line)
    })
    out.push(lines.at(-1) as string)
  }
  return out.join('\n') + '\n'
}

/**
 * By customer: one row per customer and currency, a column per bucket, when that fits the
 * terminal whole (the INVOICES column goes first); else a block per customer and currency, a
 * row per bucket. A customer id or an amount is never cut: a reader could not tell it was.
 */
function customerTable(report: AgingReport, options: {width: number; color: boolean}): string[] {
  const rows: Array<{title: string; row: AgingRow}> = []
  for (const total of report.totals) {
    for (const r of report.rows.filter((x) => x.currency === total.currency))
      rows.push({title: r.customer_id ?? '-', row: r})
    rows.push({title: 'total', row: total})
  }
  const amount = (value: string, currency: string | null) =>
    new Decimal(value).isZero() ? '' : formatAmount(value, currency)
  const wide: TableColumn[] = [
    {header: 'CUSTOMER', kind: 'id'},
    {header: 'CURRENCY', kind: 'id'},
    {header: 'INVOICES', kind: 'number', priority: 1},
    ...report.buckets.map((b): TableColumn => ({header: b.label.toUpperCase(), kind: 'amount'})),
    {header: 'TOTAL', kind: 'amount'},
  ]
  const wideRows = rows.map(({title, row}) => [
    title,
    row.currency ?? '-',
    String(row.invoices),
    ...row.buckets.map((b) => amount(b.amount, row.currency)),
    formatAmount(row.outstanding, row.currency),
  ])
  const table = uncut(wide, wideRows, options.width, options.color)
  if (table) return table
  // Blocks: one table for all of them, so that amounts line up from block to block.
  const narrow: TableColumn[] = [
    {header: 'DAYS PAST DUE', kind: 'id'},
    {header: 'INVOICES', kind: 'number', priority: 1},
    {header: 'AMOUNT', kind: 'amount'},
  ]
  const narrowRows = rows.flatMap(({row}) => [
    ...row.buckets.map((b) => [b.label, String(b.invoices), amount(b.amount, row.currency)]),
    ['total', String(row.invoices), formatAmount(row.outstanding, row.currency)],
  ])
  const INDENT = 2
  const lines = uncut(narrow, narrowRows, options.width - INDENT, options.color) ?? []
  const {bold} = styles(options.color)
  const out: string[] = []
  const perBlock = report.buckets.length + 1
  rows.forEach(({title, row}, k) => {
    const heading = `${title === 'total' ? 'Total' : title} (${row.currency ?? 'no currency'})`
    if (k > 0) out.push('')
    out.push(bold(heading))
    if (k === 0) out.push(' '.repeat(INDENT) + (lines[0] as string))
    for (const line of lines.slice(1 + k * perBlock, 1 + (k + 1) * perBlock)) out.push(' '.repeat(INDENT) + line)
  })
  return out
}

/**
 * The table's lines if it fits `width` without cutting a cell, its droppable columns dropped as
 * needed; with none left to drop, uncut whatever its width (undefined: it does not fit).
 */
function uncut(
  columns: readonly TableColumn[],
  rows: readonly string[][],
  width: number,
  color: boolean,
): string[] | undefined {
  let shown = columns.map((_, i) => i)
  for (;;) {
    const cols = shown.map((i) => columns[i] as TableColumn)
    const cells = rows.map((r) => shown.map((i) => r[i] ?? ''))
    const plain = renderTable(cols, cells, {width: Number.POSITIVE_INFINITY, color: false})
    if (Math.max(...plain.map(displayWidth)) <= width)
      return renderTable(cols, cells, {width: Number.POSITIVE_INFINITY, color})
    const droppable = shown.filter((i) => columns[i]?.priority !== undefined)
    if (droppable.length === 0) return undefined
    const lowest = droppable.reduce((a, b) => ((columns[b]?.priority ?? 0) < (columns[a]?.priority ?? 0) ? b : a))
    shown = shown.filter((i) => i !== lowest)
  }
}

/** One row per currency (or customer and currency), one column per bucket; amounts exact. */
export function agingCsv(report: AgingReport): string {
  const header = [
    'currency',
    ...(report.by === 'customer' ? ['customer_id'] : []),
    'invoices',
    'outstanding',
    ...report.buckets.map((b) => b.label),
  ]
  const rows = report.rows.map((r) => [
    r.currency ?? '',
    ...(report.by === 'customer' ? [r.customer_id ?? ''] : []),
    r.invoices,
    r.outstanding,
    ...r.buckets.map((b) => b.amount),
  ])
  return safeCsv([header, ...rows])
}
