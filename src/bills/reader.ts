/**
 * An import's input as records, parsed on the main thread or on the reading worker
 * (csv-records.ts is what both run), `-` for stdin. bk counts physical lines itself (csv-parse
 * counts a CRLF inside a quoted field twice), so every message names the line a record starts on.
 */
import {createReadStream, existsSync, statSync} from 'node:fs'
import {dirname, join} from 'node:path'
import type {Readable} from 'node:stream'
import {fileURLToPath} from 'node:url'
import {Worker} from 'node:worker_threads'

import {InputError} from '../shared/errors.js'
import {unreadableBecause, unreadableHint} from '../files/file-errors.js'
import {csvParser, isCsvError, NOT_CSV, recordBatches, type CsvShape} from './csv-records.js'
import type {CsvWorkerData, WorkerFailure, WorkerMessage} from './csv-worker.js'
import type {RowError} from './assemble.js'
import type {ReadRecord, RowOrigin} from './record-structure.js'
import {inputName} from './input-name.js'

export type {CsvShape} from './csv-records.js'

export interface CsvInput {
  /** The name used in messages: the path as given, or `stdin`. */
  label: string
  /** The records, as many at a time as are parsed; a CSV error is thrown after the records before it. */
  batches(): AsyncGenerator<string[][]>
  /** Size in bytes, when known (for the ETA). */
  size: number | undefined
  bytesRead(): number
  /** Physical line where the next record starts. */
  nextLine: number
  /** Records the start line of `record` and advances past it; returns that line. */
  advance(record: string[]): number
  /**
   * Whether the record `advance` last read holds a line break, a control character other than tab,
   * or U+FFFD: only such a record needs its cells looked at again (scan.ts, unreadable cells).
   */
  marked: boolean
  close(): void
  /** A flattened input (structured-input.ts): where the record last served was read. */
  origin?: (() => RowOrigin | undefined) | undefined
  /** A flattened input: its header rows as read, and its lines file's header (for the side files). */
  readHeader?: ReadRecord[] | undefined
  linesHeader?: {label: string; record: ReadRecord} | undefined
}

/**
 * Where an input is parsed. On the main thread csv-parse parses a whole chunk in one go, so while
 * batches are in flight a smaller chunk keeps the event loop free to handle their answers.
 * `worker`: a file (not stdin) is read and parsed by a worker thread when bk runs from its build
 * (csv-worker.ts), so parsing takes nothing from the main thread but the records' copying; worth
 * its start and its memory (about 12 MB) for a dry run's whole file of WORKER_MIN_BYTES or more,
 * not for a smaller one, a sample, nor an import, which it does not make faster where the service
 * shares the machine (docs/performance.md).
 */
export type Parsing = 'worker' | {chunkBytes: number}

/**
 * The smallest file a worker reads: starting one costs about 90 ms, which its parsing wins back
 * at about 4 MB (a dry run of 1.2 MB was 75 ms faster without it, one of 6.3 MB 62 ms slower).
 */
const WORKER_MIN_BYTES = 4 * 1024 * 1024

const MAIN_THREAD = {chunkBytes: 256 * 1024}

export function openCsv(file: string, parsing: Parsing = MAIN_THREAD, shape: CsvShape = {}): CsvInput {
  const {chunkBytes} = parsing === 'worker' ? MAIN_THREAD : parsing
  if (file === '-') return threadInput(inputName(file), process.stdin, undefined, shape)
  let size: number
  try {
    const stat = statSync(file)
    if (stat.isDirectory())
      throw new InputError(`${file} is a folder, not a CSV file`, {hint: 'Name a CSV file in that folder.'})
    size = stat.size
  } catch (error) {
    if (error instanceof InputError) throw error
    throw new InputError(`Cannot read ${file}: ${unreadableBecause(error)}`, {hint: unreadableHint(file, error)})
  }
  const script = parsing === 'worker' && size >= WORKER_MIN_BYTES ? workerScript() : undefined
  // In the worker a chunk is a message, not a pause of the event loop: its size is the worker's.
  if (script) return workerInput(file, size, script, {file, chunkBytes: WORKER_CHUNK_BYTES, shape})
  return threadInput(file, createReadStream(file, {highWaterMark: chunkBytes}), size, shape)
}

/** Line counting, the same whichever thread parses: the part of a CsvInput that reads each record. */
function lineCounter(label: string, size: number | undefined, bytesRead: () => number) {
  const input = {
    label,
    size,
    bytesRead,
    nextLine: 1,
    marked: false,
    advance(record: string[]): number {
      const line = input.nextLine
      let newlines = 0
      let marked = false
      // One search a cell: almost no cell holds any of these, and those that do are read again.
      for (let i = 0; i < record.length; i++) {
        const cell = record[i]!
        if (cell.length === 0 || !NOTABLE.test(cell)) continue
        marked = true
        if (cell.includes('\n') || cell.includes('\r')) newlines += countNewlines(cell)
      }
      input.nextLine = line + newlines + 1
      input.marked = marked
      return line
    },
  }
  return input
}

/**
 * The worker's chunk: smaller chunks cost more messages, larger ones a larger young generation
 * (the records of the chunks in flight live in it); 32 KiB with a 4 MB young generation is as fast
 * as 256 KiB with V8's default, for about 50 MB less peak RSS in a dry run (docs/performance.md).
 */
