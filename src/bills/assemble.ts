/**
 * Rows to bills: checks each row, groups contiguous rows with the same bill number into one bill,
 * and writes the bill's request body as JSON text while its rows arrive. Every problem is a
 * RowError naming the physical line, the column, the value and what was expected. A bill with any
 * error is never sent.
 *
 * Each cell is checked once, with the service's own rules for its value (src/shared/bill-rules.ts,
 * the emulator's too), and converted once, into the text the body holds: no object tree is built
 * and then walked by the rules or stringified (docs/performance.md, "Bill import: where a row
 * goes"). test/bills/dry-run-parity.test.ts proves the emulator refuses exactly what this refuses.
 */
import {allocationTotalProblem, currencyProblem, idProblem, metadataProblem, textProblem} from '../shared/bill-rules.js'
import {parseIsoDatetime, toUtcText, yearProblem} from '../shared/datetime.js'
import {parseJsonTree, type JsonNode} from '../shared/exact-json.js'
import {DECIMAL_TEXT, Decimal, type Money} from '../shared/money.js'
import {amountLiteral, amountProblem} from './amount.js'
import {BILL_COLUMNS, type BillColumn, type Column, type ColumnLayout} from './columns.js'
import {DEFAULT_KEY, describeKey, KEY_SEPARATOR} from './bill-key.js'
import {NumberIndex} from './number-index.js'
import {LINES_PREFIX, type RowOrigin} from './record-structure.js'

export interface SourceRow {
  /** Physical line (1-based) where the record starts. */
  line: number
  /** In bk's column layout (translated from an export's, when a map is used). */
  cells: string[]
  /** The record as the file has it, when translated: what the rejects file gets. */
  raw?: string[] | undefined
  /** bk columns translation already found wrong (and said so): not checked again. */
  failed?: ReadonlySet<string> | undefined
  /** The row continues the bill before it, whatever its key says (a blank, filled-down number). */
  continuation?: boolean | undefined
  /** A flattened row (packed cells, record types, a lines file): the rows as read, for the side files. */
  origin?: RowOrigin | undefined
}

export interface RowError {
  /** The file the line is in, when not the input (a value of the lines file). */
  file?: string | undefined
  line: number
  /** The column as the file names it (and ours when the map renamed it). */
  column?: string | undefined
  value?: string | undefined
  /** The cell as the file has it, when a map read it as `value` (BillAssembler.rowError). */
  written?: string | undefined
  message: string
  /** Keeps the bill from being sent without being a fault of the file (a credit note the map skips). */
  skip?: boolean | undefined
}

export interface BillDraft {
  number: string
  /** The bill key's values joined by U+001F (vendor and number by default): the bill's identity in the journal. */
  key: string
  rows: SourceRow[]
  errors: RowError[]
  /** The bill as the request body holds it, JSON text; '' for a bill with errors. */
  json: string
}

export interface AssembleOptions {
  /** The business the import goes to; a business_id cell must name it. */
  businessId?: string | undefined
  /** The columns whose values identify a bill (default vendor_id and number). */
  key?: readonly BillColumn[] | undefined
  /** A bill whose lines add up to less than zero is a credit note (an export that writes them so). */
  negativeTotalCredit?: {skip: boolean} | undefined
  /**
   * The cells are the records as read, every one already searched for control characters (reader.ts,
   * scan.ts): the text rules cannot find one, so they are not run again. Not so through a map,
   * whose lookups, defaults and expressions make values of their own.
   */
  cellsSearched?: boolean | undefined
}

/** A tag column of the bill's first row: a value, or allocations with their amounts' JSON literals. */
interface TagValue {
  field: string
  text: string
  allocations?: Array<{value: string; literal: string}> | undefined
}

/** What the open bill's body holds so far, and the rules it breaks, until the bill is complete. */
interface OpenBody {
  /** `{"number":…` up to and without its tags and lines. */
  head: string
  /** The lines' JSON objects, comma-separated. */
  lines: string
  /** The lines' amounts as JSON literals, kept only when a tag allocates (its total is theirs). */
  amounts: string[] | undefined
  tags: TagValue[]
  /** The bill-level and line-level rules broken, said only when nothing else is wrong with the bill. */
  broken: RowError[]
}

