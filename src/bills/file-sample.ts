/**
 * The first rows of an export, for `bk bills maps init`: its encoding and delimiter told from its
 * first bytes, then a bounded sample read with the import's own reader (reader.ts), so the rows
 * seen are the rows the import would read.
 */
import {open} from 'node:fs/promises'

import {parse} from 'csv-parse/sync'

import {InputError} from '../shared/errors.js'
import {unreadableBecause, unreadableHint} from '../files/file-errors.js'
import {bomEncoding, notCsv} from './csv-records.js'
import {openCsv} from './reader.js'
import type {Encoding} from './map-file.js'

/** How much of the file is read to tell its shape, and how many records are sampled. */
const SNIFF_BYTES = 64 * 1024
export const SAMPLE_ROWS = 500

export interface FileSample {
  file: string
  /** The encoding the file is read with: utf-8 for one with a byte order mark (the reader reads it by its mark). */
  encoding: Encoding
  /** The encoding the file's byte order mark names, which the import reads it in whatever a map says. */
  bom: 'utf-8' | 'utf-16le' | undefined
  /** No byte above 0x7f in the sniffed bytes: any single-byte encoding reads it alike. */
  ascii: boolean
  delimiter: string
  /** Records before the one the columns start on (a preamble, such as DATEV's header record). */
  preambleLines: number
  /** Every record read, the preamble included, without blank lines (at most SAMPLE_ROWS). */
  records: string[][]
  /** Whether the whole file fit in the sample. */
  complete: boolean
  /** Read with `"` as a quote; false for a file that quotes nothing (IIF), told by a `"` inside a cell. */
  quotes: boolean
}

const CANDIDATES = [',', ';', '\t'] as const

/**
 * Reads the start of `file`: its encoding, delimiter and preamble, then a sample of its records.
 * A file that does not parse with quotes (a `"` inside a cell, as IIF writes them) is read again
 * without; `quotes: false` asks for that reading from the start (a preset whose map says so).
 */
export async function sampleFile(file: string, quotes?: false): Promise<FileSample> {
  if (file === '-') throw new InputError('maps init needs a file: it reads the start of the file twice, stdin once')
  const head = await readHead(file)
  const refusal = notCsv(head)
  if (refusal) throw new InputError(`Cannot read ${file}: ${refusal}`, {hint: 'No starter map was written.'})
  const bom = bomEncoding(head)
  const ascii = head.every((b) => b < 0x80)
  const encoding: Encoding = bom || ascii || isUtf8(head) ? 'utf-8' : 'windows-1252'
  const text = new TextDecoder(bom ?? encoding).decode(head)
  // The last line of the sniffed bytes may be cut short: shape is told from the complete ones.
  const lines = text.split(/\r?\n/)
  const whole = head.length < SNIFF_BYTES ? lines : lines.slice(0, -1)
  const {delimiter, preambleLines} = shapeOf(whole.join('\n'))
  let read: {records: string[][]; complete: boolean}
  try {
    read = await readRecords(file, {delimiter, encoding, quote: quotes})
  } catch (error) {
    if (quotes === false) throw error
    // Not CSV with quotes: a file that quotes nothing reads whole without them, else the first error stands.
    read = await readRecords(file, {delimiter, encoding, quote: false}).catch(() => {
      throw error
    })
    quotes = false
  }
  if (read.records.length <= preambleLines)
    throw new InputError(`${file} is empty: expected a header row or rows of bills`)
  return {file, encoding, bom, ascii, delimiter, preambleLines, ...read, quotes: quotes ?? true}
}

async function readRecords(file: string, shape: {delimiter: string; encoding: Encoding; quote: false | undefined}) {
  const input = openCsv(file, {chunkBytes: 64 * 1024}, shape)
  const records: string[][] = []
  let complete = true
  try {
    read: for await (const batch of input.batches())
      for (const record of batch) {
        if (record.every((c) => c.trim() === '')) continue
        if (records.length === SAMPLE_ROWS) {
          complete = false
          break read
        }
        records.push(record)
      }
  } catch (error) {
    throw new InputError(`${file}: cannot be read as ${describe(shape.delimiter)} CSV: ${(error as Error).message}`)
  } finally {
    input.close()
  }
  return {records, complete}
}

export const describe = (delimiter: string) =>
  delimiter === '\t' ? 'tab-separated' : delimiter === ';' ? 'semicolon-separated' : 'comma-separated'

async function readHead(file: string): Promise<Buffer> {
  try {
    const handle = await open(file, 'r')
    try {
      const buffer = Buffer.alloc(SNIFF_BYTES)
      const {bytesRead} = await handle.read(buffer, 0, SNIFF_BYTES, 0)
      return buffer.subarray(0, bytesRead)
    } finally {
      await handle.close()
    }
  } catch (error) {
    throw new InputError(`Cannot read ${file}: ${unreadableBecause(error)}`, {hint: unreadableHint(file, error)})
  }
}

/** Valid UTF-8, allowing a character cut at the end of the sniffed bytes. */
function isUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', {fatal: true}).decode(bytes.subarray(0, Math.max(0, bytes.length - 3)))
    return true
  } catch {
    return false
  }
}

/**
 * The delimiter that splits most lines into the same number of cells (more than one), and the
 * lines before the first of them: a preamble whose width differs from the rows that follow.
 */
function shapeOf(text: string): {delimiter: string; preambleLines: number} {
  let best = {delimiter: ',', preambleLines: 0, score: -1}
  for (const delimiter of CANDIDATES) {
    let rows: string[][]
    try {
      rows = parse(text, {delimiter, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, bom: true})
    } catch {
      continue
    }
    rows = rows.filter((r) => r.some((c) => c.trim() !== ''))
    const counts = new Map<number, number>()
    for (const r of rows) counts.set(r.length, (counts.get(r.length) ?? 0) + 1)
    const [width, count] = [...counts].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0] ?? [1, 0]
    if (width < 2) continue
    const score = count * 1000 + width
    if (score > best.score) {
      const first = rows.findIndex((r) => r.length === width)
      best = {delimiter, preambleLines: Math.max(0, first), score}
    }
  }
  return {delimiter: best.delimiter, preambleLines: best.preambleLines}
}
