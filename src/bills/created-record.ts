/**
 * The record of the bills bk created, per environment (the API base URL) and business, kept in
 * bk's state folder (`<folder>/<hash of the base URL>-<business>.jsonl`; the folder is
 * `created-bills/` in the config folder, `$BK_STATE_DIR/created-bills`, or `--record DIR`).
 * Every import consults it before sending (src/bills/import.ts): a bill any earlier import
 * created, from whatever file, is known here by its key (the map's key columns; vendor and number
 * by default: supplier invoice numbers are unique per supplier only) and is not sent again.
 *
 * The file is append-only JSON lines, 0600, never written through a symbolic link:
 *   {"t":"header","format":"bk-created-bills","version":2,"baseUrl":…,"business":…,"at":…}
 *   {"key":"ven_…\u001fINV-1","id":"bil_…","at":…,"input":"bills.csv"}
 *   {"key":…,"unconfirmed":"<run's start>","at":…,"input":"bills.csv"}   outcome unknown to that run
 *   {"key":…,"absent":true,"at":…}                                      settled: never created
 * Version 1 lines (`{"vendor_id","number","id",…}`) are read as the default key.
 * The header is in the file from its creation (written to a temporary file, then linked into
 * place), so a reader never meets a file without one.
 *
 * Several bk processes may append at once (an import and a settlement): each `add` holds the
 * record's lock (`<file>.lock`, src/files/run-lock.ts) while it cuts off a torn last line, reads
 * what others appended since, and appends its lines in one write followed by an fdatasync (the
 * adds a process queues meanwhile run in the same hold of the lock, a few at most, and share one
 * fdatasync). Under
 * the lock no one else is writing, so whatever follows the last newline is a write cut short by a
 * crash: it was never reported as recorded, readers ignore it, and the next `add` removes it. A
 * damaged line anywhere else is reported (`damaged`) and passed over: it must not block every
 * import of the business.
 *
 * Scale: beside the file, a derived index (`<file>.index`, src/bills/record-index.ts) covers it up
 * to a byte offset: sorted 64-bit hashes of the keys with the offsets of their lines, searched
 * with one positioned read per lookup; the line is read to compare the key, so a hash collision
 * costs a read, never a wrong answer. Only the lines after that offset (the tail) are read at
 * open, into memory (record-tail.ts). When the tail passes TAIL_LIMIT (at open, or after an
 * append) the index is brought up to date under the record's lock: merged with the tail, in
 * chunks of bounded size, into a temporary file renamed into place; while the lines added since
 * the index's base are few next to it, into a second, recent level alone (index-levels.ts), so
 * that an import into a record of millions does not rewrite them all. An index that is missing,
 * torn, or of another file (its fingerprint: the header line and the bytes before its offset) is
 * not used: the lines it would cover are the tail, and the index is rebuilt. A run's memory and
 * time are thus bounded by the tail, not by the bills the record holds.
 *
 * `bk bills record --forget-before` rewrites the file (temporary file, rename, a new header line
 * so that no old index matches) under the lock; an appender notices the file was replaced (its
 * inode) under the lock and reads the new one before writing.
 */
