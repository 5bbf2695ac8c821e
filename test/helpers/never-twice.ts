/**
 * The never-twice property after a trial: each row's bill held by the emulator exactly once, and
 * the record of created bills equal to the emulator's bills (same keys, same ids, nothing left
 * unconfirmed). The record is read from its JSON lines, folded as bk folds them.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {KEY_SEPARATOR} from '../../src/bills/bill-key.js'
import type {RunningEmulator} from './emulator.js'

export interface RecordRead {
  created: Map<string, string>
  unconfirmed: Set<string>
  /** Keys recorded again with another id (a second bill the service created). */
  again: string[]
}

export function readRecordFolder(folder: string): RecordRead {
  const read: RecordRead = {created: new Map(), unconfirmed: new Set(), again: []}
  for (const file of readdirSync(folder).filter((f) => f.endsWith('.jsonl'))) {
    const lines = readFileSync(join(folder, file), 'utf8').split('\n')
    lines.pop() // past the last newline: nothing, or a torn write readers pass over
    for (const line of lines.slice(1)) {
      const e = JSON.parse(line) as {key: string; id?: string; unconfirmed?: string; absent?: boolean}
      if (e.absent) read.unconfirmed.delete(e.key)
      else if (e.unconfirmed !== undefined) {
        if (!read.created.has(e.key)) read.unconfirmed.add(e.key)
      } else if (read.created.has(e.key)) {
        if (read.created.get(e.key) !== e.id) read.again.push(e.key)
      } else {
        read.created.set(e.key, e.id!)
        read.unconfirmed.delete(e.key)
      }
    }
  }
  return read
}

export interface NeverTwice {
  /** Numbers the emulator holds more than once. */
  duplicated: string[]
  /** Numbers of rows the emulator does not hold. */
  lost: string[]
  /** Keys where the record and the emulator disagree, with how. */
  mismatches: string[]
}

/** Bills `<prefix>-1` to `<prefix>-<count>` of `vendor` against the emulator and the record in `folder`. */
export function neverTwice(
  emulator: RunningEmulator,
  business: string,
  vendor: string,
  prefix: string,
  count: number,
  folder: string,
): NeverTwice {
  const held = new Map<string, string[]>()
  for (const b of emulator.state.bills.all(business)) {
    if (!String(b.number).startsWith(`${prefix}-`)) continue
    const key = `${String(b.vendor_id)}${KEY_SEPARATOR}${String(b.number)}`
    held.set(key, [...(held.get(key) ?? []), String(b.id)])
  }
  const number = (key: string) => key.split(KEY_SEPARATOR)[1] ?? key
  const duplicated = [...held].filter(([, ids]) => ids.length > 1).map(([key]) => number(key))
  const lost: string[] = []
  for (let i = 1; i <= count; i++) if (!held.has(`${vendor}${KEY_SEPARATOR}${prefix}-${i}`)) lost.push(`${prefix}-${i}`)
  const record = readRecordFolder(folder)
  const mismatches = [
    ...record.again.map((k) => `${number(k)}: recorded twice`),
    ...[...record.unconfirmed].map((k) => `${number(k)}: still unconfirmed in the record`),
    ...[...held]
      .filter(([key, ids]) => !ids.includes(record.created.get(key) ?? ''))
      .map(
        ([key]) =>
          `${number(key)}: held by the emulator, ${record.created.has(key) ? 'another id' : 'not'} in the record`,
      ),
    ...[...record.created.keys()]
      .filter((key) => key.includes(`${KEY_SEPARATOR}${prefix}-`) && !held.has(key))
      .map((key) => `${number(key)}: in the record, not held by the emulator`),
  ]
  return {duplicated, lost, mismatches}
}
