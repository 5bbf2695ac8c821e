/**
 * The files an import writes besides the journal: rejects and unconfirmed bills (the original
 * rows, verbatim, plus an `error` column: ready to fix and import again) and the results (created
 * bill ids, CSV or NDJSON by extension). Each file is created on its first row only, and written
 * with backpressure. The rows of the rejects, unconfirmed and unsent files are written verbatim
 * (no spreadsheet-formula guard): these files are meant to be imported again, byte for byte, and
 * a defused bill number would be another bill. The results are a report: through the guard.
 */
import {createWriteStream} from 'node:fs'
import {extname} from 'node:path'

import {safeCsv} from '../output/safe-csv.js'
import {openPrivateFile, streamWriter, type StreamWriter} from '../output/sink.js'
import type {BillDraft} from './assemble.js'
import type {CreatedDraft} from './batch-sender.js'
import type {OriginalRecord, ReadRecord} from './record-structure.js'

const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/

function csvLine(cells: readonly string[], delimiter = ','): string {
  let out = ''
  for (let i = 0; i < cells.length; i++) {
    const c = cells[i]!
    if (i > 0) out += delimiter
    out += NEEDS_QUOTES.test(c) || c.includes(delimiter) ? `"${c.replaceAll('"', '""')}"` : c
  }
  return out + '\n'
}

/**
 * A failed write, naming the file: `--results /dev/stdout` piped to `head` fails with a bare
 * "EPIPE: broken pipe". The error stays the cause, so a full disk is still told by its code.
 */
function writeFailure(path: string, error: unknown): Error {
  const e = error as NodeJS.ErrnoException
  if (!e.code) return e
  const why = e.code === 'EPIPE' ? 'the program reading it stopped (EPIPE)' : e.message
  return new Error(`could not write ${path}: ${why}`, {cause: error})
}

class LazyFile {
  private out: StreamWriter | undefined

  constructor(
    readonly path: string,
    private readonly first: () => string,
  ) {}

  get written(): boolean {
    return this.out !== undefined
  }

  async write(text: string): Promise<void> {
    try {
      if (!this.out) {
        this.out = streamWriter(createWriteStream(this.path, {fd: openPrivateFile('output', this.path, 'truncate')}))
        await this.out.write(this.first())
      }
      await this.out.write(text)
    } catch (error) {
      throw writeFailure(this.path, error)
    }
  }

  async close(): Promise<void> {
    await this.out?.end()
  }
}

/** How rows go back out: the input's delimiter, and a BOM when the input was not UTF-8. */
export interface RowFormat {
  delimiter: string
  bom: boolean
}

/** How a flattened input (packed cells, record types, a lines file) was read: its rows go back out so. */
export interface ReadShape {
  /** The header rows as read (one, or one per record type). */
  header: ReadRecord[]
  /** The lines file's header. */
  lines?: {header: ReadRecord} | undefined
}

/**
 * A two-file import's side file for the lines file: one set with the bills file's, beside it and
 * named after it (bills.rejects.csv and bills.rejects.lines.csv), wherever the lines file is.
 */
export function linesSidePath(sidePath: string): string {
  const ext = extname(sidePath)
  return `${sidePath.slice(0, sidePath.length - ext.length)}.lines${ext || '.csv'}`
}

const padded = (cells: readonly string[], width: number) =>
  cells.length < width ? [...cells, ...Array.from({length: width - cells.length}, () => '')] : cells

/**
 * Rejected or unconfirmed bills: the original header plus `error` (no header row when the input
 * has none), each row of the bill as read. A flattened input's bills go back out as the file has
 * them: all of a bill's rows, under the header rows as read; their lines-file rows in this file's
 * own lines side file (linesSidePath), under the lines file's header (no reason column: the
 * reasons name those rows).
 */
export class RowFile {
  private readonly file: LazyFile
  private readonly lines: LazyFile | undefined
  private readonly width: number

  constructor(
    path: string,
    header: string[] | undefined,
    private readonly format: RowFormat = {delimiter: ',', bom: false},
    read?: ReadShape,
  ) {
    this.width = header?.length ?? 0
    const bom = format.bom ? '\uFEFF' : ''
    const line = (cells: readonly string[]) => csvLine(cells, format.delimiter)
    const first = read
      ? () => bom + read.header.map((h) => line([...h.cells, 'error'])).join('')
      : () => bom + (header ? line([...header, 'error']) : '')
    this.file = new LazyFile(path, first)
    const lines = read?.lines
    this.lines = lines && new LazyFile(linesSidePath(path), () => bom + line(lines.header.cells))
  }

  get path(): string | null {
    return this.file.written ? this.file.path : null
  }

  /** The lines file's side file, when written. */
  get linesPath(): string | null {
    return this.lines?.written ? this.lines.path : null
  }

  async add(bill: BillDraft, errorFor: (line: number) => string): Promise<void> {
    if (bill.rows[0]?.origin) return this.addAsRead(bill, errorFor)
    let text = ''
    for (const row of bill.rows) {
      text += csvLine([...padded(row.raw ?? row.cells, this.width), errorFor(row.line)], this.format.delimiter)
    }
    await this.file.write(text)
  }

