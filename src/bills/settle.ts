/**
 * Unconfirmed bills: those whose outcome bk could not know (docs/reliability.md). Listing them
 * from the journal, and settling them with what is known about the service's bills: found bills
 * become created (skipped by --resume), bills found never created become free to send again.
 * The spec has no bill lookup, so the knowledge comes from elsewhere: the emulator's inspection
 * route, or the user's own check.
 */
import {KEY_SEPARATOR} from './bill-key.js'
import {InputError} from '../shared/errors.js'
import {BillLogWriter, lockBillLog, readBillLog, type BillLogHeader, type BillLogState} from './resume-log.js'

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
  /** Unconfirmed bills the service holds, with their keys and ids: recorded as created. */
  created: Array<{number: string; key: string; id: string}>
  /** Unconfirmed bills the service does not hold: the next --resume sends them. */
  absent: string[]
}

export async function listUnconfirmed(
  journalFile: string,
): Promise<{business: string; baseUrl: string; header: BillLogHeader; bills: UnconfirmedBill[]}> {
  const state = await readBillLog(journalFile)
  return {business: state.header.business, baseUrl: state.header.baseUrl, ...unconfirmedOf(state)}
}

function unconfirmedOf(state: BillLogState): {header: BillLogHeader; bills: UnconfirmedBill[]} {
  const bills: UnconfirmedBill[] = []
  for (const [key, outcome] of state.outcomes)
    if (outcome.kind === 'unconfirmed') bills.push({number: numberOf(key, state.header), key, reason: outcome.reason})
  return {header: state.header, bills}
}

/** What a settlement gives the record of created bills, once the journal holds it. */
export interface SettledForRecord {
  /** Unconfirmed bills found to exist. */
  found: Array<{key: string; id: string}>
  /** Unconfirmed bills found never created: free to be sent again. */
  absent: string[]
  /**
   * Every bill the journal records as created: a kill between a batch's result and the record's
   * append leaves some only in the journal, and the next import of another file would send them.
   */
  logged: Array<{key: string; id: string}>
}

/**
 * Records a settlement of the journal's unconfirmed bills, given the bills the service holds
 * (undefined when the listing found none to settle and so nothing was asked). Holds the journal's
 * lock, so no import of the file runs meanwhile. Gives back the bills it settled, as read under
 * the lock: another settlement may have settled some of those listed before it.
 */
export async function settleUnconfirmed(
  journalFile: string,
  held: readonly ServiceBill[] | undefined,
  /** Told what the record of created bills must learn (by key), once the journal holds it. */
  onSettled?: (settled: SettledForRecord) => Promise<void>,
): Promise<{bills: UnconfirmedBill[]; settlement: Settlement}> {
  const lock = lockBillLog(journalFile)
  try {
    const state = await readBillLog(journalFile)
    const {bills, header} = unconfirmedOf(state)
    if (bills.length > 0 && held === undefined)
      throw new InputError(`The import journal ${journalFile} gained unconfirmed bills while they were being settled`, {
        hint: 'Run the settlement again.',
      })
    const existing = new Map<string, string>()
    for (const bill of held ?? []) {
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
        settlement.created.push({number, key, id})
        record.created.push([key, id])
      }
    }
    if (bills.length > 0) await appendSettled(journalFile, record)
    // A journal of bk 0.1 names bills by number alone: not a key the record knows.
    if (header.version !== 1) {
      const logged: SettledForRecord['logged'] = []
      for (const [key, outcome] of state.outcomes) if (outcome.kind === 'created') logged.push({key, id: outcome.id})
      await onSettled?.({found: record.created.map(([key, id]) => ({key, id})), absent: record.absent, logged})
    }
    return {bills, settlement}
  } finally {
    lock.release()
  }
}

async function appendSettled(
  journalFile: string,
  record: {created: Array<[string, string]>; absent: string[]},
): Promise<void> {
  const writer = await BillLogWriter.open(journalFile)
  try {
    await writer.append({t: 'settled', at: new Date().toISOString(), created: record.created, absent: record.absent})
  } finally {
    await writer.close()
  }
}
