/**
 * The index of the record of created bills (src/bills/created-record.ts): a derived file beside
 * the record (`<record>.index`) that lets a run find a bill among millions without reading them.
 * The record's JSON lines stay the only source of truth; the index can be deleted at any time.
 *
 * Layout: 16-byte entries sorted by hash high word (a key's lines in the record's order), one per
 * bill line of the record up to `covered`: u32 hash high, u32 hash low, u48 offset of the line,
 * u8 kind, u8 0. Then the high word of every FENCE-th entry (kept in memory, so that a lookup is
 * one positioned read of a block), then a presence bitmap (kept in memory: one bit per value of
 * the hash's top presenceBits(count) bits, set when an entry has it, so that most keys the record
 * lacks, as every new bill of an import is, cost no read at all), then the metadata as JSON, its
 * length (u32) and MAGIC. A 64-bit hash of the key finds candidates; the line is read to compare
 * the key itself, so a collision costs a read, never a wrong answer.
 *
 * Trust: the metadata holds a fingerprint of the record (its header line and the 4 KB before
 * `covered`): an index of another record, of a rewritten one (`bills record --forget-before`
 * writes a new header) or of one shorter than `covered` is ignored, and so is a file whose size
 * does not add up (torn). It is written to a temporary file, fdatasync'd and renamed into place.
 *
 * Building: the record's lines are read in chunks of CHUNK bills, each chunk sorted in memory and
 * merged with the index so far into a new file, so memory stays bounded however long the record.
 * The merge also counts the bills (created, unconfirmed, settled) for `bk bills record`. A record
 * is indexed by two such files, a base and the lines after it (index-levels.ts).
 */
import {createHash} from 'node:crypto'
import {closeSync, fdatasyncSync, fstatSync, openSync, readSync, renameSync, rmSync, writeSync} from 'node:fs'

import {openPrivateFile} from '../output/sink.js'
import {hashKey} from './key-hash.js'

const MAGIC = Buffer.from('BKRIDX2\n')
const ENTRY = 16
const FENCE = 256
/** Bills sorted in memory at once while building (16 MB of sort keys at most). */
const CHUNK = 1 << 20
/** The sort key of a chunk's bill: hash high word × 2^21 + its place in the chunk (exact in a double). */
const PLACE = 2 ** 21
const FINGERPRINT_SPAN = 4096
/** Damaged line numbers kept in the metadata (the count is exact). */
const DAMAGED_KEPT = 1000

/** Bits of the presence bitmap's index: about 8 bits per entry (an eighth of them set), 2 MB at most. */
function presenceBits(count: number): number {
  return Math.min(24, Math.max(10, Math.ceil(Math.log2(Math.max(1, count) * 8))))
}

const presenceBytes = (count: number) => 2 ** presenceBits(count) / 8

/** The fields of the entry at byte `at` of `bytes` (the layout above). */
const highAt = (bytes: Buffer, at: number): number => bytes.readUInt32BE(at)
const lowAt = (bytes: Buffer, at: number): number => bytes.readUInt32BE(at + 4)
const offsetAt = (bytes: Buffer, at: number): number => bytes.readUIntBE(at + 8, 6)
const kindAt = (bytes: Buffer, at: number): Kind => bytes[at + 14] as Kind

export const enum Kind {
  created = 1,
  unconfirmed = 2,
  absent = 3,
}

/** What the index knows of the record up to `covered`. */
export interface IndexMeta {
  covered: number
  /** An index of the recent lines only (index-levels.ts): the base's `covered`, where it starts. */
  from?: number | undefined
  /** Lines of the record before `covered`, header included. */
  lines: number
  count: number
  fingerprint: string
  damaged: number[]
  damagedCount: number
  created: number
  unconfirmed: number
  settled: number
}

/** A bill line of the record: where it is and what it says. */
export interface LineRef {
  offset: number
  kind: Kind
}

/** No lines: what most lookups find, shared. */
export const NO_LINES: readonly LineRef[] = Object.freeze([])