/** A credit note found: an error, or with `credits: skip` a bill set aside (never sent as a bill). */
export function creditNote(line: number, column: string, value: string, skip: boolean): RowError {
  return {
    line,
    column,
    value,
    message: skip
      ? 'is a credit note: bk cannot create vendor credits through the API; enter it in the service'
      : 'marks a credit note: bk cannot create vendor credits through the API, and sending it as a bill would post it the wrong way. Remove its rows, or pass --credits skip (credits: skip in the map) to set credit notes aside in the rejects file',
    ...(skip ? {skip: true} : {}),
  }
}

/** An ISO 8601 date or UTC datetime as the API takes it (an offset converted to UTC), or the reason it is not one. */
function parseDatetime(text: string): {ok: true; value: string} | {ok: false; reason: string} {
  const expected = 'expected an ISO 8601 date or datetime such as 2026-01-31 or 2026-01-31T09:30:00Z'
  const parsed = parseIsoDatetime(text)
  if (!parsed.ok) {
    const reason = {
      syntax: `is not ${expected.slice(9)}`,
      date: `is not a real date: ${expected}`,
      time: `is not a real time of day: ${expected}`,
    }[parsed.problem]
    return {ok: false, reason}
  }
  if (parsed.value.time !== undefined && parsed.value.offsetMinutes === undefined) {
    return {ok: false, reason: 'has no time zone: add Z for UTC (2026-01-31T09:30:00Z) or an offset (+01:00)'}
  }
  const implausible = yearProblem(Number(parsed.value.date.slice(0, 4)), 'a bill')
  if (implausible) return {ok: false, reason: implausible}
  return {ok: true, value: toUtcText(parsed.value)}
}

/**
 * A metadata cell as a JSON object, read as written: what the service's rules refuse in metadata
 * (src/shared/bill-rules.ts: a duplicate key, a number a double cannot hold) is refused here with the
 * cell's own row and column; `__proto__` is a key like any other.
 */
function jsonObject(text: string): {ok: true; json: string} | {ok: false; reason: string} {
  let tree: JsonNode
  try {
    tree = parseJsonTree(text, {nonFinite: false})
  } catch (error) {
    return {
      ok: false,
      reason: `is not valid JSON (${(error as Error).message}): expected a JSON object such as {"key": "value"}`,
    }
  }
  const problem = metadataProblem(tree)
  if (problem) return {ok: false, reason: problem[1]}
  return {ok: true, json: JSON.stringify(plainValue(tree))}
}

/** A tree the rules accepted as plain values (every number fits a double exactly). */
function plainValue(node: JsonNode): unknown {
  switch (node.kind) {
    case 'string':
      return node.value
    case 'literal':
      return node.text === 'null' ? null : node.text === 'true'
    case 'number':
      return Number(node.literal)
    case 'array':
      return node.items.map(plainValue)
    case 'object': {
      const o: Record<string, unknown> = {}
      for (const [k, v] of node.members)
        Object.defineProperty(o, k, {value: plainValue(v), enumerable: true, writable: true, configurable: true})
      return o
    }
  }
}

export class BillAssembler {
  private current: BillDraft | undefined
  private body: OpenBody = {head: '', lines: '', amounts: undefined, tags: [], broken: []}
  private readonly seen = new NumberIndex(4096)
  private readonly at: Record<Column, number>
  private readonly billCols: Array<{name: BillColumn; index: number}>
  private readonly labels: Array<string | undefined>
  /** Each column as a lines file's header names it (`lines.Amount` is its `Amount`). */
  private readonly linesLabels: Array<string | undefined>
  /** Exports repeat the same few dates: the last answer per column is kept, with its body text. */
  private readonly dateCache = {
    issued_at: {text: '', result: parseDatetime(''), json: ''},
    due_at: {text: '', result: parseDatetime(''), json: ''},
  }

  private readonly keyColumns: readonly BillColumn[]

  constructor(
    private readonly layout: ColumnLayout,
    private readonly options: AssembleOptions = {},
  ) {
    this.keyColumns = options.key ?? DEFAULT_KEY
    this.at = layout.index
    this.billCols = BILL_COLUMNS.map((name) => ({name, index: layout.index[name]})).filter((c) => c.index !== -1)
    const named = (label: string, i: number) => {
      const ours = layout.names[i]
      return ours === undefined ? undefined : columnLabel(label, ours)
    }
    this.labels = layout.header.map((h, i) => named(h.trim(), i))
    const prefix = `${LINES_PREFIX}.`
    this.linesLabels = layout.header.map((h, i) =>
      named(h.trim().startsWith(prefix) ? h.trim().slice(prefix.length) : h.trim(), i),
    )
  }

