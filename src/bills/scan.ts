/**
 * One pass over an import's input: CSV records to checked bill drafts (through the map's
 * translator when there is one), each handed to the caller as it completes, with the reading
 * progress. Shared by the dry run and the import, so that both see the same bills.
 */
import {BkError, InputError} from '../shared/errors.js'
import {BillAssembler, formatRowError, type BillDraft, type RowError} from './assemble.js'
import {layoutFor} from './columns.js'
import type {Lookups} from './lookups.js'
import type {BillMap} from './map-file.js'
import {isCsvError} from './csv-records.js'
import {csvProblem, type CsvFailure, type CsvInput} from './reader.js'
import {LINES_PREFIX, type RowOrigin} from './record-structure.js'
import {ExportTranslator, readFirstRow} from './translate.js'
import {counted} from '../shared/counts.js'
import {codePoint} from '../shared/code-point.js'

export interface ImportProgress {
  rows: number
  bills: number
  created: number
  bytes: number
  size: number | undefined
  elapsedMs: number
}

export interface ScanOptions {
  file: string
  /** How to read an accounting package's export; undefined for bk's own format. */
  map?: BillMap | undefined
  lookups?: Lookups | undefined
  /** The business of the import, checked against a business_id column. */
  businessId?: string | undefined
  onProgress?: ((p: ImportProgress) => void) | undefined
}

export interface Scanned {
  rows: number
  /** Whether the input was read to its end (not when the run stopped, or a CSV error ended it). */
  ended: boolean
  header: string[]
  /** The row the file could not be read past (a CSV error): nothing after it was read. */
  fatal?: RowError
  /** With `fatal`: the bill being read when it came (its rows so far; more may follow unread). */
  open?: BillDraft | undefined
  /** Each lookup's missing values. */
  missing?: Map<string, Set<string>>
}

/** A character a cell must not hold: C0 controls but tab and line breaks, DEL, C1 controls, and U+FFFD. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNREADABLE = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F\uFFFD]/
// eslint-disable-next-line no-control-regex -- as above
const CONTROL = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F]/g

/**
 * Why a C1 control (U+0080 to U+009F) is in a cell: no text holds one, but a single-byte file read
 * in the wrong encoding does (Latin-1 reads Windows-1252's `€` and curly quotes as C1 controls).
 */
function c1Reason(encoding: string | undefined): string {
  return encoding === 'latin1'
    ? 'was read as latin1 (--encoding), where bytes 0x80 to 0x9F are control characters; in Windows-1252 they are printable (€, curly quotes, dashes): the file is likely Windows-1252, pass --encoding windows-1252'
    : `was read as ${encoding ?? 'utf-8'}, which gives no printable character here: check the file's encoding (--encoding)`
}

/**
 * Why a cell holds U+FFFD. Read in a single-byte encoding, no byte becomes U+FFFD: the file was
 * read as UTF-8 all the same, by the UTF-8 byte order mark it starts with (which beats --encoding).
 */
function notUtf8Reason(encoding: string | undefined): string {
  return encoding === 'windows-1252' || encoding === 'latin1'
    ? `holds bytes that are not UTF-8 (shown as \uFFFD), though the file starts with UTF-8's byte order mark, which has bk read it as UTF-8 whatever --encoding says: the file mixes encodings. Save it again as UTF-8 ("CSV UTF-8" in Excel)`
    : 'holds bytes that are not UTF-8 (shown as \uFFFD): the file is in another encoding. Pass --encoding windows-1252 (or latin1) if that is how it was written (unless the file starts with a UTF-8 byte order mark, which beats --encoding), or save it as UTF-8 ("CSV UTF-8" in Excel)'
}

/**
 * A cell holding U+FFFD (the character reading puts in place of bytes that are not UTF-8: the file
 * was saved in another encoding, such as Windows-1252 by Excel's plain "CSV") or a control
 * character (a binary file, or a stray byte): importing it would send mangled text.
 */
function unreadableCell(
  record: string[],
  header: string[],
  line: number,
  encoding?: string,
  joined?: RowOrigin['lines'],
): RowError | undefined {
  for (let i = 0; i < record.length; i++) {
    const cell = record[i]!
    const m = UNREADABLE.exec(cell)
    if (!m) continue
    const c = m[0]
    const code = c.charCodeAt(0)
    const at = `${codePoint(c)} at position ${m.index + 1}`
    const message =
      code >= 0x80 && code <= 0x9f
        ? `holds the control character ${at}: it ${c1Reason(encoding)}`
        : c === '\uFFFD'
          ? notUtf8Reason(encoding)
          : `holds the control character ${at}: remove it (a cell holds text, tabs and line breaks only)`
    // Control characters are shown escaped: printed raw they could move the user's terminal cursor.
    const shown = (text: string) =>
      text.replace(CONTROL, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)
    const name = header[i]?.trim() || `column ${i + 1}`
    // A cell of a lines file is named by that file's row and its own header.
    const where =
      joined && i >= joined.from
        ? {file: joined.label, line: joined.record.line, column: name.slice(LINES_PREFIX.length + 1)}
        : {line, column: name}
    return {...where, column: shown(where.column), value: shown(cell), message}
  }
  return undefined
}

