/**
 * Unconfirmed bills: those whose outcome bk could not know (docs/reliability.md). Listing them
 * from the journal, and settling them with what is known about the service's bills: found bills
 * become created (skipped by --resume), bills found never created become free to send again.
 * The spec has no bill lookup, so the knowledge comes from elsewhere: the emulator's inspection
 * route, or the user's own check.
 */
import {KEY_SEPARATOR} from './bill-key.js'
import {BillLogWriter, lockBillLog, readBillLog, type BillLogHeader} from './resume-log.js'

export interface UnconfirmedBill {
  number: string
  /** The bill's key in the journal (vendor and number by default, joined by U+001F). */
  key: string
  reason: string
}

/** A bill the service holds, as far as settling needs it. */
export interface ServiceBill {
  id: string
  number?: string | null | undefined
  [field: string]: unknown
}

/** The journal key of a bill the service holds: its key columns' values, as the import sent them. */
function serviceKey(bill: ServiceBill, header: BillLogHeader): string | undefined {
  if (!bill.number) return undefined
  if (header.version === 1) return bill.number
  const columns = header.key ?? ['vendor_id', 'number']
  return columns.map((c) => (typeof bill[c] === 'string' ? (bill[c] as string) : '')).join(KEY_SEPARATOR)
}

function numberOf(key: string, header: BillLogHeader): string {
  if (header.version === 1) return key
  const at = (header.key ?? ['vendor_id', 'number']).indexOf('number')
  return key.split(KEY_SEPARATOR)[at] ?? key
}

export interface Settlement {
  /** Unconfirmed bills the service holds, with their ids: recorded as created. */
  created: Array<{number: string; id: string}>
  /** Unconfirmed bills the service does not hold: the next --resume sends them. */
  absent: string[]
}

export async function listUnconfirmed(
  journalFile: string,
): Promise<{business: string; baseUrl: string; header: BillLogHeader; bills: UnconfirmedBill[]}> {
  const state = await readBillLog(journalFile)
  const bills: UnconfirmedBill[] = []
  for (const [key, outcome] of state.outcomes)
    if (outcome.kind === 'unconfirmed') bills.push({number: numberOf(key, state.header), key, reason: outcome.reason})
  return {business: state.header.business, baseUrl: state.header.baseUrl, header: state.header, bills}
}

/**
 * Records a settlement of the journal's unconfirmed bills, given the bills the service holds.
 * Holds the journal's lock, so no import of the file runs meanwhile.
 */
export async function settleUnconfirmed(
  journalFile: string,
  held: readonly ServiceBill[],
  /** Told the bills found to exist (by key) and those never created, once the journal holds them: for the record of created bills. */
  onSettled?: (created: Array<{key: string; id: string}>, absent: string[]) => Promise<void>,
): Promise<Settlement> {
  const lock = lockBillLog(journalFile)
  try {
    const {bills, header} = await listUnconfirmed(journalFile)
    const existing = new Map<string, string>()
    for (const bill of held) {
      const key = serviceKey(bill, header)
      if (key !== undefined) existing.set(key, bill.id)
    }
    const settlement: Settlement = {created: [], absent: []}
    const record = {created: [] as Array<[string, string]>, absent: [] as string[]}
    for (const {key, number} of bills) {
      const id = existing.get(key)
      if (id === undefined) {
        settlement.absent.push(number)
        record.absent.push(key)
      } else {
        settlement.created.push({number, id})
        record.created.push([key, id])
      }
    }
    if (bills.length === 0) return settlement
    const writer = await BillLogWriter.open(journalFile)
    try {
      await writer.append({
        t: 'settled',
        at: new Date().toISOString(),
        created: record.created,
        absent: record.absent,
      })
    } finally {
      await writer.close()
    }
    // A journal of bk 0.1 names bills by number alone: not a key the record knows.
    if (header.version !== 1)
      await onSettled?.(
        record.created.map(([key, id]) => ({key, id})),
        record.absent,
      )
    return settlement
  } finally {
    lock.release()
  }
}