  /**
   * Where a row's value of `column` was read, for its error: a value of a lines file (read from
   * its columns, in whole or in part) is that file's row, under its own header; any other, the row.
   */
  private where(row: SourceRow, column: Column | `tag:${string}`): Pick<RowError, 'file' | 'line' | 'column'> {
    const joined = row.origin?.lines
    const i = this.indexOf(column)
    if (joined && i >= 0 && this.layout.sources?.[i]?.some((source) => source >= joined.from))
      return {file: joined.label, line: joined.record.line, column: this.linesLabels[i] ?? column}
    return {line: row.line, column: this.label(column)}
  }

  /**
   * A row's error about `value` of `column`. When a map read the value from one cell written
   * otherwise ("1,234.56" read as 1234.56, a name looked up as an id), the error also carries the
   * cell as written: that is what the user finds in the file.
   */
  private rowError(row: SourceRow, column: Column | `tag:${string}`, value: string, message: string): RowError {
    const error: RowError = {...this.where(row, column), value, message}
    // A flattened row's cells are not the file's columns one for one: only a plain row is traced.
    if (!row.raw || row.origin) return error
    const sources = this.layout.sources?.[this.indexOf(column)]
    const written = sources?.length === 1 ? row.raw[sources[0]!]?.trim() : undefined
    if (written !== undefined && written !== value.trim()) error.written = written
    return error
  }

  /** A bill key for people: `B-1 of ven_abc`, or the key's values joined. */
  describeKey(key: string): string {
    return describeKey(key, this.keyColumns)
  }

  /** How the file names our column, for messages. */
  label(column: Column | `tag:${string}`): string {
    const i = this.indexOf(column)
    return (i >= 0 ? this.labels[i] : undefined) ?? column
  }

  /** Where `column` sits in a row's cells, or -1 (a tag the layout lacks). */
  private indexOf(column: Column | `tag:${string}`): number {
    return column.startsWith('tag:')
      ? (this.layout.tags.find((t) => `tag:${t.field}` === column)?.index ?? -1)
      : this.at[column as Column]
  }

  /** A bill-level value as the bill uses it: trimmed, but for the description, sent as written. */
  private billValue(cells: string[], column: BillColumn): string {
    const value = this.cell(cells, column)
    return column === 'description' ? value : value.trim()
  }

  private cell(cells: string[], column: Column): string {
    const i = this.at[column]
    const v = i >= 0 ? (cells[i] ?? '') : ''
    if (v === '') return this.layout.defaults[column] ?? ''
    return v
  }

  /** The bill key of a row: the key columns' values, as the bill uses them. */
  private keyOf(cells: string[]): string {
    if (this.keyColumns.length === 2 && this.keyColumns[0] === 'vendor_id' && this.keyColumns[1] === 'number')
      return this.billValue(cells, 'vendor_id') + KEY_SEPARATOR + this.billValue(cells, 'number')
    return this.keyColumns.map((c) => this.billValue(cells, c)).join(KEY_SEPARATOR)
  }

  /**
   * Adds one row; returns the previous bill when this row starts a new one. `extra` is an error
   * found before the cells were read (the wrong number of columns). `problems` are errors found in
   * translating the row from an export; they go to the bill the row belongs to.
   */
  push(row: SourceRow, extra?: RowError, problems?: readonly RowError[]): BillDraft | undefined {
    const number = this.billValue(row.cells, 'number')
    const key = this.keyOf(row.cells)
    const cur = this.current
    if (cur !== undefined && ((number !== '' && key === cur.key) || row.continuation)) {
      // A row with the wrong number of columns: its cells cannot be trusted, so only that is said.
      if (extra) {
        cur.rows.push(row)
        cur.errors.push(extra)
      } else {
        this.continueBill(cur, row)
        if (problems?.length) cur.errors.push(...problems)
      }
      return undefined
    }
    if (cur) this.complete(cur)
    if (extra) {
      if (number !== '') this.seen.addOrGet(key, row.line)
      this.current = {number, key, rows: [row], errors: [extra], json: ''}
    } else {
      this.current = this.startBill(row, number, key)
      if (problems?.length) this.current.errors.push(...problems)
    }
    return cur
  }