  /** Each record of the bill once, in the file's order; its lines file rows to the side file. */
  private async addAsRead(bill: BillDraft, errorFor: (line: number) => string): Promise<void> {
    const records = new Set<OriginalRecord>()
    const lines = new Set<ReadRecord>()
    for (const row of bill.rows) {
      for (const r of row.origin?.records ?? []) records.add(r)
      if (row.origin?.lines) lines.add(row.origin.lines.record)
    }
    let text = ''
    for (const r of records) text += csvLine([...padded(r.cells, r.width), errorFor(r.line)], this.format.delimiter)
    await this.file.write(text)
    if (!this.lines || lines.size === 0) return
    let own = ''
    for (const r of lines) own += csvLine(r.cells, this.format.delimiter)
    await this.lines.write(own)
  }

  async close(): Promise<void> {
    await Promise.all([this.file.close(), this.lines?.close()])
  }
}

/**
 * Created bills: `number,id,line` as CSV, or {number, id, line} as NDJSON (by extension). The CSV
 * defuses a number a spreadsheet would run as a formula, as every CSV bk writes for people.
 */
export class ResultsFile {
  private readonly file: LazyFile
  private readonly ndjson: boolean

  constructor(path: string) {
    this.ndjson = /\.(nd)?jsonl?$/i.test(path)
    this.file = new LazyFile(path, () => (this.ndjson ? '' : 'number,id,line\n'))
  }

  get path(): string {
    return this.file.path
  }

  /** One write for a batch's bills. */
  async add(created: readonly CreatedDraft[]): Promise<void> {
    const text = this.ndjson
      ? created.map(({bill, id}) => JSON.stringify({number: bill.number, id, line: bill.rows[0]!.line}) + '\n').join('')
      : safeCsv(created.map(({bill, id}) => [bill.number, id, bill.rows[0]!.line]))
    await this.file.write(text)
  }

  /** Creates the file even when no bill was created, so --results always names a file. */
  async close(): Promise<void> {
    if (!this.file.written) await this.file.write('')
    return this.file.close()
  }
}

/** The paths of an import's outcome files. */
export interface OutputPaths {
  rejects: string
  unconfirmed: string
  /** Bills read but not sent because the run stopped (the rows as read, and why). */
  unsent?: string | undefined
  results?: string | undefined
}

/** Each bill's outcome as the files record it, for reports beside them (src/ci: annotations, JUnit). */
export interface OutcomeObserver {
  rejected(bill: BillDraft, errorFor: (line: number) => string): void
  unconfirmed(bill: BillDraft, reason: string): void
  /** Created in this run or an earlier one (the import's onCreated tells this run's). */
  created(bill: BillDraft, id: string): void
  /** Created by an earlier run (of this file, or any import the record knows): not sent. */
  createdBefore?(bill: BillDraft, id: string, reason: string): void
  /** Read but not sent: the run stopped first. */
  unsent?(bill: BillDraft, reason: string): void
}

/**
 * An import's outcome files together: rejects and unconfirmed bills (created on their first row,
 * with the input's header once it is read) and the results. The counts stay with the caller.
 */
export class ImportOutputs {
  /** The input's header row (undefined for a file without one), set once it is read. */
  header: string[] | undefined
  /** A flattened input: how it was read (its header rows, its lines file's), set once it is read. */
  read: ReadShape | undefined
  private rejects: RowFile | undefined
  private unconfirmed: RowFile | undefined
  private unsent: RowFile | undefined
  private readonly results: ResultsFile | undefined

  constructor(
    private readonly paths: OutputPaths,
    private readonly format: RowFormat,
    private readonly observer?: OutcomeObserver | undefined,
  ) {
    this.results = paths.results ? new ResultsFile(paths.results) : undefined
  }

  private rowFile(path: string): RowFile {
    return new RowFile(path, this.header, this.format, this.read)
  }

  /** A bill not created: its rows, each with the reason for that row. */
  reject(bill: BillDraft, errorFor: (line: number) => string): Promise<void> {
    this.rejects ??= this.rowFile(this.paths.rejects)
    this.observer?.rejected(bill, errorFor)
    return this.rejects.add(bill, errorFor)
  }

  /** A bill whose outcome bk cannot know: never sent again by bk. */
  leaveUnconfirmed(bill: BillDraft, reason: string): Promise<void> {
    this.unconfirmed ??= this.rowFile(this.paths.unconfirmed)
    this.observer?.unconfirmed(bill, reason)
    return this.unconfirmed.add(bill, () => reason)
  }

  /** A bill read but not sent: the run stopped first. */
  async leaveUnsent(bill: BillDraft, reason: string): Promise<void> {
    this.observer?.unsent?.(bill, reason)
    if (!this.paths.unsent) return
    this.unsent ??= this.rowFile(this.paths.unsent)
    await this.unsent.add(bill, () => reason)
  }

  /** Bills created, in this run (a batch's) or (`before`: why it was not sent) an earlier one. */
  async created(created: readonly CreatedDraft[], before?: string): Promise<void> {
    for (const {bill, id} of created)
      if (before !== undefined && this.observer?.createdBefore) this.observer.createdBefore(bill, id, before)
      else this.observer?.created(bill, id)
    await this.results?.add(created)
  }

  /** The rejects, unconfirmed and unsent files, and a lines file's side files, when written. */
  get written(): Record<'rejects' | 'unconfirmed' | 'unsent', {path: string | null; lines: string | null}> {
    const of = (file: RowFile | undefined) => ({path: file?.path ?? null, lines: file?.linesPath ?? null})
    return {rejects: of(this.rejects), unconfirmed: of(this.unconfirmed), unsent: of(this.unsent)}
  }

  /** Closes every file, even when one fails; the promises settle independently. */
  close(): Array<Promise<void> | undefined> {
    return [this.rejects?.close(), this.unconfirmed?.close(), this.unsent?.close(), this.results?.close()]
  }
}
