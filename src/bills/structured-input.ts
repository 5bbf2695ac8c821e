/**
 * The input of an import whose map reads lines other than one row each (record-structure.ts):
 * the file (and the lines file) read whole, its structure checked, and then served to the scan
 * as one row per bill line in one header, exactly as a plain export would be. A structural
 * mismatch anywhere (packed cells of different counts, a line without its bill, a bill without
 * lines) stops the import before anything is sent. A map without these keys gets the file as it
 * streams: none of this runs.
 */
import {InputError} from '../shared/errors.js'
import {formatRowError} from './assemble.js'
import {headerKey} from './columns.js'
import {isCsvError} from './csv-records.js'
import {checkDelimiter} from './delimiter-check.js'
import {joinLinesFile} from './lines-file.js'
import type {BillMap} from './map-file.js'
import {numberedLines, unpackLines} from './packed-lines.js'
import {openCsv, csvProblem, type CsvFailure, type CsvInput, type Parsing} from './reader.js'
import {hasStructure, type FlatRow, type Flattened, type ReadRecord, type RowOrigin} from './record-structure.js'
import {joinRecordTypes} from './record-types.js'

/** Opens the import's input: as it streams, or (a map with a structure) read whole and flattened. */
export async function openInput(
  file: string,
  parsing: Parsing,
  map: BillMap | undefined,
  shape: {delimiter?: string; encoding?: BillMap['encoding']},
): Promise<CsvInput> {
  if (map) await checkDelimiter(file, {...map, delimiter: shape.delimiter ?? map.delimiter})
  const input = openCsv(file, parsing, {...shape, quote: map?.quotes === false ? false : undefined})
  if (!map || !hasStructure(map)) return input
  try {
    const records = await readWhole(input, map.header ? map.skipLines : undefined)
    const preamble = records.splice(0, Math.min(map.skipLines, records.length))
    const flat = await flatten(input.label, records, map)
    guardMergedBills(input.label, flat, map)
    return served(input, [...preamble, flat.header, ...flat.bills.flat()], flat)
  } catch (error) {
    input.close()
    throw error
  }
}

async function flatten(label: string, records: ReadRecord[], map: BillMap): Promise<Flattened> {
  if (records.length === 0) throw new InputError(`${label} is empty: expected a header row and at least one bill`)
  if (map.packedLines) return unpackLines(label, records, map.packedLines, map.aliasOf)
  if (map.numberedLines) return numberedLines(label, records, map.numberedLines)
  if (map.recordTypes) return joinRecordTypes(label, records, map.recordTypes)
  const join = map.linesFile!
  if (!join.path)
    throw new InputError(`${map.source} reads the bill lines from a second file: pass it as --lines-file FILE`, {
      hint: `The map joins the two files on ${JSON.stringify(join.key)} (lines_file: in the map).`,
    })
  const lines = openCsv(join.path, undefined, {
    delimiter: map.delimiter,
    encoding: map.encoding,
    quote: map.quotes ? undefined : false,
  })
  let lineRecords: ReadRecord[]
  try {
    lineRecords = await readWhole(lines, 0)
  } finally {
    lines.close()
  }
  return joinLinesFile({label, records}, {label: lines.label, records: lineRecords}, join, map.aliasOf)
}

/**
 * Every record of a file with its line; a CSV error names the line its record starts on, and its
 * column by the header, the record at `headerAt` (undefined: the file has none).
 */
export async function readWhole(input: CsvInput, headerAt?: number): Promise<ReadRecord[]> {
  const records: ReadRecord[] = []
  try {
    for await (const batch of input.batches())
      for (const cells of batch) {
        const line = input.advance(cells)
        if (cells.length === 1 && cells[0] === '') continue
        records.push({line, cells})
      }
  } catch (error) {
    if (error instanceof InputError) throw error
    const e = error as CsvFailure
    if (!isCsvError(e)) throw error
    // As in the scan: every record before the failure was read, so the next line is its record's.
    const header = headerAt === undefined ? undefined : records[headerAt]?.cells
    throw new InputError(formatRowError(input.label, csvProblem(e, input.nextLine, header)), {
      hint: 'Nothing was sent: the file is read whole before any bill is sent. Correct that line (or export the file again), then run the same command.',
    })
  }
  return records
}

/**
 * Each bill of these layouts is its own unit (a row, a transaction, an external ID), but the scan
 * groups contiguous rows by the bill key: two bills in a row under one vendor and number would
 * silently become one. Refused, naming both.
 */
function guardMergedBills(label: string, flat: Flattened, map: BillMap): void {
  const keyTargets = new Set<string>(map.key)
  const at = flat.header.cells.flatMap((h, i) => {
    const target = map.columns.get(headerKey(h))
    return target && keyTargets.has(target) ? [i] : []
  })
  if (at.length === 0) return
  const valuesOf = (r: ReadRecord) => at.map((i) => (r.cells[i] ?? '').trim())
  for (let b = 1; b < flat.bills.length; b++) {
    const before = flat.bills[b - 1]![0]!
    const now = flat.bills[b]![0]!
    const [was, is] = [valuesOf(before), valuesOf(now)]
    if (is.every((v) => v === '') || was.some((v, i) => v !== is[i])) continue
    const values = at.map((i) => `${flat.header.cells[i]} ${JSON.stringify(now.cells[i] ?? '')}`).join(', ')
    throw new InputError(
      `${label}:${now.line}: a second bill with ${values}, right after the bill at line ${before.line}: bk would read the two as one bill`,
      {hint: 'Give each bill its own number (a vendor issues a number once), or import them separately.'},
    )
  }
}

/**
 * The flattened rows as a CsvInput: the scan reads them as it reads a file, each at its own line,
 * and asks where the current one was read (its bill's rows as read, its lines file row).
 */
function served(input: CsvInput, records: FlatRow[], flat: Flattened): CsvInput {
  let current = 1
  let origin: RowOrigin | undefined
  // One row a batch: the scan asks where each came from before it takes the next.
  async function* batches(): AsyncGenerator<string[][]> {
    for (const r of records) {
      current = r.line
      origin = r.origin
      yield [r.cells]
    }
  }
  return {
    label: input.label,
    batches,
    size: input.size,
    bytesRead: input.bytesRead,
    get nextLine() {
      return current + 1
    },
    advance: () => current,
    // Rows rebuilt from several records: each is looked at for unreadable cells, as it comes.
    marked: true,
    close: () => input.close(),
    origin: () => origin,
    readHeader: flat.readHeader,
    linesHeader: flat.linesHeader,
  }
}