  /** The last bill of the file. */
  finish(): BillDraft | undefined {
    const cur = this.current
    this.current = undefined
    if (cur) this.complete(cur)
    return cur
  }

  /**
   * Called by push on the bill it returns, and by finish: the checks that need every line; then,
   * when nothing else is wrong, the service's rules its values broke (src/shared/bill-rules.ts, in
   * the emulator's order), and the body's text finished.
   */
  private complete(bill: BillDraft): void {
    const credit = this.options.negativeTotalCredit
    // With no negative line the total cannot be negative: most bills need no arithmetic here.
    // A credit note is one whatever else is wrong with it (then set aside with every reason), as
    // long as each amount was read.
    if (credit && bill.rows.some((row) => this.cell(row.cells, 'line_amount').trim().startsWith('-'))) {
      const total = this.linesTotal(bill)
      if (total?.lt(0)) {
        bill.errors.push(creditNote(bill.rows[0]!.line, this.label('line_amount'), total.toFixed(), credit.skip))
        return
      }
    }
    if (bill.errors.length > 0) return
    const body = this.body
    bill.errors.push(...body.broken, ...this.tagsBroken(bill, body))
    if (bill.errors.length > 0) return
    const tags = body.tags.length > 0 ? `,"tags":{${body.tags.map(tagJson).join(',')}}` : ''
    bill.json = `${body.head}${tags},"lines":[${body.lines}]}`
  }

  /**
   * The tags' rules, in the emulator's order (bill-rules.ts `tags`): a named field, a text without
   * control characters, allocations adding up to at most the bill total.
   */
  private tagsBroken(bill: BillDraft, body: OpenBody): RowError[] {
    const broken: RowError[] = []
    const {line} = bill.rows[0]!
    for (const {field, text, allocations} of body.tags) {
      const column = this.label(`tag:${field}`)
      const say = (message: string) => broken.push({line, column, value: text, message})
      if (field === '') say('names no tag field')
      if (!allocations) {
        const problem = this.textProblem(text)
        if (problem) say(problem)
        continue
      }
      allocations.forEach(({value}, i) => {
        const problem = this.textProblem(value)
        if (problem) say(`${problem} (tags.${field}[${i}].value)`)
      })
      const problem = allocationTotalProblem(
        allocations.map((a) => a.literal),
        body.amounts ?? [],
      )
      if (problem) say(problem)
    }
    return broken
  }

  /** The sum of the bill's line amounts, or undefined when one of them is not a number. */
  private linesTotal(bill: BillDraft): Money | undefined {
    let total = new Decimal(0)
    for (const row of bill.rows) {
      const text = this.cell(row.cells, 'line_amount').trim()
      if (row.failed?.has('line_amount') || !DECIMAL_TEXT.test(text)) return undefined
      total = total.plus(new Decimal(text))
    }
    return total
  }

  /** A text rule's finding, unless the cells were searched already (AssembleOptions.cellsSearched). */
  private textProblem(text: string): string | undefined {
    return this.options.cellsSearched ? undefined : textProblem(text)
  }