/** What the lines of one key come to, read in order (the first created line wins). */
export interface KeyState {
  created?: number | undefined
  unconfirmed?: number | undefined
  settled: boolean
}

export function replay(lines: readonly LineRef[]): KeyState {
  const state: KeyState = {settled: false}
  for (const {offset, kind} of lines) {
    if (state.created !== undefined) break
    if (kind === Kind.created) {
      state.created = offset
      state.unconfirmed = undefined
    } else if (kind === Kind.unconfirmed) {
      state.unconfirmed ??= offset
    } else if (state.unconfirmed !== undefined) {
      state.unconfirmed = undefined
      state.settled = true
    }
  }
  return state
}

/** The fingerprint of the record read through `logFd` up to `covered`. */
export function fingerprint(logFd: number, headerLine: string, covered: number): string {
  const start = Math.max(0, covered - FINGERPRINT_SPAN)
  const bytes = Buffer.alloc(covered - start)
  const n = readSync(logFd, bytes, 0, bytes.length, start)
  return createHash('sha256').update(headerLine).update('\n').update(bytes.subarray(0, n)).digest('hex').slice(0, 32)
}

export class RecordIndex {
  private constructor(
    private readonly fd: number,
    readonly meta: IndexMeta,
    private readonly fences: Uint32Array,
    /** Undefined for an intermediate index of a build, which is only read whole. */
    private readonly presence: Buffer | undefined,
  ) {
    this.shift = 32 - presenceBits(meta.count)
  }

  private readonly shift: number
  /** Reused by every lookup: a block is read per lookup, and an allocation each cost more than the read. */
  private block = Buffer.allocUnsafe(ENTRY * FENCE * 2)

  /** The index at `file` if it is whole and of this record as it is now; otherwise undefined. */
  static open(file: string, logFd: number, headerLine: string): RecordIndex | undefined {
    let fd: number
    try {
      fd = openSync(file, 'r')
    } catch {
      return undefined
    }
    try {
      const size = fstatSync(fd).size
      const tail = Buffer.alloc(12)
      if (size < 12 || readSync(fd, tail, 0, 12, size - 12) !== 12 || !tail.subarray(4).equals(MAGIC))
        throw new Error('no index')
      const metaLength = tail.readUInt32BE(0)
      const metaBytes = Buffer.alloc(metaLength)
      readSync(fd, metaBytes, 0, metaLength, size - 12 - metaLength)
      const meta = JSON.parse(metaBytes.toString('utf8')) as IndexMeta
      const fenceCount = Math.ceil(meta.count / FENCE)
      const presenceLength = presenceBytes(meta.count)
      if (size !== meta.count * ENTRY + fenceCount * 4 + presenceLength + metaLength + 12) throw new Error('torn index')
      if (meta.covered > fstatSync(logFd).size || fingerprint(logFd, headerLine, meta.covered) !== meta.fingerprint)
        throw new Error('index of another record')
      const fenceBytes = Buffer.alloc(fenceCount * 4)
      readSync(fd, fenceBytes, 0, fenceBytes.length, meta.count * ENTRY)
      const fences = new Uint32Array(fenceCount)
      for (let i = 0; i < fenceCount; i++) fences[i] = fenceBytes.readUInt32BE(i * 4)
      const presence = Buffer.alloc(presenceLength)
      readSync(fd, presence, 0, presenceLength, meta.count * ENTRY + fenceCount * 4)
      return new RecordIndex(fd, meta, fences, presence)
    } catch {
      closeSync(fd)
      return undefined
    }
  }

  /** An intermediate index of a build: only its entries are read. */
  static unchecked(file: string, count: number): RecordIndex {
    const meta = {
      count,
      covered: 0,
      lines: 0,
      fingerprint: '',
      damaged: [],
      damagedCount: 0,
      created: 0,
      unconfirmed: 0,
      settled: 0,
    }
    return new RecordIndex(openSync(file, 'r'), meta, new Uint32Array(0), undefined)
  }

