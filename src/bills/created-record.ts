/**
 * The record of the bills bk created, per environment (the API base URL) and business, kept in
 * the config folder (`<configDir>/created-bills/<hash of the base URL>-<business>.jsonl`), so
 * that `bills import --skip-existing` can skip the bills of nightly exports that overlap: a bill
 * any earlier run created, from whatever file, is known here by its vendor and number (supplier
 * invoice numbers are unique per supplier only).
 *
 * The file is append-only JSON lines, 0600, never written through a symbolic link:
 *   {"t":"header","format":"bk-created-bills","version":1,"baseUrl":…,"business":…,"at":…}
 *   {"vendor_id":"ven_…","number":"INV-1","id":"bil_…","at":…,"input":"bills.csv"}
 * The header is in the file from its creation (written to a temporary file, then linked into
 * place), so a reader never meets a file without one.
 *
 * Several bk processes may append at once (two imports of different files into one business):
 * each `add` holds the record's lock (`<file>.lock`, src/files/run-lock.ts) while it cuts off a torn
 * last line, reads what others appended since, and appends its lines in one write followed by an
 * fdatasync. Under the lock no one else is writing, so whatever follows the last newline is a
 * write cut short by a crash: it was never reported as recorded, readers ignore it, and the next
 * `add` removes it. A damaged line anywhere else is an error naming the file and line.
 */
import {createHash} from 'node:crypto'
import {
  closeSync,
  constants,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  rmSync,
  writeSync,
} from 'node:fs'
import {join} from 'node:path'

import {InputError} from '../shared/errors.js'
import {openPrivateFile} from '../output/sink.js'
import {withFileLock} from '../files/run-lock.js'

export const RECORD_FORMAT = 'bk-created-bills'
const RECORD_FOLDER = 'created-bills'
const READ_CHUNK = 1 << 20

export interface CreatedRecordOptions {
  /** bk's config folder (BK_CONFIG_DIR, or oclif's). */
  configDir: string
  /** The API base URL bills are created at: the environment. */
  baseUrl: string
  businessId: string
  /** The input file of this run, kept with each bill it adds ("stdin" for standard input). */
  input?: string | undefined
}

export interface CreatedBill {
  vendorId: string
  number: string
  /** The id the service gave the bill. */
  id: string
}

export interface CreatedRecord {
  /** The record's file. */
  readonly file: string
  /** Bills known to the record (read at open, refreshed by `add` and `refresh`). */
  readonly size: number
  /** The id of the bill an earlier run (or this one) created with this vendor and number. */
  lookup(vendorId: string, number: string): string | undefined
  /** Appends the bills, durably (on disk when the promise resolves), and learns them. */
  add(entries: readonly CreatedBill[]): Promise<void>
  /** Learns the bills other bk processes appended since the open or the last `add`. */
  refresh(): void
  close(): void
}