/** Reads the file once; calls onBill for each complete bill. Returns the count of the bills' rows. */
export async function scan(
  input: CsvInput,
  options: ScanOptions,
  onBill: (bill: BillDraft) => void | Promise<void>,
  shouldStop: () => boolean,
  onHeader?: (header: string[] | undefined) => void,
): Promise<Scanned> {
  const map = options.map
  let assembler: BillAssembler | undefined
  let translator: ExportTranslator | undefined
  let header: string[] = []
  // The header as the file names its columns (none before it is read, or when the map has none).
  let names: string[] | undefined
  let rows = 0
  // The lines before the header a map skips (`skip_lines:`), kept for the values it reads there.
  const preamble: string[][] = []
  try {
    for await (const records of input.batches())
      for (const record of records) {
        const line = input.advance(record)
        if (record.length === 1 && record[0] === '') continue
        if (map && preamble.length < map.skipLines) {
          preamble.push(record)
          continue
        }
        if (!assembler) {
          // The first record: a header, or (by the map) a data row or a row naming the fields to skip.
          const first = readFirstRow(map, record)
          const named = first.header !== undefined
          // The header is checked as rows are: a control character or a non-UTF-8 byte there is the
          // same mistake, and it would end up in every message and output file.
          const bad = named && !first.isData ? unreadableCell(record, record, line, map?.encoding) : undefined
          if (bad)
            throw new InputError(`${formatRowError(input.label, {...bad, column: `${bad.column} (the header)`})}`)
          names = first.header
          header = first.header ?? record.map((_, i) => `column ${i + 1}`)
          if (map) {
            translator = new ExportTranslator(
              first.header,
              record.length,
              map,
              options.lookups ?? new Map(),
              input.label,
              preamble,
            )
          }
          const layout = translator ? translator.layout : layoutFor(record, input.label)
          assembler = new BillAssembler(layout, {
            businessId: options.businessId,
            key: map?.key,
            negativeTotalCredit: map?.credit?.negativeTotal ? {skip: map.credits === 'skip'} : undefined,
            cellsSearched: translator === undefined,
          })
          onHeader?.(first.header)
          if (!first.isData) continue
        }
        const extra: RowError | undefined =
          record.length === header.length
            ? input.marked
              ? unreadableCell(record, header, line, map?.encoding, input.origin?.()?.lines)
              : undefined
            : {
                line,
                message: `has ${counted(record.length, 'column')}, but ${map?.header === false ? 'the first row' : 'the header (line 1)'} has ${header.length}: check for an unquoted ${map?.delimiter === ';' ? 'semicolon' : 'comma'}, or a missing or extra separator`,
              }
        let done: BillDraft | undefined
        if (translator) {
          const origin = input.origin?.()
          const t = translator.translate(record, line, origin)
          // A row the map drops (`skip:`) is no row of a bill: not counted, as the import counts.
          if (t.skipped) continue
          if (origin) t.row.origin = origin
          done = assembler.push(t.row, extra, t.errors)
        } else done = assembler.push({line, cells: record}, extra)
        rows++
        if (done) {
          const r = onBill(done)
          if (r) await r
          if (shouldStop()) return {rows, header, ended: false}
        }
      }
  } catch (error) {
    if (error instanceof BkError) throw error
    const e = error as CsvFailure
    if (!isCsvError(e)) throw error
    // Every record before the failure was read: the next line is the one its record starts on.
    return {rows, header, ended: false, fatal: csvProblem(e, input.nextLine, names), open: assembler?.finish()}
  } finally {
    input.close()
  }
  if (!assembler) throw new InputError(`${input.label} is empty: expected a header row and at least one bill`)
  const last = assembler.finish()
  if (last) {
    const r = onBill(last)
    if (r) await r
  }
  return {rows, header, ended: true, ...(translator ? {missing: translator.missing} : {})}
}

/**
 * A bill set aside for a documented reason (a credit note with `credits: skip`, a voided status):
 * not a fault of the file, whatever else is wrong with it. It goes to the rejects file with every
 * reason, so that the user sees all of them at once; it is never sent either way.
 */
export function isSetAside(bill: BillDraft): boolean {
  return bill.errors.some((e) => e.skip)
}

/** The CSV shape to open the input with. */
export function shapeOf(options: ScanOptions) {
  return options.map ? {delimiter: options.map.delimiter, encoding: options.map.encoding} : {}
}

export function progressTimer(
  input: CsvInput,
  options: ScanOptions,
  counts: () => {rows: number; bills: number; created: number},
): () => void {
  if (!options.onProgress) return () => {}
  const started = performance.now()
  const tick = () =>
    options.onProgress?.({
      ...counts(),
      bytes: input.bytesRead(),
      size: input.size,
      elapsedMs: performance.now() - started,
    })
  const timer = setInterval(tick, 200)
  timer.unref()
  return () => {
    clearInterval(timer)
    tick()
  }
}