  /** The lines whose key hashes as `key` does, in the record's order. */
  candidates(key: string): readonly LineRef[] {
    const {hi, lo} = hashKey(key)
    const bytes = this.blockOf(hi)
    if (!bytes) return NO_LINES
    const found: LineRef[] = []
    for (let at = 0; at < bytes.length; at += ENTRY) {
      if (highAt(bytes, at) === hi && lowAt(bytes, at) === lo)
        found.push({offset: offsetAt(bytes, at), kind: kindAt(bytes, at)})
    }
    return found
  }

  /**
   * Entries in order that hold every one whose hash high word is `hi`, among others (one
   * positioned read), or undefined when none can. Valid until the next call: the buffer is reused.
   */
  blockOf(hi: number): Buffer | undefined {
    const bit = hi >>> this.shift
    if (this.presence && ((this.presence[bit >>> 3] as number) & (1 << (bit & 7))) === 0) return undefined
    // Blocks from the last fence below `hi` to the last fence at or below it hold every match.
    const last = lastAtOrBelow(this.fences, hi)
    if (last < 0) return undefined
    const first = Math.max(0, lastAtOrBelow(this.fences, hi - 1))
    const from = first * FENCE
    const to = Math.min(this.meta.count, (last + 1) * FENCE)
    const length = (to - from) * ENTRY
    if (this.block.length < length) this.block = Buffer.allocUnsafe(length)
    const bytes = this.block.subarray(0, length)
    readSync(this.fd, bytes, 0, length, from * ENTRY)
    return bytes
  }

  /** Every entry in order, in blocks (for a merge). */
  *entries(): Generator<Buffer> {
    const block = Buffer.allocUnsafe(ENTRY * 4096)
    for (let at = 0; at < this.meta.count * ENTRY;) {
      const n = readSync(this.fd, block, 0, Math.min(block.length, this.meta.count * ENTRY - at), at)
      if (n <= 0) throw new Error('the index ended early')
      yield block.subarray(0, n)
      at += n
    }
  }

  close(): void {
    closeSync(this.fd)
  }
}

function lastAtOrBelow(fences: Uint32Array, value: number): number {
  let low = 0
  let high = fences.length - 1
  let found = -1
  while (low <= high) {
    const mid = (low + high) >>> 1
    if ((fences[mid] as number) <= value) {
      found = mid
      low = mid + 1
    } else high = mid - 1
  }
  return found
}

/** A parsed bill line of the record, as the index needs it. */
export interface IndexedLine {
  key: string
  kind: Kind
}

export interface BuildSource {
  logFd: number
  headerLine: string
  /** Where the index so far ends (the end of the header line when there is none). */
  from: number
  /** Lines before `from`. */
  lines: number
  /** Yields each complete line from `from` on with its offset. */
  readLines(from: number): Iterable<{text: string; offset: number}>
  /** Parses a line; undefined when damaged. */
  parse(text: string): IndexedLine | undefined
  /** The key of the line at `offset` (to tell apart keys that share a hash). */
  keyAt(offset: number): string | undefined
  /**
   * The lines after `from` as a reader of the record already holds them, up to the record's end:
   * then nothing is read or parsed again. Only for a tail small enough to be held.
   */
  known?: KnownTail | undefined
}

/** The bill lines after an index's end, as read: by key (each key's lines in order), to `covered`. */
export interface KnownTail {
  bills: {forEach(fn: (key: string, offset: number, kind: Kind) => void): void}
  /** Line numbers of the damaged lines among them. */
  damaged: readonly number[]
  covered: number
  /** Lines of the record before `covered`, header included. */
  lines: number
}

/**
 * What a build starts from, all of it ending at `source.from`: the index whose entries it merges
 * (`entries`, with the counts as of its end), and the metadata of the whole record there (`top`).
 * A build of the recent level (index-levels.ts) has the base below it (`lower`): the new lines of
 * a key are counted with its lines there. A new base takes the recent level's entries with it
 * (`carried`), as lines that come after the base's.
 */
export interface BuildFrom {
  entries?: RecordIndex | undefined
  top?: IndexMeta | undefined
  lower?: RecordIndex | undefined
  carried?: RecordIndex | undefined
}

