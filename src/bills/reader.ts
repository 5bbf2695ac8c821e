/**
 * Streaming CSV reading with csv-parse: UTF-8 with or without a BOM, CRLF or LF, quoted fields
 * with commas and newlines, `-` for stdin. bk counts physical lines itself (csv-parse counts a
 * CRLF inside a quoted field twice), so every message names the line a record starts on.
 */
import {createReadStream, statSync} from 'node:fs'
import {Readable, Transform} from 'node:stream'

import {parse, type Parser} from 'csv-parse'

import {InputError} from '../shared/errors.js'
import {unreadableBecause, unreadableHint} from '../files/file-errors.js'
import type {ReadRecord, RowOrigin} from './record-structure.js'

export interface CsvInput {
  /** The name used in messages: the path as given, or `stdin`. */
  label: string
  parser: Parser
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

/** How the file is written: its delimiter and encoding (from the map, or bk's own: `,` and UTF-8). */
export interface CsvShape {
  delimiter?: string | undefined
  encoding?: 'utf-8' | 'windows-1252' | 'latin1' | undefined
  /** false: a `"` is text like any other (IIF files quote nothing). */
  quote?: false | undefined
}

/**
 * Bytes of a single-byte encoding to text, with Node's own decoders: Windows-1252 through the
 * WHATWG TextDecoder, Latin-1 through Buffer's (TextDecoder would read "latin1" as Windows-1252).
 * A file that starts with a UTF-8 byte order mark is read as UTF-8 whatever the map says: the
 * mark is unambiguous, and bk's own rejects files of such an import are written that way.
 */
function decoderFor(encoding: 'windows-1252' | 'latin1'): Transform {
  let decode: ((chunk: Buffer) => string) | undefined
  return new Transform({
    decodeStrings: true,
    readableObjectMode: false,
    transform(chunk: Buffer, _enc, done) {
      if (!decode) {
        const bom = chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf
        if (bom) {
          const utf8 = new TextDecoder('utf-8')
          decode = (c) => utf8.decode(c, {stream: true})
        } else if (encoding === 'latin1') decode = (c) => c.toString('latin1')
        else {
          const cp1252 = new TextDecoder('windows-1252')
          decode = (c) => cp1252.decode(c, {stream: true})
        }
      }
      done(null, decode(chunk))
    },
  })
}

/**
 * `chunkBytes`: how much is parsed at a time. csv-parse parses a whole chunk in one go, so while
 * batches are in flight a smaller chunk keeps the event loop free to handle their answers.
 */
export function openCsv(file: string, chunkBytes = 256 * 1024, shape: CsvShape = {}): CsvInput {
  let source: Readable
  let size: number | undefined
  if (file === '-') {
    source = process.stdin
  } else {
    try {
      const stat = statSync(file)
      if (stat.isDirectory())
        throw new InputError(`${file} is a folder, not a CSV file`, {hint: 'Name a CSV file in that folder.'})
      size = stat.size
    } catch (error) {
      if (error instanceof InputError) throw error
      throw new InputError(`Cannot read ${file}: ${unreadableBecause(error)}`, {hint: unreadableHint(file, error)})
    }
    source = createReadStream(file, {highWaterMark: chunkBytes})
  }
  let bytes = 0
  const parser = parse({
    bom: true,
    relax_column_count: true,
    delimiter: shape.delimiter ?? ',',
    ...(shape.quote === false ? {quote: false} : {}),
  })
  source.on('error', (error) =>
    parser.destroy(new InputError(`Cannot read ${file === '-' ? 'stdin' : file}: ${error.message}`)),
  )
  // recordBatches throws the error once the records before it are taken. Until then it is only
  // kept: emitted with no listener (the reader busy elsewhere), it would end the process.
  parser.on('error', () => {})
  const encoding = shape.encoding ?? 'utf-8'
  // Reading starts at the parser's first read, not here. An import opens its input before it takes
  // its locks; meanwhile a small file would be parsed to its end, and an unterminated quote there
  // errors (and destroys, with the records before it) a parser nobody iterates yet.
  const firstRead = parser._read.bind(parser)
  let started = false
  parser._read = (size: number) => {
    if (!started) {
      started = true
      source.on('data', (chunk: Buffer | string) => {
        bytes += chunk.length
      })
      if (encoding === 'utf-8') source.pipe(parser)
      else source.pipe(decoderFor(encoding)).pipe(parser)
    }
    firstRead(size)
  }
  const input: CsvInput = {
    label: file === '-' ? 'stdin' : file,
    parser,
    size,
    bytesRead: () => bytes,
    nextLine: 1,
    marked: false,
    advance(record) {
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
    close() {
      source.unpipe(parser)
      if (source !== process.stdin) source.destroy()
      else process.stdin.pause()
      parser.destroy()
    },
  }
  return input
}

/**
 * The records of an input, as many at a time as its parser holds: taken from a stream with
 * `read()`, they cost no promise each (an async iterator's is about a tenth of a dry run's time).
 * A parser's error is thrown once the records before it are taken. A parser that is no stream
 * (a flattened input, structured-input.ts) is iterated a record at a time.
 */
export async function* recordBatches(parser: Parser | AsyncIterable<string[]>): AsyncGenerator<string[][]> {
  if (!(parser instanceof Readable)) {
    for await (const record of parser) yield [record]
    return
  }
  for (;;) {
    const batch: string[][] = []
    for (let record = parser.read() as string[] | null; record !== null; record = parser.read() as string[] | null)
      batch.push(record)
    if (batch.length > 0) yield batch
    else if (parser.errored) throw parser.errored
    else if (parser.readableEnded) return
    else await readableOrEnd(parser)
  }
}

/** Resolves when the stream has records to read or has ended; rejects with its error. */
function readableOrEnd(stream: Readable): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = (error?: Error) => {
      stream.off('readable', ready)
      stream.off('end', ready)
      stream.off('error', settle)
      stream.off('close', ready)
      if (error) reject(error)
      else resolve()
    }
    const ready = () => settle()
    stream.on('readable', ready)
    stream.on('end', ready)
    stream.on('error', settle)
    // Destroyed without an error (closed early): nothing more will come.
    stream.on('close', ready)
  })
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

/** A csv-parse failure as one message naming the line its record starts on. */
export function csvErrorMessage(error: Error & {code?: string}, line: number): string {
  switch (error.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return `unterminated quoted field: the quote opened on line ${line} is never closed (the rest of the file was read into it)`
    case 'INVALID_OPENING_QUOTE':
      return `a quote inside a field that does not start with one, in the record starting on line ${line} (RFC 4180): quote the whole field and double the quote inside it, such as "12"" monitor"`
    case 'CSV_INVALID_CLOSING_QUOTE':
      return `a quoted field in the record starting on line ${line} is followed by text before the next comma: ${error.message.replace(/ at line \d+/, '')}`
    default:
      return `cannot parse the record starting on line ${line}: ${error.message.replace(/ at line \d+/, '')}`
  }
}