/** The environment of a base URL: scheme, host and path, lower-case host, no trailing slash. */
export function normaliseBaseUrl(baseUrl: string): string {
  const url = new URL(baseUrl)
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`
}

/** Where the record of (base URL, business) lives. */
export function createdRecordPath(configDir: string, baseUrl: string, businessId: string): string {
  const hash = createHash('sha256').update(normaliseBaseUrl(baseUrl)).digest('hex').slice(0, 12)
  // Business ids are `biz_…`; anything unusual in a file name is hashed rather than trusted.
  const business = /^[A-Za-z0-9_-]{1,64}$/.test(businessId)
    ? businessId
    : createHash('sha256').update(businessId).digest('hex').slice(0, 16)
  return join(configDir, RECORD_FOLDER, `${hash}-${business}.jsonl`)
}

export async function openCreatedRecord(options: CreatedRecordOptions): Promise<CreatedRecord> {
  const baseUrl = normaliseBaseUrl(options.baseUrl)
  const file = createdRecordPath(options.configDir, baseUrl, options.businessId)
  mkdirSync(join(options.configDir, RECORD_FOLDER), {recursive: true, mode: 0o700})
  if (!lstatSync(file, {throwIfNoEntry: false}))
    createWithHeader(file, {
      t: 'header',
      format: RECORD_FORMAT,
      version: 1,
      baseUrl,
      business: options.businessId,
      at: new Date().toISOString(),
    })
  const record = new FileRecord(file, baseUrl, options.businessId, options.input)
  try {
    record.refresh()
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

/**
 * Memory: a Map per vendor of bill number to id, so that a vendor id is held once, not once a
 * bill. Measured with 1,000,000 bills of 500 vendors (numbers of 16 characters, ids of 20): about
 * 100 bytes of heap a bill (101 MB; a single Map keyed by vendor and number took 197), and about
 * 2 seconds to read the 154 MB file on a shared 2-core machine. Every --skip-existing run pays that
 * at start, in proportion to all the bills ever recorded for the business.
 */
class FileRecord implements CreatedRecord {
  private readonly byVendor = new Map<string, Map<string, string>>()
  private count = 0
  private readonly appendFd: number
  private readonly readFd: number
  /** Bytes read so far: always the end of a complete line. */
  private offset = 0
  private line = 0
  private closed = false

  constructor(
    readonly file: string,
    private readonly baseUrl: string,
    private readonly businessId: string,
    private readonly input: string | undefined,
  ) {
    this.appendFd = openPrivateFile('The record of created bills', file, 'append')
    try {
      this.readFd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0))
    } catch (error) {
      closeSync(this.appendFd)
      throw error
    }
  }

  get hasHeader(): boolean {
    return this.line > 0
  }

  get size(): number {
    return this.count
  }

  lookup(vendorId: string, number: string): string | undefined {
    return this.byVendor.get(vendorId)?.get(number)
  }

  refresh(): void {
    this.assertOpen()
    const end = fstatSync(this.readFd).size
    let pending: Buffer = Buffer.alloc(0)
    const chunk = Buffer.allocUnsafe(READ_CHUNK)
    let position = this.offset
    while (position < end) {
      const n = readSync(this.readFd, chunk, 0, Math.min(READ_CHUNK, end - position), position)
      if (n === 0) break
      position += n
      const data = pending.length > 0 ? Buffer.concat([pending, chunk.subarray(0, n)]) : chunk.subarray(0, n)
      const last = data.lastIndexOf(0x0a)
      if (last !== -1) {
        // Decoded whole: a string per line from the buffer costs more than the parsing.
        for (const line of data.toString('utf8', 0, last).split('\n')) this.learn(line)
        this.offset += last + 1
      }
      // Copied: `chunk` is reused by the next read.
      pending = Buffer.from(data.subarray(last + 1))
    }
    // What is left in `pending` has no newline yet: a torn write, or one still under way.
  }

  async add(entries: readonly CreatedBill[]): Promise<void> {
    this.assertOpen()
    if (entries.length === 0) return
    await withFileLock(this.file, `The record of created bills ${this.file}`, async () => {
      this.refresh()
      // Bills already recorded with the same id (a --resume adding them again) are not repeated.
      const fresh = entries.filter((e) => this.lookup(e.vendorId, e.number) !== e.id)
      if (fresh.length === 0) return
      // Under the lock nobody writes: bytes past the last complete line are a crashed write.
      if (fstatSync(this.appendFd).size > this.offset) {
        ftruncateSync(this.appendFd, this.offset)
      }
      const at = new Date().toISOString()
      const text = fresh
        .map((e) => {
          const line = {
            vendor_id: e.vendorId,
            number: e.number,
            id: e.id,
            at,
            ...(this.input ? {input: this.input} : {}),
          }
          return JSON.stringify(line) + '\n'
        })
        .join('')
      const data = Buffer.from(text)
      // One write with O_APPEND; a short write is continued (the lock keeps others out meanwhile).
      for (let written = 0; written < data.length;) {
        written += writeSync(this.appendFd, data, written, data.length - written)
      }
      fdatasyncSync(this.appendFd)
      this.offset += data.length
      this.line += fresh.length
      for (const e of fresh) this.remember(e.vendorId, e.number, e.id)
    })
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    closeSync(this.appendFd)
    closeSync(this.readFd)
  }

  private learn(text: string): void {
    this.line++
    if (text.trim() === '') return
    const damaged = (why: string) =>
      new InputError(`The record of created bills ${this.file} is damaged at line ${this.line}: ${why}`, {
        code: 'record_damaged',
        hint: 'bk keeps it for --skip-existing. Fix or delete that line (its bill is then not skipped by later runs), or move the file away to start a new record.',
        details: {file: this.file, line: this.line},
      })
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      throw damaged((error as Error).message)
    }
    if (this.line === 1) {
      const header = value as {format?: unknown; baseUrl?: unknown; business?: unknown}
      if (header?.format !== RECORD_FORMAT) throw damaged(`expected a ${RECORD_FORMAT} header`)
      if (header.baseUrl !== this.baseUrl || header.business !== this.businessId) {
        throw new InputError(
          `The record of created bills ${this.file} is of ${String(header.business)} at ${String(header.baseUrl)}, not ${this.businessId} at ${this.baseUrl}`,
          {hint: 'Move that file away; bk starts a new record for this business on the next run.'},
        )
      }
      return
    }
    const bill = value as {vendor_id?: unknown; number?: unknown; id?: unknown}
    if (typeof bill?.vendor_id !== 'string' || typeof bill.number !== 'string' || typeof bill.id !== 'string') {
      throw damaged('expected {"vendor_id", "number", "id"} as strings')
    }
    this.remember(bill.vendor_id, bill.number, bill.id)
  }

  /** The first id recorded for a key stays: a later one is a second bill the service created. */
  private remember(vendorId: string, number: string, id: string): void {
    let numbers = this.byVendor.get(vendorId)
    if (numbers === undefined) this.byVendor.set(vendorId, (numbers = new Map()))
    if (numbers.has(number)) return
    numbers.set(number, id)
    this.count++
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`The record of created bills ${this.file} is closed`)
  }
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