const WORKER_CHUNK_BYTES = 32 * 1024

/**
 * The input parsed on this thread: stdin, an import's file, a sample, and any file when bk runs
 * from its sources.
 */
function threadInput(label: string, source: Readable, size: number | undefined, shape: CsvShape): CsvInput {
  let bytes = 0
  const parser = csvParser(
    source,
    shape,
    (n) => (bytes += n),
    (error) => unreadableMidway(label, error.message, (error as NodeJS.ErrnoException).code),
  )
  return Object.assign(
    lineCounter(label, size, () => bytes),
    {
      batches: () => recordBatches(parser),
      close() {
        source.unpipe(parser)
        if (source !== process.stdin) source.destroy()
        else process.stdin.pause()
        parser.destroy()
      },
    },
  )
}

/** The input parsed by the reading worker; its failures are thrown here as the thread's would be. */
function workerInput(file: string, size: number, script: string, data: CsvWorkerData): CsvInput {
  // Its live set is a few chunks' records: a small young generation holds them, and keeps RSS flat.
  const worker = new Worker(script, {workerData: data, resourceLimits: {maxYoungGenerationSizeMb: 4}})
  // Only a reader waiting for records keeps bk running: an input left unclosed cannot hold it.
  worker.unref()
  const queue: WorkerMessage[] = []
  let wake: (() => void) | undefined
  const arrive = (message: WorkerMessage) => {
    queue.push(message)
    wake?.()
    wake = undefined
  }
  let bytes = 0
  worker.on('message', arrive)
  worker.on('error', (error) => arrive({failure: {message: error.message}, bytes}))
  worker.on('exit', () => arrive({failure: {message: 'the reading thread stopped'}, bytes}))
  async function* batches(): AsyncGenerator<string[][]> {
    for (;;) {
      if (queue.length === 0) {
        worker.ref()
        while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve))
        worker.unref()
      }
      const message = queue.shift()!
      bytes = message.bytes
      if ('end' in message) return
      if ('failure' in message) throw failureOf(file, message.failure)
      // Taken: the worker may parse another chunk meanwhile.
      worker.postMessage(0)
      yield message.records
    }
  }
  return Object.assign(
    lineCounter(file, size, () => bytes),
    {batches, close: () => void worker.terminate()},
  )
}

function failureOf(file: string, failure: WorkerFailure): Error {
  if (!isCsvError(failure)) return unreadableMidway(file, failure.message, failure.code)
  return Object.assign(new Error(failure.message), {code: failure.code, index: failure.index})
}

const NOTHING_READ = 'No row of it was read, and nothing was sent.'

/** A failure to read the input met while it is parsed, on either thread. */
function unreadableMidway(label: string, message: string, code?: string): InputError {
  // Refused at its first bytes (csv-records.ts notCsv): the message says what to do.
  if (code === NOT_CSV) return new InputError(`Cannot read ${label}: ${message}`, {hint: NOTHING_READ})
  return new InputError(`Cannot read ${label}: ${message}`)
}

/**
 * The reading worker's script, beside the bundle (dist/csv-worker.cjs, from dist/ or
 * dist/chunks/); none when bk runs from its sources, which then parse on the main thread.
 */
function workerScript(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url))
  return [join(here, 'csv-worker.cjs'), join(here, '..', 'csv-worker.cjs')].find((p) => existsSync(p))
}

/** A line break, a control character but tab, or U+FFFD (what reading puts for bytes that are not UTF-8). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const NOTABLE = /[\x00-\x08\x0A-\x1F\x7F-\x9F\uFFFD]/

function countNewlines(text: string): number {
  let n = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 10) n++
    // A lone CR is a line break too, except one ending the cell (a CRLF file read with LF records).
    else if (c === 13 && text.charCodeAt(i + 1) !== 10 && i + 1 < text.length) n++
  }
  return n
}

/** A csv-parse failure: its code and the position in its record of the field it stopped in. */
export type CsvFailure = Error & {code?: string | undefined; index?: number | undefined}

/**
 * A csv-parse failure in bk's words, as a problem of the record starting on `line` (bk's count:
 * the records before it are all read first) and of its field, named by `header` when there is one.
 */
export function csvProblem(error: CsvFailure, line: number, header?: readonly string[]): RowError {
  const column = error.index === undefined ? undefined : header?.[error.index]?.trim() || String(error.index + 1)
  return {line, ...(column === undefined ? {} : {column}), message: csvMessage(error, line)}
}

function csvMessage(error: CsvFailure, line: number): string {
  switch (error.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return `unterminated quoted field: the quote opened on line ${line} is never closed (the rest of the file was read into it)`
    case 'INVALID_OPENING_QUOTE':
      return `a quote inside a field that does not start with one, in the record starting on line ${line} (RFC 4180): quote the whole field and double the quote inside it, such as "12"" monitor"`
    case 'CSV_INVALID_CLOSING_QUOTE':
      return `text follows the closing quote of a quoted field, in the record starting on line ${line} (RFC 4180): quote the whole field and double each quote inside it, such as "12"" monitor"`
    default:
      // None of bk's options lets csv-parse raise another: its own words, should one come.
      return `cannot parse the record starting on line ${line}: ${error.message.replace(/ at line \d+/, '')}`
  }
}