/**
 * Writes the index of the record from `from` up to its last complete line to `file` (temporary
 * file, then rename), merging the entries it starts from with the lines after them.
 */
export function buildIndex(file: string, from: BuildFrom, source: BuildSource): void {
  const made: string[] = []
  try {
    build(file, from, source, made)
  } catch (error) {
    // A full disk, say: no temporary file is left behind; the record itself is untouched.
    for (const f of made) rmSync(f, {force: true})
    throw error
  }
}

function build(file: string, from: BuildFrom, source: BuildSource, made: string[]): void {
  let base: {index: RecordIndex; file?: string} | undefined = from.entries && {index: from.entries}
  let lines = source.lines
  let covered = source.from
  const damaged = from.top ? [...from.top.damaged] : []
  let damagedCount = from.top?.damagedCount ?? 0
  let counts: Counts = (from.entries ?? from.lower)?.meta ?? {count: 0, created: 0, unconfirmed: 0, settled: 0}
  const chunk = new Chunk()
  let step = 0
  const flush = (last: boolean) => {
    const out = last ? `${file}.${process.pid}.tmp` : `${file}.${process.pid}.${step++}.tmp`
    made.push(out)
    counts = mergeInto(out, base?.index, counts, chunk, source, from.lower)
    chunk.clear()
    if (base?.file) {
      base.index.close()
      rmSync(base.file, {force: true})
    }
    if (!last) base = {index: RecordIndex.unchecked(out, counts.count), file: out}
  }
  const full = () => chunk.length === CHUNK && flush(false)
  const add = (key: string, offset: number, kind: Kind) => {
    const {hi, lo} = hashKey(key)
    chunk.push(hi, lo, offset, kind)
    full()
  }
  const damage = (line: number) => {
    if (damaged.length < DAMAGED_KEPT) damaged.push(line)
    damagedCount++
  }
  if (from.carried)
    for (const block of from.carried.entries())
      for (let at = 0; at < block.length; at += ENTRY) {
        chunk.push(highAt(block, at), lowAt(block, at), offsetAt(block, at), kindAt(block, at))
        full()
      }
  if (source.known) {
    source.known.bills.forEach(add)
    source.known.damaged.forEach(damage)
    ;({covered, lines} = source.known)
  } else
    for (const {text, offset} of source.readLines(source.from)) {
      lines++
      covered = offset + Buffer.byteLength(text) + 1
      if (text.trim() === '') continue
      const line = source.parse(text)
      if (line) add(line.key, offset, line.kind)
      else damage(lines)
    }
  const tmp = `${file}.${process.pid}.tmp`
  flush(true)
  const meta: IndexMeta = {
    covered,
    ...(from.lower ? {from: from.lower.meta.covered} : {}),
    lines,
    count: counts.count,
    fingerprint: fingerprint(source.logFd, source.headerLine, covered),
    damaged,
    damagedCount,
    created: counts.created,
    unconfirmed: counts.unconfirmed,
    settled: counts.settled,
  }
  appendMeta(tmp, meta)
  renameSync(tmp, file)
}

/** The bills of the record read since the last merge. */
class Chunk {
  sortKeys = new Float64Array(1024)
  lows = new Uint32Array(1024)
  offsets = new Float64Array(1024)
  kinds = new Uint8Array(1024)
  length = 0

  push(hi: number, lo: number, offset: number, kind: Kind): void {
    if (this.length === this.sortKeys.length) this.grow()
    this.sortKeys[this.length] = hi * PLACE + this.length
    this.lows[this.length] = lo
    this.offsets[this.length] = offset
    this.kinds[this.length] = kind
    this.length++
  }

  clear(): void {
    this.length = 0
  }

  private grow(): void {
    const size = Math.min(CHUNK, this.sortKeys.length * 2)
    const grown = <T extends Float64Array | Uint32Array | Uint8Array>(a: T, b: T): T => (b.set(a), b)
    this.sortKeys = grown(this.sortKeys, new Float64Array(size))
    this.lows = grown(this.lows, new Uint32Array(size))
    this.offsets = grown(this.offsets, new Float64Array(size))
    this.kinds = grown(this.kinds, new Uint8Array(size))
  }
}