  private startBill(row: SourceRow, number: string, key: string): BillDraft {
    const errors: RowError[] = []
    const {cells, line} = row
    const failed = row.failed
    const bill: BillDraft = {number, key, rows: [row], errors, json: ''}
    const body: OpenBody = {head: '', lines: '', amounts: undefined, tags: [], broken: []}
    this.body = body
    const err = (column: Column | `tag:${string}`, value: string, message: string) =>
      errors.push(this.rowError(row, column, value, message))
    // A rule of the service's a value breaks: said only when nothing else is wrong (bill-rules.ts, in its order).
    const broken = (column: Column, message: string) =>
      body.broken.push(this.rowError(row, column, this.cell(cells, column), message))
    if (number === '')
      err(
        'number',
        '',
        row.raw
          ? 'is empty: expected the bill number (a continuation row that leaves it blank? list the bill columns it leaves blank under fill_down: in the map)'
          : 'is empty: expected the bill number',
      )
    else {
      const first = this.seen.addOrGet(key, line)
      if (first !== 0) {
        errors.push({
          line,
          column: this.label('number'),
          value: number,
          message: `reappears after another bill began: bill ${this.describeKey(key)} started at line ${first}; the rows of a bill must be contiguous`,
        })
      }
      const np = this.textProblem(number)
      if (np) broken('number', np)
    }
    // Ids, currencies and dates as accepted below need no escaping: their characters are plain.
    let head = `{"number":${JSON.stringify(number)}`
    const vendor = this.billValue(cells, 'vendor_id')
    const vp = failed?.has('vendor_id') ? undefined : idProblem(vendor, 'ven_')
    if (vp) err('vendor_id', vendor, vp)
    else head += `,"vendor_id":"${vendor}"`
    const business = this.billValue(cells, 'business_id')
    if (business !== '' && !failed?.has('business_id')) {
      const bp = idProblem(business, 'biz_')
      if (bp) err('business_id', business, bp)
      else if (this.options.businessId && business !== this.options.businessId) {
        err(
          'business_id',
          business,
          `is not the business of this import (${this.options.businessId}); import each business's bills with its own --business`,
        )
      } else head += `,"business_id":"${business}"`
    }
    const description = this.billValue(cells, 'description')
    if (description !== '') {
      head += `,"description":${JSON.stringify(description)}`
      const dp = this.textProblem(description)
      if (dp) broken('description', dp)
    }
    for (const column of ['issued_at', 'due_at'] as const) {
      const text = this.billValue(cells, column)
      if (text === '' || failed?.has(column)) continue
      const cache = this.dateCache[column]
      if (cache.text !== text) {
        cache.text = text
        cache.result = parseDatetime(text)
        cache.json = cache.result.ok ? `,"${column}":"${cache.result.value}"` : ''
      }
      if (cache.result.ok) head += cache.json
      else err(column, text, cache.result.reason)
    }
    const currency = this.billValue(cells, 'currency')
    if (currency !== '' && !failed?.has('currency')) {
      const cp = currencyProblem(currency)
      if (cp) err('currency', currency, cp)
      else head += `,"currency":"${currency}"`
    }
    const metadata = this.billValue(cells, 'metadata')
    if (metadata !== '') {
      const r = jsonObject(metadata)
      if (r.ok) head += `,"metadata_":${r.json}`
      else err('metadata', metadata, r.reason)
    }
    body.head = head
    this.readTags(cells, body, err)
    this.addLine(bill, row)
    return bill
  }

  /** The tag columns of a bill's first row: a value, or allocations `value=amount;value=amount`. */
  private readTags(
    cells: string[],
    body: OpenBody,
    err: (column: `tag:${string}`, value: string, message: string) => void,
  ): void {
    for (const {field, index} of this.layout.tags) {
      const text = (cells[index] ?? '').trim()
      if (text === '') continue
      const column = `tag:${field}` as const
      if (!text.includes('=')) {
        body.tags.push({field, text})
        continue
      }
      const allocations: Array<{value: string; literal: string}> = []
      let bad = false
      for (const part of text.split(';')) {
        const piece = part.trim()
        if (piece === '') continue
        const eq = piece.lastIndexOf('=')
        const value = piece.slice(0, eq).trim()
        const amount = piece.slice(eq + 1).trim()
        if (eq === -1 || value === '') {
          err(
            column,
            text,
            `has an allocation "${piece}" without a value: expected value=amount;value=amount, such as engineering=60.00;sales=40.00`,
          )
          bad = true
          continue
        }
        // Split at the last "=", "a=b=1" would send the value "a=b": the cell is ambiguous.
        if (piece.indexOf('=') !== eq) {
          err(
            column,
            text,
            `has an allocation "${piece}" with more than one "=": a tag value cannot contain "=" or ";"`,
          )
          bad = true
          continue
        }
        if (allocations.some((a) => a.value === value)) {
          err(column, text, `allocates to "${value}" twice: give each value once, with its whole amount`)
          bad = true
          continue
        }
        const ap = amountProblem(amount, {nonNegative: true})
        if (ap) {
          err(column, text, `allocation "${piece}": amount "${amount}" ${ap}`)
          bad = true
          continue
        }
        allocations.push({value, literal: amountLiteral(amount)})
      }
      if (bad) continue
      body.tags.push({field, text, allocations})
      body.amounts ??= []
    }
  }