import {createHash} from 'node:crypto'
import {
  closeSync,
  constants,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs'
import {join} from 'node:path'
import {promisify} from 'node:util'

import {InputError} from '../shared/errors.js'
import {KEY_SEPARATOR} from './bill-key.js'
import {openPrivateFile} from '../output/sink.js'
import {withFileLock} from '../files/run-lock.js'
import {IndexLevels, removeRecentIndex, updateIndex} from './index-levels.js'
import {Kind, NO_LINES, replay, type KeyState} from './record-index.js'
import {RecordTail} from './record-tail.js'

export const RECORD_FORMAT = 'bk-created-bills'
export const RECORD_FOLDER = 'created-bills'
const READ_CHUNK = 1 << 20
/**
 * Past this many bytes of lines after the index's end (about 40,000 bills, held as record-tail.ts
 * says), the index is brought up to date: each update holds up every request of an import.
 */
const TAIL_LIMIT = 1 << 22
const fdatasyncAsync = promisify(fdatasync)
/** What a key the record has no line of comes to. */
const NOT_RECORDED: Readonly<KeyState> = Object.freeze({settled: false})
const LOCK_WAIT_MS = 120_000
/** Calls run in one hold of the record's lock at most: another process waiting for it gets a turn. */
const GROUP_LIMIT = 16
/**
 * How long a hold of the lock waits for another call before letting it go: longer than the time
 * between two batches' answers when the service answers at once, short next to any wait of
 * another process for the lock.
 */
const LINGER_MS = 5

export interface CreatedRecordOptions {
  /** The folder of the records (one file per base URL and business). */
  folder: string
  /** The API base URL bills are created at: the environment. */
  baseUrl: string
  businessId: string
  /** The input file of this run, kept with each bill it adds ("-" for standard input). */
  input?: string | undefined
  /** Bytes of tail past which the index is brought up to date: TAIL_LIMIT unless a test needs its levels at a smaller scale. */
  tailLimit?: number | undefined
}

export interface CreatedBill {
  /** The bill's key (src/bills/bill-key.ts). */
  key: string
  /** The id the service gave the bill. */
  id: string
}

/** A bill whose outcome a run could not know (it may exist): no other import sends it by itself. */
export interface UnconfirmedBill {
  key: string
  /** When the run that sent it started (ISO 8601): with the input, names that run. */
  run: string
}

/** A bill the record holds: who created it (or left it unconfirmed) and when. */
export interface RecordedBill {
  /** The id the service gave it; undefined for a bill left unconfirmed. */
  id?: string | undefined
  /** Set for a bill left unconfirmed: when the run that sent it started. */
  unconfirmedBy?: string | undefined
  /** When it was recorded (ISO 8601). */
  at: string
  /** The input file of the run that created it, when known. */
  input?: string | undefined
}

export interface CreatedRecord {
  /** The record's file. */
  readonly file: string
  /** Whether the file existed before this open (a first import of the business here). */
  readonly isNew: boolean
  /** Line numbers of damaged lines, passed over. */
  readonly damaged: readonly number[]
  /** The bill an earlier run (or this one) created with this key. */
  lookup(key: string): RecordedBill | undefined
  /** Appends the bills, durably (on disk when the promise resolves), and learns them. */
  add(entries: readonly CreatedBill[]): Promise<void>
  /** Bills a run sent without learning their outcome (not already recorded as created). */
  addUnconfirmed(entries: readonly UnconfirmedBill[]): Promise<void>
  /** Bills settled as never created: no longer unconfirmed. */
  addAbsent(keys: readonly string[]): Promise<void>
  /** Learns the bills other bk processes appended since the open or the last `add`. */
  refresh(): void
  /** What the record holds, its index brought up to date first. */
  summary(): Promise<RecordSummary>
  /** Forgets the bill lines recorded before `before` (the file rewritten under the lock). */
  forgetBefore(before: Date): Promise<{forgotten: number; kept: number}>
  close(): void
}

/** What `bk bills record` shows. */
export interface RecordSummary {
  file: string
  /** Bills created (one per key). */
  created: number
  /** Bills a run left unconfirmed, neither created nor settled since. */
  unconfirmed: number
  /** Bills settled as never created (and not sent again since). */
  settled: number
  /** Line numbers of damaged lines (the first thousand). */
  damaged: number[]
  damagedCount: number
  /** When the first and the last bill line were recorded. */
  oldest?: string | undefined
  newest?: string | undefined
}

/** The environment of a base URL: scheme, host and path, lower-case host, no trailing slash. */
export function normaliseBaseUrl(baseUrl: string): string {
  const url = new URL(baseUrl)
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`
}

/** Where the record of (base URL, business) lives in `folder`. */
export function createdRecordPath(folder: string, baseUrl: string, businessId: string): string {
  const hash = createHash('sha256').update(normaliseBaseUrl(baseUrl)).digest('hex').slice(0, 12)
  // Business ids are `biz_…`; anything unusual in a file name is hashed rather than trusted.
  const business = /^[A-Za-z0-9_-]{1,64}$/.test(businessId)
    ? businessId
    : createHash('sha256').update(businessId).digest('hex').slice(0, 16)
  return join(folder, `${hash}-${business}.jsonl`)
}

export async function openCreatedRecord(options: CreatedRecordOptions): Promise<CreatedRecord> {
  const baseUrl = normaliseBaseUrl(options.baseUrl)
  const file = createdRecordPath(options.folder, baseUrl, options.businessId)
  mkdirSync(options.folder, {recursive: true, mode: 0o700})
  const isNew = !lstatSync(file, {throwIfNoEntry: false})
  if (isNew)
    createWithHeader(file, {
      t: 'header',
      format: RECORD_FORMAT,
      version: 2,
      baseUrl,
      business: options.businessId,
      at: new Date().toISOString(),
    })
  const record = new FileRecord(
    file,
    baseUrl,
    options.businessId,
    options.input,
    isNew,
    options.tailLimit ?? TAIL_LIMIT,
  )
  try {
    await record.load()
    if (!record.hasHeader) {
      throw new InputError(`The record of created bills ${file} has no header line`, {
        code: 'record_damaged',
        hint: 'Move the file away; bk starts a new record on the next run.',
      })
    }
  } catch (error) {
    record.close()
    throw error
  }
  return record
}

/** The record for a dry run: read if it exists, never created (undefined when it does not exist). */
export async function readCreatedRecord(options: CreatedRecordOptions): Promise<CreatedRecord | undefined> {
  const file = createdRecordPath(options.folder, options.baseUrl, options.businessId)
  if (!lstatSync(file, {throwIfNoEntry: false})) return undefined
  return openCreatedRecord(options)
}

/**
 * The folder of the records: --record DIR, else `created-bills` in $BK_STATE_DIR (a CI pipeline
 * keeps that folder between runs), else in bk's config folder.
 */
export function recordFolderFor(flag: string | undefined, configDir: string): string {
  return flag ?? join(process.env.BK_STATE_DIR || configDir, RECORD_FOLDER)
}

interface LockedCall {
  fn: () => Promise<void>
  appends: boolean
  resolve: () => void
  reject: (error: unknown) => void
}

class FileRecord implements CreatedRecord {
  /** The index of the record up to some line (src/bills/index-levels.ts), when one is trusted. */
  private index: IndexLevels | undefined
  /** Bill lines after the index's end (the tail), by key, in order. */
  private readonly tail = new RecordTail()
  private tailDamaged: number[] = []
  private appendFd: number
  private readFd: number
  private headerLine = ''
  /** Bytes read so far: always the end of a complete line. */
  private offset = 0
  private line = 0
  private closed = false
  /** Calls waiting to run under the record's lock, and the hold that runs them (see `locked`). */
  private readonly lockQueue: LockedCall[] = []
  private holding = false
  /** Whether this hold of the lock has read what others wrote before it (see `catchUp`). */
  private caughtUp = false
  /** Lines written since the last fdatasync. */
  private unsynced = false
  /** Ends a hold's wait for a call (see `nextCall`): true when one arrived. */
  private wake: ((arrived: boolean) => void) | undefined

  constructor(
    readonly file: string,
    private readonly baseUrl: string,
    private readonly businessId: string,
    private readonly input: string | undefined,
    readonly isNew: boolean,
    private readonly tailLimit: number,
  ) {
    ;[this.appendFd, this.readFd] = openBoth(file)
  }

  get indexFile(): string {
    return `${this.file}.index`
  }

  get hasHeader(): boolean {
    return this.headerLine !== ''
  }

  get damaged(): number[] {
    return [...(this.index?.meta.damaged ?? []), ...this.tailDamaged]
  }

  /** Reads the header, the index if it can be trusted, and the lines after it. */
  async load(): Promise<void> {
    this.readHeader()
    if (!this.hasHeader) return
    this.useIndex(IndexLevels.open(this.indexFile, this.readFd, this.headerLine))
    if (fstatSync(this.readFd).size - this.offset > this.tailLimit)
      await this.locked(async () => this.compactIfPossible())
    this.refresh()
  }

  lookup(key: string): RecordedBill | undefined {
    const state = this.stateOf(key)
    const at = state.created ?? state.unconfirmed
    if (at === undefined) return undefined
    const entry = parseEntry(this.readLineAt(at))
    return entry && {id: entry.id, unconfirmedBy: entry.unconfirmed, at: entry.at, input: entry.input}
  }

  refresh(): void {
    this.assertOpen()
    for (const {text, offset} of this.linesFrom(this.offset)) {
      this.learn(text, offset)
      this.offset = offset + Buffer.byteLength(text) + 1
    }
  }

  async add(entries: readonly CreatedBill[]): Promise<void> {
    // Bills already recorded (a --resume adding them again) are not repeated.
    await this.append(
      entries,
      (e) => this.stateOf(e.key).created === undefined,
      ({key, id}, at, input) => ({key, id, at, input}),
    )
  }

  async addUnconfirmed(entries: readonly UnconfirmedBill[]): Promise<void> {
    await this.append(
      entries,
      (e) => {
        const state = this.stateOf(e.key)
        return state.created === undefined && state.unconfirmed === undefined
      },
      ({key, run}, at, input) => ({key, unconfirmed: run, at, input}),
    )
  }

  async addAbsent(keys: readonly string[]): Promise<void> {
    await this.append(
      keys.map((key) => ({key})),
      (e) => this.stateOf(e.key).unconfirmed !== undefined,
      ({key}, at, input) => ({key, absent: true, at, input}),
    )
  }

  async summary(): Promise<RecordSummary> {
    this.assertOpen()
    await this.locked(async () => {
      this.reopenIfReplaced()
      this.refresh()
      if (!this.index || this.offset > this.index.meta.covered) this.compact()
    })
    const meta = this.index?.meta
    if (!meta) throw new Error(`The index of ${this.file} could not be read back`)
    return {
      file: this.file,
      created: meta.created,
      unconfirmed: meta.unconfirmed,
      settled: meta.settled,
      damaged: meta.damaged,
      damagedCount: meta.damagedCount,
      oldest: this.firstEntryAt(),
      newest: this.lastEntryAt(),
    }
  }

  async forgetBefore(before: Date): Promise<{forgotten: number; kept: number}> {
    this.assertOpen()
    const counts = {forgotten: 0, kept: 0}
    await this.locked(async () => {
      this.reopenIfReplaced()
      const tmp = `${this.file}.${process.pid}.forget.tmp`
      const fd = openPrivateFile('The record of created bills', tmp, 'truncate')
      try {
        // A new header line: no index of the old file matches the new one.
        const header = {...(JSON.parse(this.headerLine) as object), rewritten: new Date().toISOString()}
        let pending = JSON.stringify(header) + '\n'
        for (const {text} of this.linesFrom(this.headerEnd)) {
          const entry = parseEntry(text)
          // A damaged line has no date: it is kept (and still reported).
          if (entry?.at && Date.parse(entry.at) < before.getTime()) {
            counts.forgotten++
            continue
          }
          if (text.trim() !== '') counts.kept++
          pending += text + '\n'
          if (pending.length > READ_CHUNK) {
            writeAll(fd, Buffer.from(pending))
            pending = ''
          }
        }
        writeAll(fd, Buffer.from(pending))
        fdatasyncSync(fd)
      } finally {
        closeSync(fd)
      }
      if (counts.forgotten === 0) return rmSync(tmp, {force: true})
      renameSync(tmp, this.file)
      syncFolder(join(this.file, '..'))
      rmSync(this.indexFile, {force: true})
      removeRecentIndex(this.indexFile)
      this.reopenIfReplaced()
      this.compact()
    })
    return counts
  }

  /**
   * Appends a line per entry that `fresh` accepts (at most one per key), under the record's lock.
   * Resolves once the lines are on disk: the group's one fdatasync (see `locked`).
   */
  private async append<E extends {key: string}>(
    entries: readonly E[],
    fresh: (entry: E) => boolean,
    line: (entry: E, at: string, input: string | undefined) => Entry,
  ): Promise<void> {
    this.assertOpen()
    if (entries.length === 0) return
    await this.locked(async () => {
      this.catchUp()
      const chosen = new Map<string, E>()
      for (const e of entries) if (!chosen.has(e.key) && fresh(e)) chosen.set(e.key, e)
      if (chosen.size === 0) return
      const at = new Date().toISOString()
      // An undefined input is left out of the line by JSON.stringify.
      const written = [...chosen.values()].map((e) => line(e, at, this.input || undefined))
      const lines = written.map((entry) => JSON.stringify(entry) + '\n')
      // One write with O_APPEND; a short write is continued (the lock keeps others out meanwhile).
      try {
        writeAll(this.appendFd, Buffer.from(lines.join('')))
      } catch (error) {
        // Part of it may be in the file: the next append of this hold cuts it off first.
        this.caughtUp = false
        throw error
      }
      this.unsynced = true
      // Learnt once written, before the sync: the service created these bills whether or not the
      // disk keeps the lines, and a later call of the group must see them. Learnt from the
      // entries, not parsed back: what a line means is kindOf's either way.
      written.forEach((entry, i) => {
        this.line++
        this.tail.add(entry.key, this.offset, kindOf(entry))
        this.offset += Buffer.byteLength(lines[i]!)
      })
    }, true)
  }

  /**
   * Once per hold of the lock: reads the file anew if another process replaced it, what others
   * appended since, and cuts off a torn last line (under the lock nobody writes: bytes past the
   * last complete line are a crashed write).
   */
  private catchUp(): void {
    if (this.caughtUp) return
    this.reopenIfReplaced()
    this.refresh()
    if (fstatSync(this.appendFd).size > this.offset) ftruncateSync(this.appendFd, this.offset)
    this.caughtUp = true
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    this.wake?.(false)
    this.index?.close()
    closeSync(this.appendFd)
    closeSync(this.readFd)
  }

  /**
   * Runs `fn` under the record's lock, after this process's earlier calls. Calls queued meanwhile
   * run in the same hold of the lock, up to GROUP_LIMIT of them, and the appends among them share
   * one fdatasync (on the thread pool, so that sending goes on meanwhile), each resolved once it
   * is done: when answers come faster than a sync, the lock is taken and the disk synced once per
   * group, not per batch. `appends`: whether `fn` may write lines that the sync must cover.
   */
  private locked(fn: () => Promise<void>, appends = false): Promise<void> {
    return new Promise((resolve, reject) => {
      this.lockQueue.push({fn, appends, resolve, reject})
      if (!this.holding) void this.holdLock()
      this.wake?.(true)
    })
  }

  private async holdLock(): Promise<void> {
    this.holding = true
    // The queue found empty and `holding` cleared in one synchronous step: a call queued after
    // that starts a hold of its own, never waits on one that has just ended.
    try {
      while (this.lockQueue.length > 0) {
        // Bringing the index of millions of bills up to date holds the lock for seconds: wait longer.
        await withFileLock(
          this.file,
          `The record of created bills ${this.file}`,
          async () => {
            this.caughtUp = false
            for (let n = 0; n < GROUP_LIMIT;) {
              // A call due soon (the next batch's answer) is worth the lock kept a moment.
              if (this.lockQueue.length === 0 && !(await this.nextCall())) break
              // Every call queued now, then one sync for all: calls queued during it are the next group.
              const group = this.lockQueue.splice(0, GROUP_LIMIT - n)
              n += group.length
              const failed = new Map<LockedCall, unknown>()
              for (const call of group) await call.fn().catch((error: unknown) => failed.set(call, error))
              const syncFailure = await this.syncAppended()
              // Once the lines are on disk: the index never covers a line the disk may yet lose.
              if (syncFailure === undefined && this.offset - (this.index?.meta.covered ?? 0) > this.tailLimit)
                this.compactIfPossible()
              for (const call of group) {
                const error = failed.has(call) ? failed.get(call) : call.appends ? syncFailure : undefined
                if (error === undefined) call.resolve()
                else call.reject(error)
              }
            }
          },
          LOCK_WAIT_MS,
        ).catch((error: unknown) => {
          // The lock was not to be had: every call waiting for it fails as the first did.
          for (const call of this.lockQueue.splice(0)) call.reject(error)
        })
      }
    } finally {
      this.holding = false
    }
  }

  /** Whether a call is queued within LINGER_MS (false at once once the record is closed). */
  private nextCall(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false)
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(false), LINGER_MS)
      const done = (arrived: boolean) => {
        clearTimeout(timer)
        this.wake = undefined
        resolve(arrived)
      }
      this.wake = done
    })
  }

  /** The fdatasync of the lines appended since the last one, if any: its failure, or undefined. */
  private async syncAppended(): Promise<unknown> {
    if (!this.unsynced) return undefined
    this.unsynced = false
    return fdatasyncAsync(this.appendFd).then(
      () => undefined,
      (error: unknown) => error ?? new Error('fdatasync failed'),
    )
  }

  /** Brings the index up to the last complete line (under the lock), and reads the tail anew. */
  private compact(): void {
    const index = this.index
    const end = fstatSync(this.readFd).size
    const updated = updateIndex(
      this.indexFile,
      index,
      {
        logFd: this.readFd,
        headerLine: this.headerLine,
        from: index?.meta.covered ?? this.headerEnd,
        lines: index?.meta.lines ?? 1,
        readLines: (at) => this.linesFrom(at),
        parse: (text) => {
          const entry = parseEntry(text)
          return entry && {key: entry.key, kind: kindOf(entry)}
        },
        keyAt: (at) => this.keyAt(at),
        // After an append, say, the tail in memory is every line the index lacks: none is read again.
        known:
          this.offset === end
            ? {bills: this.tail, damaged: this.tailDamaged, covered: this.offset, lines: this.line}
            : undefined,
      },
      end,
    )
    // updateIndex closed what it replaced, or kept it open as the base of a new recent level.
    this.useIndex(updated)
    this.refresh()
  }

  /**
   * The index is derived: failing to write it (a full disk) must not fail an append whose lines
   * are already on disk. The lines it would have covered are read as the tail instead.
   */
  private compactIfPossible(): void {
    try {
      this.compact()
    } catch {
      this.refresh()
    }
  }

  /** `bills record --forget-before` replaced the file: read the new one from the start. */
  private reopenIfReplaced(): void {
    const now = lstatSync(this.file, {throwIfNoEntry: false})
    if (now && now.ino === fstatSync(this.readFd).ino) return
    closeSync(this.appendFd)
    closeSync(this.readFd)
    ;[this.appendFd, this.readFd] = openBoth(this.file)
    this.readHeader()
    const replaced = this.index
    this.useIndex(IndexLevels.open(this.indexFile, this.readFd, this.headerLine))
    replaced?.close()
    if (fstatSync(this.readFd).size - this.offset > this.tailLimit) this.compactIfPossible()
    else this.refresh()
  }

  /** Reads with `index` from now on, the tail after it anew. Whoever replaces the index closes the old one. */
  private useIndex(index: IndexLevels | undefined): void {
    this.index = index
    this.tail.clear()
    this.tailDamaged = []
    this.offset = index?.meta.covered ?? this.headerEnd
    this.line = index?.meta.lines ?? 1
  }

  private get headerEnd(): number {
    return Buffer.byteLength(this.headerLine) + 1
  }

  private readHeader(): void {
    this.headerLine = ''
    const first = this.linesFrom(0)[Symbol.iterator]().next()
    if (first.done) return
    this.checkHeader(first.value.text)
    this.headerLine = first.value.text
  }

  /**
   * What the lines of `key` come to: the index's candidates with this very key, then the tail's.
   * Asked twice for every bill an import reads, almost always of a key the record lacks: that
   * answer is one shared value, with nothing made for it.
   */
  private stateOf(key: string): Readonly<KeyState> {
    const candidates = this.index?.candidates(key) ?? NO_LINES
    const indexed = candidates.length === 0 ? candidates : candidates.filter((ref) => this.keyAt(ref.offset) === key)
    const tail = this.tail.linesOf(key)
    if (tail === undefined) return indexed.length === 0 ? NOT_RECORDED : replay(indexed)
    return replay(indexed.length === 0 ? tail : [...indexed, ...tail])
  }

  private keyAt(offset: number): string | undefined {
    return parseEntry(this.readLineAt(offset))?.key
  }

  /** Each complete line from byte `from` on, with its offset (what follows the last newline is left). */
  private *linesFrom(from: number): Generator<{text: string; offset: number}> {
    const end = fstatSync(this.readFd).size
    let pending: Buffer = Buffer.alloc(0)
    let pendingAt = from
    let position = from
    // Not allocated when there is nothing to read (each append looks for lines others wrote).
    const chunk = position < end ? Buffer.allocUnsafe(Math.min(READ_CHUNK, end - position)) : Buffer.alloc(0)
    while (position < end) {
      const n = readSync(this.readFd, chunk, 0, Math.min(chunk.length, end - position), position)
      if (n === 0) break
      position += n
      const data = pending.length > 0 ? Buffer.concat([pending, chunk.subarray(0, n)]) : chunk.subarray(0, n)
      let start = 0
      for (let nl = data.indexOf(0x0a); nl !== -1; nl = data.indexOf(0x0a, start)) {
        yield {text: data.toString('utf8', start, nl), offset: pendingAt + start}
        start = nl + 1
      }
      pendingAt += start
      // Copied: `chunk` is reused by the next read.
      pending = Buffer.from(data.subarray(start))
    }
    // What is left in `pending` has no newline yet: a torn write, or one still under way.
  }

  private learn(text: string, offset: number): void {
    this.line++
    if (text.trim() === '') return
    const entry = parseEntry(text)
    if (entry === undefined) this.tailDamaged.push(this.line)
    else this.tail.add(entry.key, offset, kindOf(entry))
  }

  private checkHeader(text: string): void {
    let header: {format?: unknown; baseUrl?: unknown; business?: unknown} | undefined
    try {
      header = JSON.parse(text) as typeof header
    } catch {
      header = undefined
    }
    if (header?.format !== RECORD_FORMAT)
      throw new InputError(
        `The record of created bills ${this.file} is damaged at line 1: expected a ${RECORD_FORMAT} header`,
        {
          code: 'record_damaged',
          hint: 'Move the file away to start a new record (bills it holds are then not known to later runs).',
          details: {file: this.file, line: 1},
        },
      )
    if (header.baseUrl !== this.baseUrl || header.business !== this.businessId) {
      throw new InputError(
        `The record of created bills ${this.file} is of ${String(header.business)} at ${String(header.baseUrl)}, not ${this.businessId} at ${this.baseUrl}`,
        {hint: 'Move that file away; bk starts a new record for this business on the next run.'},
      )
    }
  }

  /** When the first bill line was recorded, if any. */
  private firstEntryAt(): string | undefined {
    for (const {text} of this.linesFrom(this.headerEnd)) {
      const entry = parseEntry(text)
      if (entry?.at) return entry.at
    }
    return undefined
  }

  /** When the last bill line was recorded, reading back from the end. */
  private lastEntryAt(): string | undefined {
    for (let span = 1 << 16; ; span *= 4) {
      const start = Math.max(this.headerEnd, this.offset - span)
      const bytes = Buffer.alloc(this.offset - start)
      readSync(this.readFd, bytes, 0, bytes.length, start)
      const lines = bytes.toString('utf8').split('\n')
      // The first piece may be cut: only trusted when the read began at a line's start.
      for (let i = lines.length - 1; i >= (start === this.headerEnd ? 0 : 1); i--) {
        const entry = parseEntry(lines[i] ?? '')
        if (entry?.at) return entry.at
      }
      if (start === this.headerEnd) return undefined
    }
  }

  /** The complete line that starts at `offset`. */
  private readLineAt(offset: number): string {
    let size = 512
    for (;;) {
      const buffer = Buffer.allocUnsafe(size)
      const n = readSync(this.readFd, buffer, 0, size, offset)
      const nl = buffer.subarray(0, n).indexOf(0x0a)
      if (nl !== -1 || n < size) return buffer.toString('utf8', 0, nl === -1 ? n : nl)
      size *= 4
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`The record of created bills ${this.file} is closed`)
  }
}

/** The record's append (O_APPEND) and read descriptors, never through a symbolic link. */
function openBoth(file: string): [number, number] {
  const appendFd = openPrivateFile('The record of created bills', file, 'append')
  try {
    return [appendFd, openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0))]
  } catch (error) {
    closeSync(appendFd)
    throw error
  }
}

function writeAll(fd: number, data: Buffer): void {
  for (let written = 0; written < data.length;) written += writeSync(fd, data, written, data.length - written)
}

function kindOf(entry: Entry): Kind {
  return entry.absent ? Kind.absent : entry.unconfirmed !== undefined ? Kind.unconfirmed : Kind.created
}

interface Entry {
  key: string
  /** Undefined on a line of a bill left unconfirmed, or settled absent. */
  id?: string | undefined
  /** The start of the run that left it unconfirmed. */
  unconfirmed?: string | undefined
  absent?: boolean | undefined
  at: string
  input?: string | undefined
}

/** A bill's line, either version; undefined when damaged. */
function parseEntry(text: string): Entry | undefined {
  let value: Record<string, unknown>
  try {
    value = JSON.parse(text) as Record<string, unknown>
  } catch {
    return undefined
  }
  if (value === null || typeof value !== 'object') return undefined
  const at = typeof value.at === 'string' ? value.at : ''
  const input = typeof value.input === 'string' ? value.input : undefined
  if (typeof value.key === 'string' && typeof value.unconfirmed === 'string')
    return {key: value.key, unconfirmed: value.unconfirmed, at, input}
  if (typeof value.key === 'string' && value.absent === true) return {key: value.key, absent: true, at, input}
  if (typeof value.id !== 'string') return undefined
  if (typeof value.key === 'string') return {key: value.key, id: value.id, at, input}
  if (typeof value.vendor_id === 'string' && typeof value.number === 'string')
    return {key: value.vendor_id + KEY_SEPARATOR + value.number, id: value.id, at, input}
  return undefined
}

/**
 * Creates the record with its header unless it exists: written and fdatasync'd under a temporary
 * name, then linked into place, which fails (harmlessly) when another process created it first.
 */
function createWithHeader(file: string, header: object): void {
  const tmp = `${file}.${process.pid}.tmp`
  const fd = openPrivateFile('The record of created bills', tmp, 'truncate')
  try {
    writeSync(fd, JSON.stringify(header) + '\n')
    fdatasyncSync(fd)
  } finally {
    closeSync(fd)
  }
  try {
    linkSync(tmp, file)
    syncFolder(join(file, '..'))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  } finally {
    rmSync(tmp, {force: true})
  }
}

/** Makes a new directory entry durable. */
function syncFolder(folder: string): void {
  const fd = openSync(folder, 'r')
  try {
    fdatasyncSync(fd)
  } finally {
    closeSync(fd)
  }
}
