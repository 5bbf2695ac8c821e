/**
 * Unconfirmed bills: those whose outcome bk could not know (README "Reliability"). Listing them
 * from the journal, and settling them with what is known about the service's bills: found bills
 * become created (skipped by --resume), bills found never created become free to send again.
 * The spec has no bill lookup, so the knowledge comes from elsewhere: the emulator's inspection
 * route, or the user's own check.
 */
import {JournalWriter, lockJournal, readJournal} from './journal.js'

export interface UnconfirmedBill {
  number: string
  reason: string
}

export interface Settlement {
  /** Unconfirmed bills the service holds, with their ids: recorded as created. */
  created: Array<{number: string; id: string}>
  /** Unconfirmed bills the service does not hold: the next --resume sends them. */
  absent: string[]
}

export async function listUnconfirmed(
  journalFile: string,
): Promise<{business: string; baseUrl: string; bills: UnconfirmedBill[]}> {
  const state = await readJournal(journalFile)
  const bills: UnconfirmedBill[] = []
  for (const [number, outcome] of state.outcomes)
    if (outcome.kind === 'unconfirmed') bills.push({number, reason: outcome.reason})
  return {business: state.header.business, baseUrl: state.header.baseUrl, bills}
}

/**
 * Records a settlement of the journal's unconfirmed bills, given the bills the service holds (by
 * number). Holds the journal's lock, so no import of the file runs meanwhile.
 */
export async function settleUnconfirmed(
  journalFile: string,
  existing: ReadonlyMap<string, string>,
): Promise<Settlement> {
  const lock = lockJournal(journalFile)
  try {
    const {bills} = await listUnconfirmed(journalFile)
    const settlement: Settlement = {created: [], absent: []}
    for (const {number} of bills) {
      const id = existing.get(number)
      if (id === undefined) settlement.absent.push(number)
      else settlement.created.push({number, id})
    }
    if (bills.length === 0) return settlement
    const writer = await JournalWriter.open(journalFile)
    try {
      await writer.append({
        t: 'settled',
        at: new Date().toISOString(),
        created: settlement.created.map((c) => [c.number, c.id]),
        absent: settlement.absent,
      })
    } finally {
      await writer.close()
    }
    return settlement
  } finally {
    lock.release()
  }
}
