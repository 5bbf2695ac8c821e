/**
 * The bill lines of the record of created bills after its index's end (the tail), by key, each
 * key's in the record's order: what a run holds in memory until the index is brought up to date
 * (created-record.ts). Nearly every key has one line, kept as one number (its offset × 4 + its
 * kind, a small integer V8 stores in the map's slot) rather than an array holding an object: a
 * tail of 40,000 bills is then about 3 MB instead of 7.
 */
import type {Kind, LineRef} from './record-index.js'

/** Offsets are below 2^48 (the index's u48), so offset × 4 + kind stays an exact double. */
const pack = (offset: number, kind: Kind): number => offset * 4 + kind
const offsetIn = (packed: number): number => Math.floor(packed / 4)
const kindIn = (packed: number): Kind => (packed % 4) as Kind

export class RecordTail {
  private readonly byKey = new Map<string, number | LineRef[]>()

  /** A line of `key` after those already held. */
  add(key: string, offset: number, kind: Kind): void {
    const held = this.byKey.get(key)
    if (held === undefined) this.byKey.set(key, pack(offset, kind))
    else if (typeof held === 'number') this.byKey.set(key, [lineOf(held), {offset, kind}])
    else held.push({offset, kind})
  }

  /** The lines of `key`, in order; undefined when the tail has none. */
  linesOf(key: string): readonly LineRef[] | undefined {
    const held = this.byKey.get(key)
    return typeof held === 'number' ? [lineOf(held)] : held
  }

  /** Each line, each key's in order. */
  forEach(fn: (key: string, offset: number, kind: Kind) => void): void {
    for (const [key, held] of this.byKey) {
      if (typeof held === 'number') fn(key, offsetIn(held), kindIn(held))
      else for (const {offset, kind} of held) fn(key, offset, kind)
    }
  }

  clear(): void {
    this.byKey.clear()
  }
}

const lineOf = (packed: number): LineRef => ({offset: offsetIn(packed), kind: kindIn(packed)})