interface Counts {
  count: number
  created: number
  unconfirmed: number
  settled: number
}

/**
 * Writes the entries of `base` and `chunk` in order to `out` (with fences and the presence bitmap,
 * without metadata), and counts the bills. The chunk's lines all come after the base's, so on equal
 * hashes base goes first. The base's entries are copied in runs, and its counts carried: only the
 * keys of a hash the chunk holds are counted again, so that bringing a large index up to date after
 * each tail of an import costs little more than copying it.
 */
function mergeInto(
  out: string,
  base: RecordIndex | undefined,
  counts: Counts,
  chunk: Chunk,
  source: BuildSource,
  lower: RecordIndex | undefined,
): Counts {
  const sorted = chunk.sortKeys.subarray(0, chunk.length).sort()
  const writer = new EntryWriter(out, (base?.meta.count ?? 0) + chunk.length)
  const counter = new Counter(source, counts, lower)
  const entry = Buffer.alloc(ENTRY)
  let next = 0
  const nextHigh = () => (next < sorted.length ? Math.floor((sorted[next] as number) / PLACE) : Infinity)
  const emitChunkUpTo = (hi: number) => {
    while (next < sorted.length && nextHigh() <= hi) {
      const sortKey = sorted[next] as number
      const high = Math.floor(sortKey / PLACE)
      const place = sortKey - high * PLACE
      const low = chunk.lows[place] as number
      const offset = chunk.offsets[place] as number
      const kind = chunk.kinds[place] as Kind
      entry.writeUInt32BE(high, 0)
      entry.writeUInt32BE(low, 4)
      entry.writeUIntBE(offset, 8, 6)
      entry[14] = kind
      entry[15] = 0
      writer.write(entry, 0, ENTRY)
      counter.add(high, low, offset, kind, true)
      next++
    }
  }
  if (base)
    for (const block of base.entries()) {
      let copied = 0
      for (let at = 0; at < block.length; at += ENTRY) {
        const hi = highAt(block, at)
        // Chunk entries with a lower hash go first; equal hashes: the base's lines are earlier.
        if (nextHigh() < hi) {
          writer.write(block, copied, at)
          copied = at
          emitChunkUpTo(hi - 1)
        }
        // Only a hash the chunk holds is counted again.
        if (nextHigh() === hi) counter.add(hi, lowAt(block, at), offsetAt(block, at), kindAt(block, at), false)
      }
      writer.write(block, copied, block.length)
    }
  emitChunkUpTo(Infinity)
  counter.end()
  writer.end()
  return {count: writer.count, ...counter.counts}
}

/** Writes `expected` entries through a buffer, then the fences and the presence bitmap. */
class EntryWriter {
  private readonly fd: number
  private readonly buffer = Buffer.allocUnsafe(ENTRY * 4096)
  private used = 0
  private fences: number[] = []
  private readonly presence: Buffer
  private readonly shift: number
  count = 0

  constructor(
    file: string,
    private readonly expected: number,
  ) {
    this.fd = openPrivateFile('The index of the record of created bills', file, 'truncate')
    this.presence = Buffer.alloc(presenceBytes(expected))
    this.shift = 32 - presenceBits(expected)
  }

  /** Writes the entries of `entries` from byte `from` to byte `to`. */
  write(entries: Buffer, from: number, to: number): void {
    for (let at = from; at < to; at += ENTRY) {
      const hi = highAt(entries, at)
      if (this.count % FENCE === 0) this.fences.push(hi)
      const bit = hi >>> this.shift
      this.presence[bit >>> 3] = (this.presence[bit >>> 3] as number) | (1 << (bit & 7))
      this.count++
    }
    for (let at = from; at < to;) {
      const n = Math.min(to - at, this.buffer.length - this.used)
      entries.copy(this.buffer, this.used, at, at + n)
      this.used += n
      at += n
      if (this.used === this.buffer.length) this.flush()
    }
  }

