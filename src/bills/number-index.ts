import {hashKey} from './key-hash.js'

/**
 * A compact set of bill numbers with the line each first appeared on, for telling a bill number
 * that reappears later in the file. A million bills take about 24 MB here (a Set of strings takes
 * four times that), so memory stays flat enough for any file. It stores a 64-bit hash of each
 * number, not the number: two different numbers share a hash with odds of about 1 in 10^7 for a
 * file of 10^6 bills, and the only effect would be a spurious "reappears" error on that bill,
 * shown to the user and never a bill silently skipped.
 * (0 marks an empty slot only in `lines`, so any hash value is fine.)
 */
export class NumberIndex {
  private h1: Uint32Array
  private h2: Uint32Array
  private lines: Uint32Array
  private size = 0
  private mask: number

  constructor(initialCapacity = 1024) {
    let capacity = 16
    while (capacity < initialCapacity) capacity *= 2
    this.h1 = new Uint32Array(capacity)
    this.h2 = new Uint32Array(capacity)
    this.lines = new Uint32Array(capacity)
    this.mask = capacity - 1
  }

  /** The line a number was first added with, or 0 when it is new (then it is added with `line`). */
  addOrGet(number: string, line: number): number {
    const {hi: a, lo: b} = hashKey(number)
    let i = a & this.mask
    for (;;) {
      const l = this.lines[i]!
      if (l === 0) break
      if (this.h1[i] === a && this.h2[i] === b) return l
      i = (i + 1) & this.mask
    }
    this.h1[i] = a
    this.h2[i] = b
    this.lines[i] = Math.max(1, line)
    if (++this.size * 2 > this.lines.length) this.grow()
    return 0
  }

  private grow(): void {
    const {h1, h2, lines} = this
    const capacity = lines.length * 2
    this.h1 = new Uint32Array(capacity)
    this.h2 = new Uint32Array(capacity)
    this.lines = new Uint32Array(capacity)
    this.mask = capacity - 1
    for (let j = 0; j < lines.length; j++) {
      if (lines[j] === 0) continue
      let i = h1[j]! & this.mask
      while (this.lines[i] !== 0) i = (i + 1) & this.mask
      this.h1[i] = h1[j]!
      this.h2[i] = h2[j]!
      this.lines[i] = lines[j]!
    }
  }
}