  private continueBill(bill: BillDraft, row: SourceRow): void {
    bill.rows.push(row)
    const first = bill.rows[0]!
    for (const {name, index} of this.billCols) {
      if (first.cells[index] === row.cells[index]) continue
      if (this.billValue(first.cells, name) !== this.billValue(row.cells, name)) {
        const a = this.cell(first.cells, name)
        const b = this.cell(row.cells, name)
        bill.errors.push(
          this.rowError(
            row,
            name,
            b,
            `differs from line ${first.line} ("${a}") of the same bill ${bill.number}: the bill-level columns must be the same on every row of a bill`,
          ),
        )
      }
    }
    for (const {field, index} of this.layout.tags) {
      const a = first.cells[index] ?? ''
      const b = row.cells[index] ?? ''
      if (a.trim() !== b.trim()) {
        bill.errors.push({
          line: row.line,
          column: this.label(`tag:${field}`),
          value: b,
          message: `differs from line ${first.line} ("${a}") of the same bill ${bill.number}: tags apply to the whole bill and must be the same on every row`,
        })
      }
    }
    this.addLine(bill, row)
  }

  private addLine(bill: BillDraft, row: SourceRow): void {
    const {cells} = row
    const err = (column: Column, value: string, message: string) =>
      bill.errors.push(this.rowError(row, column, value, message))
    const amount = this.cell(cells, 'line_amount').trim()
    const ap = row.failed?.has('line_amount') ? undefined : amountProblem(amount)
    const ledger = this.cell(cells, 'line_ledger_id').trim()
    const lp = row.failed?.has('line_ledger_id') ? undefined : idProblem(ledger, 'ldg_')
    if (ap) err('line_amount', amount, ap)
    if (lp) err('line_ledger_id', ledger, lp)
    let metadata: string | undefined
    const metaText = this.cell(cells, 'line_metadata').trim()
    if (metaText !== '') {
      const r = jsonObject(metaText)
      if (r.ok) metadata = r.json
      else err('line_metadata', metaText, r.reason)
    }
    if (bill.errors.length > 0) return
    const body = this.body
    const literal = amountLiteral(amount)
    body.amounts?.push(literal)
    let json = `{"amount":${literal},"ledger_id":"${ledger}"`
    const description = this.cell(cells, 'line_description')
    if (description !== '') {
      json += `,"description":${JSON.stringify(description)}`
      const dp = this.textProblem(description)
      if (dp) body.broken.push(this.rowError(row, 'line_description', description, dp))
    }
    if (metadata !== undefined) json += `,"metadata_":${metadata}`
    body.lines += body.lines === '' ? `${json}}` : `,${json}}`
  }
}

/** A tag's member of the body's `tags` object: its value, or its allocations. */
function tagJson({field, text, allocations}: TagValue): string {
  const value = allocations
    ? `[${allocations.map((a) => `{"value":${JSON.stringify(a.value)},"amount":${a.literal}}`).join(',')}]`
    : JSON.stringify(text)
  return `${JSON.stringify(field)}:${value}`
}

/** A cell of a file without a header row, named by its position. */
const POSITIONAL = /^column \d+(?: |$)/

/** A column as messages name it: its header, with the field it feeds when that is another name. */
export function columnLabel(label: string, field: string): string {
  if (label === field) return label
  // "column 5", a headerless file's name for a cell, needs no quotes.
  return POSITIONAL.test(label) ? `${label} (${field})` : `"${label}" (${field})`
}

/** One line of an error for people: `bills.csv:12: column line_amount: "12,50" is not …`. */
export function formatRowError(file: string, e: RowError): string {
  const quoted = (text: string) => `"${text.length > 80 ? text.slice(0, 77) + '...' : text}"`
  const value =
    e.written !== undefined
      ? `${quoted(e.written)} (read as ${quoted(e.value ?? '')}) `
      : e.value === undefined || e.value === ''
        ? ''
        : `${quoted(e.value)} `
  // A file without a header row names its cells by position: "column 5" already says column.
  const column = !e.column ? '' : POSITIONAL.test(e.column) ? `${e.column}: ` : `column ${e.column}: `
  return `${e.file ?? file}:${e.line}: ${column}${value}${e.message}`
}