  end(): void {
    this.flush()
    const fences = Buffer.alloc(this.fences.length * 4)
    this.fences.forEach((f, i) => fences.writeUInt32BE(f, i * 4))
    // Sized by the count announced: a merge that wrote another count is a bug, not a torn file.
    if (this.count !== this.expected) throw new Error(`the index has ${this.count} entries, not ${this.expected}`)
    writeAll(this.fd, Buffer.concat([fences, this.presence]))
    closeSync(this.fd)
  }

  private flush(): void {
    writeAll(this.fd, this.buffer.subarray(0, this.used))
    this.used = 0
  }
}

/**
 * Counts the bills from the base's counts, given the chunk's entries and the base's of the same
 * hashes, in order: a run of equal hashes is one key (or a collision), and each run changes the
 * counts by its base entries' count taken back and the whole run's added. Building a recent
 * level, the lower level's entries of the run's hash are counted with the base's.
 */
class Counter {
  counts: Omit<Counts, 'count'>
  private hi = -1
  /** The run's entries as (low word, offset, kind, 1 if the chunk's), flat: reused for every run. */
  private readonly run: number[] = []

  constructor(
    private readonly source: BuildSource,
    base: Counts,
    /** The level below the index being built, whose lines of a key come before all others. */
    private readonly lower: RecordIndex | undefined,
  ) {
    this.counts = {created: base.created, unconfirmed: base.unconfirmed, settled: base.settled}
  }

  add(hi: number, lo: number, offset: number, kind: Kind, fromChunk: boolean): void {
    if (hi !== this.hi) {
      this.end()
      this.hi = hi
    }
    this.run.push(lo, offset, kind, +fromChunk)
  }

  end(): void {
    const run = this.run
    if (run.length === 0) return
    // Counted with them, as earlier lines (each key's lines are put in order by offset).
    const below = this.lower?.blockOf(this.hi)
    if (below)
      for (let at = 0; at < below.length; at += ENTRY) {
        if (highAt(below, at) === this.hi) run.push(lowAt(below, at), offsetAt(below, at), kindAt(below, at), 0)
      }
    // Most often a new key's one line.
    if (run.length === 4) this.tally([{offset: run[1] as number, kind: run[2] as Kind}], 1)
    else if (run.length > 4) {
      for (const refs of this.keysOf(false)) this.tally(refs, -1)
      for (const refs of this.keysOf(true)) this.tally(refs, 1)
    }
    run.length = 0
  }

  /**
   * The run's lines (the base's alone, or all) by key, each key's in order: keys that share a
   * hash are told apart by reading their lines.
   */
  private keysOf(withChunk: boolean): LineRef[][] {
    const byKey = new Map<string, LineRef[]>()
    const run = this.run
    for (let i = 0; i < run.length; i += 4) {
      if (!withChunk && run[i + 3] === 1) continue
      const offset = run[i + 1] as number
      const key = `${run[i]}\u0000${this.source.keyAt(offset) ?? ''}`
      const lines = byKey.get(key) ?? []
      lines.push({offset, kind: run[i + 2] as Kind})
      byKey.set(key, lines)
    }
    return [...byKey.values()].map((lines) => lines.sort((a, b) => a.offset - b.offset))
  }

  private tally(refs: LineRef[], sign: 1 | -1): void {
    const state = replay(refs)
    if (state.created !== undefined) this.counts.created += sign
    else if (state.unconfirmed !== undefined) this.counts.unconfirmed += sign
    else if (state.settled) this.counts.settled += sign
  }
}

function appendMeta(file: string, meta: IndexMeta): void {
  const json = Buffer.from(JSON.stringify(meta))
  const tail = Buffer.alloc(12)
  tail.writeUInt32BE(json.length, 0)
  MAGIC.copy(tail, 4)
  const fd = openSync(file, 'a')
  try {
    writeAll(fd, Buffer.concat([json, tail]))
    fdatasyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

function writeAll(fd: number, data: Buffer): void {
  for (let written = 0; written < data.length;) written += writeSync(fd, data, written, data.length - written)
}
