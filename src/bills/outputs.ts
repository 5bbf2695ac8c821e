/**
 * The files an import writes besides the journal: rejects and unconfirmed bills (the original
 * rows, verbatim, plus an `error` column: ready to fix and import again) and the results (created
 * bill ids, CSV or NDJSON by extension). Each file is created on its first row only, and written
 * with backpressure. Cells are written verbatim (no spreadsheet-formula guard): these files are
 * meant to be imported again, byte for byte.
 */
import {createWriteStream} from 'node:fs'

import {openPrivateFile, streamWriter, type StreamWriter} from '../output/sink.js'
import type {BillDraft} from './assemble.js'

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
    if (!this.out) {
      this.out = streamWriter(createWriteStream(this.path, {fd: openPrivateFile('output', this.path, 'truncate')}))
      await this.out.write(this.first())
    }
    await this.out.write(text)
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

/**
 * Rejected or unconfirmed bills: the original header plus `error` (no header row when the input
 * has none), each row of the bill as read.
 */
export class RowFile {
  private readonly file: LazyFile
  private readonly width: number

  constructor(
    path: string,
    header: string[] | undefined,
    private readonly format: RowFormat = {delimiter: ',', bom: false},
  ) {
    this.width = header?.length ?? 0
    const bom = format.bom ? '\uFEFF' : ''
    this.file = new LazyFile(path, () => bom + (header ? csvLine([...header, 'error'], format.delimiter) : ''))
  }

  get path(): string | null {
    return this.file.written ? this.file.path : null
  }

  async add(bill: BillDraft, errorFor: (line: number) => string): Promise<void> {
    let text = ''
    for (const row of bill.rows) {
      const read = row.raw ?? row.cells
      const cells =
        read.length < this.width ? [...read, ...Array.from({length: this.width - read.length}, () => '')] : read
      text += csvLine([...cells, errorFor(row.line)], this.format.delimiter)
    }
    await this.file.write(text)
  }

  close(): Promise<void> {
    return this.file.close()
  }
}

/** Created bills: `number,id,line` as CSV, or {number, id, line} as NDJSON (by extension). */
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

  async add(number: string, id: string, line: number): Promise<void> {
    await this.file.write(this.ndjson ? JSON.stringify({number, id, line}) + '\n' : csvLine([number, id, String(line)]))
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

  /** A bill not created: its rows, each with the reason for that row. */
  reject(bill: BillDraft, errorFor: (line: number) => string): Promise<void> {
    this.rejects ??= new RowFile(this.paths.rejects, this.header, this.format)
    this.observer?.rejected(bill, errorFor)
    return this.rejects.add(bill, errorFor)
  }

  /** A bill whose outcome bk cannot know: never sent again by bk. */
  leaveUnconfirmed(bill: BillDraft, reason: string): Promise<void> {
    this.unconfirmed ??= new RowFile(this.paths.unconfirmed, this.header, this.format)
    this.observer?.unconfirmed(bill, reason)
    return this.unconfirmed.add(bill, () => reason)
  }

  /** A bill read but not sent: the run stopped first. */
  async leaveUnsent(bill: BillDraft, reason: string): Promise<void> {
    this.observer?.unsent?.(bill, reason)
    if (!this.paths.unsent) return
    this.unsent ??= new RowFile(this.paths.unsent, this.header, this.format)
    await this.unsent.add(bill, () => reason)
  }

  /** A bill created, in this run or (`before`: why it was not sent) an earlier one. */
  async created(bill: BillDraft, id: string, before?: string): Promise<void> {
    if (before !== undefined && this.observer?.createdBefore) this.observer.createdBefore(bill, id, before)
    else this.observer?.created(bill, id)
    await this.results?.add(bill.number, id, bill.rows[0]!.line)
  }

  /** The rejects and unconfirmed files, when written. */
  get written(): {rejects: string | null; unconfirmed: string | null; unsent: string | null} {
    return {
      rejects: this.rejects?.path ?? null,
      unconfirmed: this.unconfirmed?.path ?? null,
      unsent: this.unsent?.path ?? null,
    }
  }

  /** Closes every file, even when one fails; the promises settle independently. */
  close(): Array<Promise<void> | undefined> {
    return [this.rejects?.close(), this.unconfirmed?.close(), this.unsent?.close(), this.results?.close()]
  }
}
