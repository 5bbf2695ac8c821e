/**
 * A file's bytes to CSV records, the same on the main thread and in the reading worker
 * (csv-worker.ts): bk's csv-parse options, the decoding of a single-byte encoding, and records
 * taken from the parser as many at a time as it holds.
 */
import {Readable, Transform} from 'node:stream'

import {parse, type Parser} from 'csv-parse'

/** How the file is written: its delimiter and encoding (from the map, or bk's own: `,` and UTF-8). */
export interface CsvShape {
  delimiter?: string | undefined
  encoding?: 'utf-8' | 'windows-1252' | 'latin1' | undefined
  /** false: a `"` is text like any other (IIF files quote nothing). */
  quote?: false | undefined
}

/**
 * A parser of `source` with bk's options. Reading starts at the parser's first read, not here: an
 * import opens its input before it takes its locks; meanwhile a small file would be parsed to its
 * end, and an unterminated quote there errors (and destroys, with the records before it) a parser
 * nobody iterates yet. `onBytes` counts what is read; a read error destroys the parser with
 * `readError(error)`.
 */
export function csvParser(
  source: Readable,
  shape: CsvShape,
  onBytes: (bytes: number) => void,
  readError: (error: Error) => Error,
): Parser {
  const parser = parse({
    bom: true,
    relax_column_count: true,
    delimiter: shape.delimiter ?? ',',
    ...(shape.quote === false ? {quote: false} : {}),
  })
  source.on('error', (error) => parser.destroy(readError(error)))
  // recordBatches throws the error once the records before it are taken. Until then it is only
  // kept: emitted with no listener (the reader busy elsewhere), it would end the process.
  parser.on('error', () => {})
  const encoding = shape.encoding ?? 'utf-8'
  const firstRead = parser._read.bind(parser)
  let started = false
  parser._read = (size: number) => {
    if (!started) {
      started = true
      // A workbook or UTF-16 without its mark is refused by its first bytes, before any of it is
      // read as rows (its "header" would be noise): this listener runs before the pipe's.
      source.once('data', (chunk: Buffer | string) => {
        const reason = typeof chunk === 'string' ? undefined : notCsv(chunk)
        if (!reason) return
        source.unpipe()
        source.destroy()
        parser.destroy(readError(Object.assign(new Error(reason), {code: NOT_CSV})))
      })
      source.on('data', (chunk: Buffer | string) => onBytes(chunk.length))
      if (encoding === 'utf-8') source.pipe(parser)
      else source.pipe(decoderFor(encoding)).pipe(parser)
    }
    firstRead(size)
  }
  return parser
}

/**
 * The encoding a file's byte order mark names, as csv-parse reads one (`bom: true`) on the bytes
 * of a UTF-8 file: UTF-8's, or UTF-16LE's (Windows' "Unicode text").
 */
export function bomEncoding(bytes: Uint8Array): 'utf-8' | 'utf-16le' | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8'
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le'
  return undefined
}

/** The code of the error `notCsv`'s refusal is read as, on either thread. */
export const NOT_CSV = 'BK_NOT_CSV'

// eslint-disable-next-line no-control-regex -- the NUL bytes are the point
const UTF16_UNMARKED = /(?:\u0000[^\u0000]){2}|(?:[^\u0000]\u0000){2}/

/**
 * Why a file's first bytes are no CSV bk reads, if they are not: a spreadsheet workbook (what a
 * bookkeeper most often has instead of its CSV export), a PDF, or UTF-16 that csv-parse does not
 * read: big-endian (FE FF), or either order without a mark (a NUL beside each character). Only
 * UTF-16 with its little-endian mark (FF FE, Excel's "Unicode text") is read.
 */
export function notCsv(head: Uint8Array): string | undefined {
  const starts = (...bytes: number[]) => bytes.every((b, i) => head[i] === b)
  const saveAs = 'Save it as CSV UTF-8 (in Excel: File > Save As > "CSV UTF-8") and import that file'
  if (starts(0x50, 0x4b, 0x03, 0x04))
    return `it is a ZIP file, such as an Excel or OpenDocument workbook (.xlsx, .ods), not CSV. ${saveAs}`
  if (starts(0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1))
    return `it is an Excel 97-2003 workbook (.xls), not CSV. ${saveAs}`
  if (starts(0x25, 0x50, 0x44, 0x46, 0x2d))
    return 'it is a PDF, not CSV: export the data as CSV from the program that made it'
  if (bomEncoding(head) === 'utf-16le') return undefined
  const start = Buffer.from(head.buffer, head.byteOffset, Math.min(head.length, 1024)).toString('latin1')
  if (starts(0xfe, 0xff) || UTF16_UNMARKED.test(start))
    return 'it holds a NUL byte beside each character: it is UTF-16 without the mark bk reads it by (big-endian, or no byte order mark). Save it as UTF-8 ("CSV UTF-8" in Excel), or as UTF-16 with its mark ("Unicode text")'
  return undefined
}

/**
 * Bytes of a single-byte encoding to text, with Node's own decoders: Windows-1252 through the
 * WHATWG TextDecoder, Latin-1 through Buffer's (TextDecoder would read "latin1" as Windows-1252).
 * A file that starts with a byte order mark is read by it whatever the map says: the mark is
 * unambiguous, and bk's own rejects files of such an import are written with one. A UTF-16 file's
 * bytes go to csv-parse as they are, which reads them by their mark as it does on the UTF-8 path.
 */
function decoderFor(encoding: 'windows-1252' | 'latin1'): Transform {
  let decode: ((chunk: Buffer) => string | Buffer) | undefined
  return new Transform({
    decodeStrings: true,
    readableObjectMode: false,
    transform(chunk: Buffer, _enc, done) {
      if (!decode) {
        const bom = bomEncoding(chunk)
        if (bom === 'utf-16le') decode = (c) => c
        else if (bom === 'utf-8') {
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

/** Whether an error is csv-parse's own (a record it cannot read), not a failure to read the file. */
export function isCsvError(error: {code?: string | undefined}): boolean {
  return Boolean(error.code?.startsWith('CSV_')) || error.code === 'INVALID_OPENING_QUOTE'
}

/**
 * The records of a parser, as many at a time as it holds: taken from the stream with `read()`,
 * they cost no promise each (an async iterator's is about a tenth of a dry run's time). A
 * parser's error is thrown once the records before it are taken.
 */
export async function* recordBatches(parser: Parser): AsyncGenerator<string[][]> {
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

/**
 * Resolves when the stream has records to read, has ended or has failed. A failure resolves too:
 * csv-parse pushes a chunk's records before the error it meets in that chunk, and they stay
 * readable once it is destroyed; recordBatches takes them, then throws the error.
 */
function readableOrEnd(stream: Readable): Promise<void> {
  return new Promise((resolve) => {
    const settle = () => {
      stream.off('readable', settle)
      stream.off('end', settle)
      stream.off('error', settle)
      stream.off('close', settle)
      resolve()
    }
    stream.on('readable', settle)
    stream.on('end', settle)
    stream.on('error', settle)
    // Destroyed without an error (closed early): nothing more will come.
    stream.on('close', settle)
  })
}
