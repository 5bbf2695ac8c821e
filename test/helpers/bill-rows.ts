/**
 * Bills files in bk's own format, for tests that need valid bills rather than a particular
 * layout: one line each, for the demo business's office vendor and expenses ledger.
 */
import {DEMO_IDS} from '../../src/emulator/seed.js'

export const BILL_HEADER =
  'number,vendor_id,description,issued_at,due_at,currency,line_description,line_amount,line_ledger_id'

export interface BillRowOptions {
  amount?: string
  vendor?: string
  description?: string
}

/** One bill of one line, dated 2026-03-01, due 2026-04-01, in EUR. */
export function billRow(number: string, {amount = '1.00', vendor, description = 'Paper'}: BillRowOptions = {}): string {
  return `${number},${vendor ?? DEMO_IDS.vendors.office},${description},2026-03-01,2026-04-01T00:00:00Z,EUR,Paper,${amount},${DEMO_IDS.ledgers.expenses}`
}

/** The header, then each row, each line ended. */
export function billsCsv(rows: string[]): string {
  return [BILL_HEADER, ...rows].join('\n') + '\n'
}

/** Bills PREFIX-from … PREFIX-to, the amount of each its number plus `cents`, as a file's text. */
export function numberedBills(prefix: string, from: number, to: number, cents = '00'): string {
  const rows = []
  for (let i = from; i <= to; i++) rows.push(billRow(`${prefix}-${i}`, {amount: `${i}.${cents}`}))
  return billsCsv(rows)
}
