/**
 * An accounting package's export, row by row, into bk's columns: the map's renames and drops,
 * blank continuation cells filled down, dates and numbers read in their declared formats, names
 * and codes looked up, line amounts computed (quantity × unit price, net + tax) and rounded, and
 * credit notes marked. The result is a row in bk's own column layout, which `BillAssembler` then
 * checks and groups as it does a file in bk's format; the export's cells are kept for the rejects
 * file. Every problem names the export's own column.
 */
import {InputError} from '../shared/errors.js'
import {Decimal, type Money} from '../shared/money.js'
import {shellWord} from '../output/shell-word.js'
import {columnLabel, creditNote, type RowError, type SourceRow} from './assemble.js'
import {
  canonicalColumn,
  headerKey,
  headerOf,
  ID_COLUMN_PREFIX,
  IGNORED_COLUMN,
  nearestName,
  noHeaderHint,
  KNOWN_COLUMNS,
  REQUIRED_COLUMNS,
  spellingsOfKey,
  type Column,
  type ColumnLayout,
} from './columns.js'
import {
  DATE_FORMATS,
  addDays,
  currencyOfMark,
  minorUnit,
  parseDateAs,
  parseNumberAs,
  roundMoney,
  type NumberFormat,
  type YearSource,
} from './formats.js'
import {columnsOf} from './expression/compile.js'
import {lookUp, type Lookup, type Lookups} from './lookups.js'
import {GUARD_COLUMNS, type BillMap, type SourceColumn, type Target} from './map-file.js'
import {LINES_PREFIX, type RowOrigin} from './record-structure.js'
import {
  checkComputeTargets,
  compileComputed,
  computedText,
  guardAmountColumns,
  keyedLookups,
  lookUpRow,
  RowFailure,
  type ComputedStep,
  type KeyedLookup,
} from './computed-columns.js'

const isPending = (lookup: Lookup, value: string) =>
  lookup.pending.has(lookup.caseInsensitive ? value.toLowerCase() : value)

/** A translated row, and the problems translation found (each names the export's column). */
export interface TranslatedRow {
  row: SourceRow
  errors: readonly RowError[]
  /** A row the map's `skip:` drops without a word. */
  skipped?: boolean
}

const AMOUNT_SOURCES: readonly string[] = ['quantity', 'unit_price', 'line_net', 'line_tax', 'line_gross']
/** Source columns read as a mark on the row (credit, status, tax inclusion), never sent. */
const ROW_MARKS: readonly string[] = ['credit_marker', 'status', 'amounts_are']
const QUANTITY_HEADER = /^\W*(qty|quantity)\b/i
const UNIT_PRICE_HEADER = /unit|price|rate/i

interface PlanStep {
  index: number
  target: Target
  kind: 'amount-source' | 'date' | 'amount' | 'lookup' | 'id' | 'text' | 'meta' | 'guard'
  at: number
  lookup?: Lookup | undefined
  prefix?: string | undefined
}

const NO_ERRORS: readonly RowError[] = []
const AMBIGUOUS_CONTINUATION =
  'is empty on a row that repeats the bill above: a line of that bill, or a bill without a number? Name the column that marks a line of the bill above (continuation: in the map), or give the bill a number'
/** A discount changes the amount and bk cannot apply one: the row is refused, never sent without it. */
const DISCOUNT_REFUSED =
  'is a discount, which changes the line amount and which bk cannot apply: enter this bill in the service, or fold the discount into the amount and empty the cell'
const CHARGE_REFUSED =
  'is a charge on the bill (freight), which changes its total and which bk cannot send: enter this bill in the service, or add the charge as a line of its own and empty the cell'

type AmountRecipe =
  | {kind: 'direct'}
  | {kind: 'product'; addTax: boolean; subtractTax: boolean}
  | {kind: 'column'; from: 'line_net' | 'line_gross'}
  | {kind: 'sum'; sign: 1 | -1; from: 'line_net' | 'line_gross'}

export class ExportTranslator {
  readonly layout: ColumnLayout
  /** The export's header row, for the rejects file; undefined for a file without one. */
  readonly outputHeader: string[] | undefined
  private readonly targets: Array<Target | null>
  private readonly labels: string[]
  /** Where each of bk's columns sits in a translated row (bk's columns first, then tags). */
  private readonly position = new Map<string, number>()
  private readonly width: number
  private readonly source = new Map<SourceColumn, number>()
  private readonly recipe: AmountRecipe | undefined
  private readonly creditIndex: number
  /** The column that says which rows are bill rows (`rows:` in the map), or -1. */
  private readonly rowsIndex: number
  /** The map's `status:` and `amounts_are:` columns of this file, -1 when the layout has none. */
  private readonly statusIndex: number
  private readonly amountsAreIndex: number
  private readonly untaxedIndex: number
  private readonly keySources: number[]
  private readonly numberSource: number
  /** Values missing from each lookup, once each (for --dry-run's list). */
  readonly missing = new Map<string, Set<string>>()
  private readonly fillSources: number[]
  private current: string[] | undefined
  private readonly numberFormat: NumberFormat
  /** The map's negative forms; undefined where they mean what the plain reading does (`-1` only). */
  private readonly negative: BillMap['negative']
  private readonly dateCache = new Map<string, ReturnType<typeof parseDateAs>>()
  /** What each mapped column of the file does, decided once. */
  private readonly plan: PlanStep[] = []
  /** Where bk's columns sit in a translated row. */
  private readonly at: Record<Column, number>
  /** This row's amount-source texts (reused: no allocation per row). */
  private readonly amountTexts = new Map<string, string>()
  /** The currency symbols and codes the current row's amount cells were written with. */
  private readonly marks: Array<{target: string; i: number; text: string; mark: string}> = []
  /** The target of the expression being run, for the marks of the cells it reads. */
  private computing = ''
  private readonly decimals = new Map<string, {text: string; value: Money}>()
  /** The map language's computed values, lookups keyed by several columns, and structure columns. */
  private computed: ComputedStep[] = []
  private keyed: KeyedLookup[] = []
  private readonly skipIndex: number
  private readonly continuationIndex: number
  /** Metadata keys (`line_metadata:KEY`, `metadata:KEY`) this map fills, per row. */
  private readonly lineMeta = new Map<string, string>()
  private readonly billMeta = new Map<string, string>()
  private readonly yearSource: YearSource | undefined
  /** The translated first row of the current bill, for its continuation rows. */
  private billRow: string[] | undefined

  /** `header`: the export's header row, or undefined when the map says it has none (`width` columns). */
  constructor(
    header: string[] | undefined,
    width: number,
    private readonly map: BillMap,
    private readonly lookups: Lookups,
    fileLabel: string,
    preamble: readonly string[][] = [],
  ) {
    this.outputHeader = header
    this.numberFormat = map.numberFormat ?? '1234.56'
    const plainMinus = map.negative?.length === 1 && map.negative[0] === '-1'
    this.negative = plainMinus && !map.currencySymbols && !map.negativeParentheses ? undefined : map.negative
    const cells = header ?? Array.from({length: width}, (_, i) => String(i + 1))
    this.labels = cells.map((c, i) => (header ? c.trim() : `column ${i + 1}`))
    this.targets = this.mapColumns(cells, header, fileLabel)
    KNOWN_COLUMNS.forEach((c, i) => this.position.set(c, i))
    const tags: ColumnLayout['tags'] = []
    const index = Object.fromEntries(KNOWN_COLUMNS.map((c) => [c, -1])) as Record<Column, number>
    const layoutLabels = KNOWN_COLUMNS.map((c) => c as string)
    const fedBy = new Map<string, number>()
    this.targets.forEach((t, i) => {
      if (t === null) return
      const earlier = fedBy.get(t)
      if (earlier !== undefined) {
        // One header written twice cannot be told apart by a map that names headers.
        if (header && headerKey(this.labels[earlier]!) === headerKey(this.labels[i]!))
          throw new InputError(
            `${fileLabel}:1: the header row names "${this.labels[i]}" twice (columns ${earlier + 1} and ${i + 1}), and both would be ${t}`,
            {
              hint: `A map names a header once, so it cannot tell the two apart: rename or remove one in the file, or let \`bk bills maps init ${shellWord(fileLabel)}\` write a map that reads the columns by position.`,
            },
          )
        throw new InputError(
          `${fileLabel}:1: columns "${this.labels[earlier]}" and "${this.labels[i]}" are both ${t}`,
          {
            hint: 'Map one of them to ~ (drop it).',
          },
        )
      }
      fedBy.set(t, i)
      if (t === 'discount' || /^(line_)?metadata:/.test(t) || (GUARD_COLUMNS as readonly string[]).includes(t)) return
      if ((AMOUNT_SOURCES as readonly string[]).includes(t) || ROW_MARKS.includes(t)) {
        this.source.set(t as SourceColumn, i)
        return
      }
      if (t.startsWith('tag:')) {
        const at = KNOWN_COLUMNS.length + tags.length
        tags.push({field: t.slice(4), index: at})
        this.position.set(t, at)
        layoutLabels.push(this.labels[i]!)
        return
      }
      index[t as Column] = this.position.get(t)!
      layoutLabels[this.position.get(t)!] = this.labels[i]!
    })
    checkComputeTargets(map, fedBy, this.labels)
    this.fedByLanguage(fedBy, index, tags, layoutLabels)
    this.width = KNOWN_COLUMNS.length + tags.length
    const computesAmount = map.compute.some((c) => c.target === 'line_amount')
    this.recipe = computesAmount ? undefined : this.amountRecipe(fileLabel, fedBy)
    if (this.recipe && this.recipe.kind !== 'direct') {
      index.line_amount = this.position.get('line_amount')!
      layoutLabels[index.line_amount] = this.recipeLabel()
    }
    const defaults = map.defaults
    const missing = REQUIRED_COLUMNS.filter((c) => index[c] === -1 && defaults[c] === undefined)
    if (missing.length > 0) {
      throw new InputError(`${fileLabel}:1: no column feeds ${missing.join(', ')} (${map.source})`, {
        hint: `Map a column of the file to ${missing.join(', ')}${missing.includes('line_amount') ? ' (or quantity and unit_price, or line_net/line_gross and line_tax)' : ''}.`,
      })
    }
    this.dueDaysTarget(index, layoutLabels, fedBy, fileLabel)
    this.creditIndex = this.creditColumn(cells, fileLabel)
    this.rowsIndex = map.rows ? this.columnNamed(cells, map.rows.column, 'rows.column', fileLabel) : -1
    this.statusIndex = this.source.get('status') ?? -1
    this.amountsAreIndex = this.source.get('amounts_are') ?? -1
    const untaxed = map.amountsAre?.untaxedWhen
    this.untaxedIndex =
      untaxed && this.amountsAreIndex !== -1
        ? this.columnNamed(cells, untaxed.column, 'amounts_are.untaxed_when.column', fileLabel)
        : -1
    this.keySources = map.key.map((c) => fedBy.get(c) ?? -1)
    this.numberSource = fedBy.get('number') ?? -1
    this.fillSources = map.fillDown.map((c) => {
      const i = fedBy.get(c)
      if (i === undefined)
        throw new InputError(`${map.source}: fill_down names ${c}, which no column of ${fileLabel} feeds`)
      return i
    })
    this.at = Object.fromEntries(KNOWN_COLUMNS.map((c) => [c, this.position.get(c)!])) as Record<Column, number>
    this.skipIndex = map.skip ? this.columnNamed(cells, map.skip.column, 'skip.column', fileLabel) : -1
    this.continuationIndex = map.continuation
      ? this.columnNamed(cells, map.continuation.column, 'continuation.column', fileLabel)
      : -1
    this.yearSource = this.yearOf(preamble, fileLabel)
    this.compileLanguage(cells, fileLabel, computesAmount)
    this.buildPlan(computesAmount)
    const names = layoutLabels.map((_, i) =>
      i < KNOWN_COLUMNS.length ? KNOWN_COLUMNS[i] : `tag:${tags[i - KNOWN_COLUMNS.length]!.field}`,
    )
    this.layout = {header: layoutLabels, index, tags, defaults, names, sources: this.sourcesOf(fedBy)}
  }

  /** The file's columns each of bk's columns is read from: mapped, computed, looked up, or the amount's recipe. */
  private sourcesOf(fedBy: ReadonlyMap<string, number>): number[][] {
    const out = Array.from({length: this.width}, (): number[] => [])
    const add = (target: string, columns: Iterable<number>) => {
      const at = this.position.get(/^(line_)?metadata:/.test(target) ? target.slice(0, target.indexOf(':')) : target)
      if (at !== undefined) out[at]!.push(...columns)
    }
    this.targets.forEach((t, i) => t !== null && add(t, [i]))
    for (const step of this.computed) add(step.target, step.reads)
    for (const step of this.keyed) add(step.target, step.columns)
    if (this.recipe && this.recipe.kind !== 'direct') add('line_amount', this.source.values())
    const issued = fedBy.get('issued_at')
    if (this.map.dueDays !== undefined && issued !== undefined) add('due_at', [issued])
    return out
  }

  /** Each column of the file to its target, or null when dropped; an unknown column is an error naming it. */
  private mapColumns(cells: string[], header: string[] | undefined, fileLabel: string): Array<Target | null> {
    const unknown: string[] = []
    const referenced = this.referencedColumns(cells, fileLabel)
    const columns = columnsForLayout(this.map, header)
    const targets = cells.map((cell, i) => {
      const name = cell.replace(/^\uFEFF/, '').trim()
      const mapped = columns.get(headerKey(name))
      if (mapped !== undefined) return mapped
      if (header && headerKey(name) === IGNORED_COLUMN) return null
      if (referenced.has(i) || this.map.ignoreAllOthers) return null
      const own = header ? (canonicalColumn(name) as Target | undefined) : undefined
      if (own) return own
      unknown.push(header ? (name === '' ? `(empty header in column ${i + 1})` : `"${name}"`) : `column ${i + 1}`)
      return null
    })
    if (unknown.length > 0) throw unknownColumns(unknown, header, this.map, fileLabel)
    return targets
  }

  /** What each mapped column of the file does, decided once. */
  private buildPlan(computesAmount: boolean): void {
    this.targets.forEach((target, index) => {
      if (target === null || ROW_MARKS.includes(target) || target === 'discount') return
      if (computesAmount && AMOUNT_SOURCES.includes(target)) return
      if (/^(line_)?metadata:/.test(target)) {
        this.plan.push({index, target, kind: 'meta', at: -1})
        return
      }
      const at = this.position.get(target) ?? -1
      const lookup = this.lookups.get(target)
      const prefix = ID_COLUMN_PREFIX[target]
      const kind: PlanStep['kind'] = AMOUNT_SOURCES.includes(target)
        ? 'amount-source'
        : (GUARD_COLUMNS as readonly string[]).includes(target)
          ? 'guard'
          : target === 'issued_at' || target === 'due_at'
            ? 'date'
            : target === 'line_amount'
              ? 'amount'
              : lookup
                ? 'lookup'
                : prefix
                  ? 'id'
                  : 'text'
      this.plan.push({index, target, kind, at, lookup, prefix})
    })
  }

  /** A column the map names, by header (any case) or, in a file without one, by position. */
  private columnIndex(cells: readonly string[], name: string): number | undefined {
    const lower = name.trim().toLowerCase()
    const want = headerOf(this.map.aliasOf, name)
    // A header's other spellings (aliases:) name it in expressions too.
    const i = this.outputHeader
      ? cells.findIndex((c) => c.trim().toLowerCase() === lower || headerOf(this.map.aliasOf, c) === want)
      : /^\d+$/.test(lower)
        ? Number(lower) - 1
        : -1
    return i >= 0 && i < cells.length ? i : undefined
  }

  /** Columns the map language reads (expressions, keyed lookups, skip and continuation): not unknown. */
  private referencedColumns(cells: readonly string[], fileLabel: string): Set<number> {
    const map = this.map
    const names = [
      ...map.compute.flatMap((c) => columnsOf(c.expression.ast).map((r) => r.name)),
      ...[...map.lookupKeys.values()].flat(),
      ...(map.skip ? [map.skip.column] : []),
      ...(map.continuation ? [map.continuation.column] : []),
      ...(map.rows ? [map.rows.column] : []),
      ...(map.amountsAre?.untaxedWhen ? [map.amountsAre.untaxedWhen.column] : []),
    ]
    const out = new Set<number>()
    for (const name of names) {
      const i = this.columnIndex(cells, name)
      if (i !== undefined) out.add(i)
    }
    for (const rule of map.compute) {
      for (const ref of columnsOf(rule.expression.ast)) {
        if (this.columnIndex(cells, ref.name) === undefined)
          throw new InputError(`${rule.expression.where(ref.at)}: [${ref.name}] is not a column of ${fileLabel}`, {
            hint: `The columns of ${fileLabel}: ${cells.map((c) => c.trim()).join(', ')}.`,
          })
      }
    }
    return out
  }

  /** bk's columns the map language feeds (computed, looked up by several columns, metadata keys): in the layout. */
  private fedByLanguage(
    fedBy: Map<string, number>,
    index: Record<Column, number>,
    tags: ColumnLayout['tags'],
    layoutLabels: string[],
  ): void {
    const map = this.map
    const fed = [
      ...map.compute.map((c) => ({target: c.target, label: `${c.target} = ${c.expression.text}`})),
      ...[...map.lookupKeys].map(([target, key]) => ({target, label: key.join(' + ')})),
    ]
    const targets = [...fed.map((f) => f.target), ...this.targets.filter((t): t is Target => t !== null)]
    for (const kind of ['line_metadata', 'metadata'] as const) {
      if (!targets.some((t) => t.startsWith(`${kind}:`))) continue
      const direct = fedBy.get(kind)
      if (direct !== undefined)
        throw new InputError(
          `${map.source}: "${this.labels[direct]}" feeds ${kind}, and the map also fills ${kind}:KEY: keep one`,
        )
      fed.push({target: kind, label: `${kind} (${kind}:KEY)`})
    }
    for (const {target, label} of fed) {
      if (/^(line_)?metadata:/.test(target)) continue
      if (target.startsWith('tag:') && !this.position.has(target)) {
        const at = KNOWN_COLUMNS.length + tags.length
        tags.push({field: target.slice(4), index: at})
        this.position.set(target, at)
        layoutLabels.push(label)
        continue
      }
      const at = this.position.get(target)!
      if (!target.startsWith('tag:')) index[target as Column] = at
      layoutLabels[at] = label
    }
  }

  /** Compiles the map's expressions and keyed lookups against this file's columns, and guards the amount. */
  private compileLanguage(cells: readonly string[], fileLabel: string, computesAmount: boolean): void {
    const map = this.map
    const context = {
      labels: this.labels,
      column: (name: string) => this.columnIndex(cells, name),
      // A currency mark in a cell an expression reads is checked as a plain amount column's is.
      number: (text: string, i: number) => {
        const n = this.number(text)
        if (n.mark) this.marks.push({target: this.computing, i, text, mark: n.mark})
        return n
      },
      date: (text: string) => this.date(text.trim()),
      currency: map.defaults.currency,
    }
    this.computed = compileComputed(map, context)
    this.keyed = keyedLookups(map, this.lookups, context, fileLabel)
    const amount = this.computed.find((c) => c.target === 'line_amount')
    // A unit price multiplied by a quantity is where a dropped discount or tax hides; a line total
    // (line_net, line_gross) is the package's own sum, already after them.
    const usedByRecipe = this.recipe?.kind === 'product'
    const reads = amount ? new Set(amount.reads) : usedByRecipe ? new Set<number>() : undefined
    if (usedByRecipe) this.source.forEach((i) => reads!.add(i))
    // A column another expression or a keyed lookup reads is used, not dropped.
    const used = new Set([...this.computed.flatMap((c) => c.reads), ...this.keyed.flatMap((k) => k.columns)])
    guardAmountColumns(map, this.targets, this.labels, this.outputHeader !== undefined, reads, used)
    if (!computesAmount && this.targets.includes('discount'))
      throw new InputError(`${map.source}: a column is declared as discount, but no compute: line_amount reads it`, {
        hint: 'Write the line amount as an expression: compute: {line_amount: "[Quantity] * [Unit Price] * (1 - [Discount] / 100)"}.',
      })
  }

  /** The year of dates written without one: --year, or a field of the file's preamble (`year_from:`). */
  private yearOf(preamble: readonly string[][], fileLabel: string): YearSource | undefined {
    const from = this.map.yearFrom
    if (this.map.year || !from) return this.map.year
    const text = (preamble[from.line - 1]?.[from.field - 1] ?? '').trim()
    const where = `${fileLabel}:${from.line}: field ${from.field} of the preamble (year_from: in ${this.map.source})`
    if (from.pattern === 'YYYY') {
      if (!/^\d{4}$/.test(text)) throw new InputError(`${where}: "${text}" is not a year (YYYY)`)
      return {year: Number(text), from: where}
    }
    const d = parseDateAs(text, from.pattern)
    if (!d.ok) throw new InputError(`${where}: "${text}" ${d.reason}`)
    const [year, month, day] = d.value.slice(0, 10).split('-').map(Number) as [number, number, number]
    return {year, from: where, fiscalStart: from.fiscalYearStart ? {month, day} : undefined}
  }

  /** How the line amount is made, checked once against the columns the file has. */
  private amountRecipe(fileLabel: string, fedBy: Map<string, number>): AmountRecipe | undefined {
    const has = (c: string) => fedBy.has(c)
    const map = this.map
    if (has('line_amount')) {
      const from = this.labels[fedBy.get('line_amount')!]!
      const droppedQty = this.targets.findIndex((t, i) => t === null && QUANTITY_HEADER.test(this.labels[i]!))
      if (UNIT_PRICE_HEADER.test(from) && droppedQty !== -1) {
        throw new InputError(
          `${map.source}: "${from}" (a unit price) feeds line_amount while "${this.labels[droppedQty]}" is dropped: a line of 3 at 10.00 would be sent as 10.00`,
          {
            hint: `Map "${this.labels[droppedQty]}": quantity and "${from}": unit_price, and bk sends quantity × unit price.`,
          },
        )
      }
      if (AMOUNT_SOURCES.some(has))
        throw new InputError(
          `${map.source}: line_amount is mapped, and so is ${AMOUNT_SOURCES.filter(has).join(', ')}: keep one way to the line amount`,
        )
      return {kind: 'direct'}
    }
    if (has('unit_price') !== has('quantity')) {
      throw new InputError(
        `${map.source}: ${has('unit_price') ? 'unit_price is mapped without quantity' : 'quantity is mapped without unit_price'}`,
        {
          hint: 'A line amount is quantity × unit price: map both (or map the line total to line_amount).',
        },
      )
    }
    const product = has('quantity')
    const tax = has('line_tax')
    if (map.amountsAre) {
      // The row says whether its amount is net or gross (amountBasis checks it against --amounts).
      if (tax)
        throw new InputError(
          `${map.source}: amounts_are: is for layouts without a tax amount, and a column feeds line_tax`,
          {
            hint: 'Drop amounts_are:, and say with unit_prices: whether the prices include tax.',
          },
        )
      if (product) return {kind: 'product', addTax: false, subtractTax: false}
      const only = has('line_net') ? 'line_net' : has('line_gross') ? 'line_gross' : undefined
      return only ? {kind: 'column', from: only} : undefined
    }
    const can = {
      net:
        has('line_net') ||
        (product && map.unitPrices === 'net') ||
        (tax && (has('line_gross') || (product && map.unitPrices === 'gross'))),
      gross:
        has('line_gross') ||
        (product && map.unitPrices === 'gross') ||
        (tax && (has('line_net') || (product && map.unitPrices === 'net'))),
    }
    if (!can.net && !can.gross) return undefined
    let basis = map.amounts
    if (!basis) {
      if (can.net && can.gross) {
        throw new InputError(
          `${fileLabel}: this layout has amounts before and after tax, and the API's bill lines have no tax field`,
          {
            hint: 'Say which one bk sends as the line amount: --amounts net or --amounts gross (or amounts: in the map).',
            code: 'amounts_needed',
          },
        )
      }
      basis = can.net ? 'net' : 'gross'
    }
    if (!can[basis]) {
      throw new InputError(`${map.source}: --amounts ${basis}, but no column gives the ${basis} amount`, {
        hint:
          basis === 'net' ? 'Map line_net, or line_gross and line_tax.' : 'Map line_gross, or line_net and line_tax.',
      })
    }
    if (product) {
      const priced = map.unitPrices
      return {
        kind: 'product',
        addTax: basis === 'gross' && priced === 'net',
        subtractTax: basis === 'net' && priced === 'gross',
      }
    }
    if (basis === 'net')
      return has('line_net') ? {kind: 'column', from: 'line_net'} : {kind: 'sum', sign: -1, from: 'line_gross'}
    return has('line_gross') ? {kind: 'column', from: 'line_gross'} : {kind: 'sum', sign: 1, from: 'line_net'}
  }

  private recipeLabel(): string {
    const l = (c: SourceColumn) => this.labels[this.source.get(c)!]
    const r = this.recipe!
    switch (r.kind) {
      case 'direct':
        return 'line_amount'
      case 'product':
        return `${l('quantity')} × ${l('unit_price')}${r.addTax ? ` + ${l('line_tax')}` : r.subtractTax ? ` − ${l('line_tax')}` : ''}`
      case 'column':
        return `${l(r.from)}`
      case 'sum':
        return `${l(r.from)} ${r.sign === 1 ? '+' : '−'} ${l('line_tax')}`
    }
  }

  /**
   * `due_days` computes a due date from the issue date: it goes to the due date column of the
   * translated row even when no column of the file feeds one, and needs an issue date to start from.
   */
  private dueDaysTarget(
    index: Record<Column, number>,
    labels: string[],
    fedBy: Map<string, number>,
    fileLabel: string,
  ): void {
    const days = this.map.dueDays
    if (days === undefined) return
    if (!fedBy.has('issued_at'))
      throw new InputError(
        `${this.map.source}: due_days (--due-days ${days}) computes a due date from the issue date, but no column of ${fileLabel} feeds issued_at`,
        {hint: 'Map the issue date column to issued_at, or drop due_days.'},
      )
    if (index.due_at !== -1) return
    index.due_at = this.position.get('due_at')!
    labels[index.due_at] = `${this.labels[fedBy.get('issued_at')!]} + ${days} days`
  }

  private creditColumn(cells: string[], fileLabel: string): number {
    const credit = this.map.credit
    if (!credit) return -1
    if (!credit.column) return this.source.get('credit_marker') ?? -1
    return this.columnNamed(cells, credit.column, 'credit.column', fileLabel)
  }

  /** The index of a column the map names by header (or by position when the file has none). */
  private columnNamed(cells: string[], name: string, key: string, fileLabel: string): number {
    const want = headerOf(this.map.aliasOf, name)
    const i = cells.findIndex((c, j) => headerOf(this.map.aliasOf, c) === want || this.labels[j] === name)
    if (i === -1) throw new InputError(`${this.map.source}: ${key} "${name}" is not a column of ${fileLabel}`)
    return i
  }

  /** A value missing from a lookup, once each (at most 1000 per lookup), for --dry-run's list. */
  private noteMissing(target: string, value: string): void {
    let seen = this.missing.get(target)
    if (!seen) this.missing.set(target, (seen = new Set()))
    if (seen.size < 1000) seen.add(value)
  }

  /** One record of the export as a row in bk's layout. */
  translate(record: string[], line: number, origin?: RowOrigin): TranslatedRow {
    const raw = record
    if (this.skipIndex !== -1 && this.map.skip!.values.includes((record[this.skipIndex] ?? '').trim()))
      return {row: {line, cells: record, raw}, errors: NO_ERRORS, skipped: true}
    const {cells, continues, ambiguous} = this.fillDown(record)
    const out = new Array<string>(this.width).fill('')
    let errors: RowError[] | undefined
    let failed: Set<string> | undefined
    const joined = origin?.lines
    // `read`: the column the value was read from, or (a computed value failing as a whole) the last it reads.
    const fail = (target: string, i: number, value: string, message: string, read = i) => {
      // A value of the lines file is its own: that file's row, under the name its header gives.
      const label =
        i === -1 ? target : this.columnLabel(i, target, joined && i >= joined.from ? joined.from : undefined)
      const error =
        joined && read >= joined.from
          ? {file: joined.label, line: joined.record.line, column: label}
          : {line, column: label}
      ;(errors ??= []).push({...error, value, message})
      ;(failed ??= new Set()).add(target)
    }
    if (ambiguous) fail('number', this.numberSource, '', AMBIGUOUS_CONTINUATION)
    this.marks.length = 0
    const amounts = this.readCells(cells, out, fail)
    if (this.computed.length > 0 || this.keyed.length > 0 || this.lineMeta.size + this.billMeta.size > 0)
      this.applyLanguage(cells, out, fail, failed, continues)
    if (this.marks.length > 0) this.checkMarks(out[this.at.currency] || this.map.defaults.currency, fail)
    if (this.recipe && this.recipe.kind !== 'direct' && !failed?.has('line_amount')) {
      const currency = out[this.at.currency] || this.map.defaults.currency
      out[this.at.line_amount] = this.computeAmount(amounts, currency)
    }
    if (this.map.dueDays !== undefined && out[this.at.due_at] === '' && !failed?.has('issued_at')) this.dueDate(out)
    const kind = this.rowsIndex !== -1 ? this.rowKind(cells, line) : undefined
    if (kind) (errors ??= []).push(kind)
    // A continuation row that leaves the type blank is a line of the bill above, whose first row decides.
    const typed = this.creditIndex !== -1 && !(continues && (cells[this.creditIndex] ?? '').trim() === '')
    const credit = typed ? this.creditMark(cells, line) : undefined
    if (credit) (errors ??= []).push(credit)
    const status = this.statusIndex !== -1 ? this.statusMark(cells, line) : undefined
    if (status) (errors ??= []).push(status)
    const basis = this.amountsAreIndex !== -1 ? this.amountBasis(cells, line) : undefined
    if (basis) (errors ??= []).push(basis)
    return {row: {line, cells: out, raw, failed, continuation: continues}, errors: errors ?? NO_ERRORS}
  }

  /** The mapped cells of a row into bk's columns (dates, numbers, lookups), and the amount sources. */
  private readCells(
    cells: readonly string[],
    out: string[],
    fail: (target: string, i: number, value: string, message: string) => void,
  ): Map<string, string> {
    const amounts = this.amountTexts
    amounts.clear()
    for (const step of this.plan) {
      const i = step.index
      const text = cells[i] ?? ''
      const trimmed = text.trim()
      switch (step.kind) {
        case 'amount-source': {
          const fallback = trimmed === '' ? this.map.defaults[step.target as SourceColumn] : undefined
          if (trimmed === '' && fallback === undefined) {
            if (step.target !== 'line_tax') fail('line_amount', i, text, 'is empty: expected a number')
            break
          }
          const n = this.number(fallback ?? text)
          if (n.ok) amounts.set(step.target, n.value)
          else fail('line_amount', i, text, n.reason)
          if (n.mark) this.marks.push({target: 'line_amount', i, text, mark: n.mark})
          break
        }
        case 'date': {
          if (trimmed === '') break
          const d = this.date(trimmed)
          if (d.ok) out[step.at] = d.value
          else fail(step.target, i, text, d.reason)
          break
        }
        case 'amount': {
          if (trimmed === '') break
          const n = this.number(text)
          if (n.ok) out[step.at] = n.value
          else fail(step.target, i, text, n.reason)
          if (n.mark) this.marks.push({target: step.target, i, text, mark: n.mark})
          break
        }
        case 'lookup': {
          if (trimmed === '') break
          const value = lookUp(step.lookup!, trimmed)
          if (value !== undefined) {
            out[step.at] = value
            break
          }
          this.noteMissing(step.target, trimmed)
          fail(
            step.target,
            i,
            text,
            isPending(step.lookup!, trimmed)
              ? `has no id yet in the lookup file ${step.lookup!.file}: fill in its id there`
              : `is not in the lookup file ${step.lookup!.file}: add a row "${trimmed},<id>" to it`,
          )
          out[step.at] = trimmed
          break
        }
        case 'id': {
          if (trimmed === '') break
          if (!trimmed.startsWith(step.prefix!)) {
            fail(
              step.target,
              i,
              text,
              `is not an id (${step.prefix}…), and no lookup is given for ${step.target}: pass --lookup ${step.target}=FILE.csv mapping the file's values to ids`,
            )
          }
          out[step.at] = text
          break
        }
        case 'text':
          if (trimmed !== '') out[step.at] = text
          break
        case 'meta':
          if (trimmed !== '') this.metaOf(step.target).set(step.target.slice(step.target.indexOf(':') + 1), trimmed)
          break
        case 'guard':
          if (trimmed !== '' && !this.isZero(text))
            fail(step.target, i, text, (step.target as string) === 'bill_charge' ? CHARGE_REFUSED : DISCOUNT_REFUSED)
          break
      }
    }
    return amounts
  }

  private metaOf(target: string): Map<string, string> {
    return target.startsWith('line_') ? this.lineMeta : this.billMeta
  }

  /** Keyed lookups, computed values and metadata keys into the translated row. */
  private applyLanguage(
    cells: readonly string[],
    out: string[],
    fail: (target: string, i: number, value: string, message: string, read?: number) => void,
    failed: Set<string> | undefined,
    continues: boolean,
  ): void {
    // A continuation row carries its bill's values: those the map language made from the bill's first row.
    const first = continues ? this.billRow : undefined
    if (!continues) this.billRow = out
    for (const step of this.keyed) {
      const {key, value} = lookUpRow(step, cells)
      if (key.every((k) => k === '')) continue
      if (value !== undefined) out[this.position.get(step.target)!] = value
      else {
        this.noteMissing(step.target, key.join(', '))
        fail(
          step.target,
          step.columns[0]!,
          key.join(', '),
          isPending(step.lookup, key.join('\u0000'))
            ? `has no id yet in the lookup file ${step.lookup.file}: fill in its id there`
            : `is not in the lookup file ${step.lookup.file} (keyed by ${step.columns.map((i) => `"${this.labels[i]}"`).join(', ')}): add a row "${key.join(',')},<id>" to it`,
        )
      }
    }
    for (const step of this.computed) {
      if (step.billLevel && step.reads.every((i) => (cells[i] ?? '').trim() === '')) {
        const at = this.position.get(step.target)
        if (first && at !== undefined) out[at] = first[at] ?? ''
        continue
      }
      if (step.reads.some((i) => failed?.has(this.targets[i] ?? ''))) continue
      try {
        this.computing = step.target
        const value = step.run(cells)
        const currency = out[this.at.currency] || this.map.defaults.currency
        const text = computedText(step, value, currency)
        if (/^(line_)?metadata:/.test(step.target)) {
          if (text !== '') this.metaOf(step.target).set(step.target.slice(step.target.indexOf(':') + 1), text)
        } else out[this.position.get(step.target)!] = this.computedId(step, text, fail)
      } catch (error) {
        if (!(error instanceof RowFailure)) throw error
        const i = error.column ?? -1
        const read = i === -1 ? Math.max(-1, ...step.reads) : i
        fail(step.target, i, error.value, i === -1 ? `${error.message} (compute: ${step.target})` : error.message, read)
      }
    }
    for (const [meta, column] of [
      [this.lineMeta, 'line_metadata'],
      [this.billMeta, 'metadata'],
    ] as const) {
      const at = this.position.get(column)!
      if (meta.size === 0) {
        if (first && column === 'metadata') out[at] = first[at] ?? ''
        continue
      }
      out[at] = JSON.stringify(Object.fromEntries(meta))
      meta.clear()
    }
  }

  /**
   * A computed value of a field with a lookup is looked up as a column's value is (DATEV: the
   * creditor is whichever of two columns holds a personal account); one with an id prefix and no
   * lookup must be an id.
   */
  private computedId(
    step: ComputedStep,
    text: string,
    fail: (target: string, i: number, value: string, message: string) => void,
  ): string {
    const trimmed = text.trim()
    const lookup = this.lookups.get(step.target)
    const prefix = ID_COLUMN_PREFIX[step.target]
    if (trimmed === '' || (!lookup && !prefix)) return text
    const at = step.reads[0] ?? -1
    if (!lookup) {
      if (!trimmed.startsWith(prefix!))
        fail(
          step.target,
          at,
          text,
          `is not an id (${prefix}…), and no lookup is given for ${step.target}: pass --lookup ${step.target}=FILE.csv mapping the file's values to ids (compute: ${step.target})`,
        )
      return text
    }
    const value = lookUp(lookup, trimmed)
    if (value !== undefined) return value
    let seen = this.missing.get(step.target)
    if (!seen) this.missing.set(step.target, (seen = new Set()))
    if (seen.size < 1000) seen.add(trimmed)
    fail(
      step.target,
      at,
      text,
      `is not in the lookup file ${lookup.file} (compute: ${step.target}): add a row "${trimmed},<id>" to it`,
    )
    return trimmed
  }

  /**
   * A currency written in an amount cell must be the bill's: `USD 5.00` on a JPY bill is not
   * 5 JPY. Without a currency on the row or in the map, the service's default applies, which bk
   * cannot know offline: nothing to compare.
   */
  private checkMarks(
    currency: string | undefined,
    fail: (target: string, i: number, value: string, message: string) => void,
  ): void {
    if (!currency) return
    for (const {target, i, text, mark} of this.marks) {
      const meant = currencyOfMark(mark, this.map.symbolCurrencies, this.map.defaults.currency, currency)
      if ('several' in meant)
        fail(
          target,
          i,
          text,
          `has "${mark}", which names several currencies (${meant.several.join(', ')}): say which one this file means in the map (currency_symbols: {"${mark}": "${currency}"})`,
        )
      else if (meant.currency !== currency)
        fail(
          target,
          i,
          text,
          `is written in ${meant.currency}, but the bill's currency is ${currency}: correct the amount or the currency (bk does not convert)`,
        )
    }
  }

  /** `due_days`: the issue date plus N days. A date without a time is midnight UTC; one that does not parse is reported by the issued_at check. */
  private dueDate(out: string[]): void {
    const issued = out[this.at.issued_at]?.trim()
    if (!issued) return
    const at = /^\d{4}-\d{2}-\d{2}$/.test(issued) ? `${issued}T00:00:00Z` : issued
    if (!Number.isNaN(Date.parse(at))) out[this.at.due_at] = addDays(at, this.map.dueDays!)
  }

  /** A guard column's blank-equivalent: a number that is zero (`0`, `0.00`). */
  private isZero(text: string): boolean {
    const n = this.number(text)
    return n.ok && /^-?0*(\.0*)?$/.test(n.value)
  }

  /** `rows:`: only rows whose column holds a listed value are bill rows. */
  private rowKind(cells: string[], line: number): RowError | undefined {
    const kind = (cells[this.rowsIndex] ?? '').trim()
    const allowed = this.map.rows!.values
    if (allowed.includes(kind)) return undefined
    return {
      line,
      column: this.labels[this.rowsIndex],
      value: kind,
      message: `is not a bill row: this map reads only ${allowed.join(', ')} rows. Export only those transactions, or remove the row`,
    }
  }

  /** `status:`: a status to set aside sets the bill aside with the map's reason; one in neither list is refused. */
  private statusMark(cells: string[], line: number): RowError | undefined {
    const rule = this.map.status!
    const value = (cells[this.statusIndex] ?? '').trim()
    const column = this.columnLabel(this.statusIndex, 'status')
    if (listed(rule.setAside, value))
      return {
        line,
        column,
        value,
        message: `is a status whose bills are set aside (${rule.reason}): not sent`,
        skip: true,
      }
    if (listed(rule.bills, value)) return undefined
    return {
      line,
      column,
      value,
      message: `is neither a status of bills to import (${rule.bills.join(', ')}) nor one to set aside (${rule.setAside.join(', ')}) in ${this.map.source}`,
    }
  }

  /**
   * `amounts_are:`: whether this row's amount is before or after tax. A row whose amount is not
   * what bk sends (--amounts) is refused: the tax is not in the file, so bk cannot add or remove it.
   */
  private amountBasis(cells: string[], line: number): RowError | undefined {
    const rule = this.map.amountsAre!
    const value = (cells[this.amountsAreIndex] ?? '').trim()
    const column = this.columnLabel(this.amountsAreIndex, 'amounts_are')
    const untaxed =
      listed(rule.untaxed, value) ||
      (this.untaxedIndex !== -1 && listed(rule.untaxedWhen!.values, (cells[this.untaxedIndex] ?? '').trim()))
    if (untaxed) return undefined
    const basis = listed(rule.net, value) ? 'net' : listed(rule.gross, value) ? 'gross' : undefined
    const fail = (message: string) => ({line, column, value, message})
    if (!basis) {
      const all = [...rule.net, ...rule.gross, ...rule.untaxed].map((v) => JSON.stringify(v)).join(', ')
      return fail(`is not a value ${this.map.source} knows for whether the amount includes tax (${all})`)
    }
    const sent = this.map.amounts
    const what = basis === 'net' ? 'without tax (net)' : 'with tax (gross)'
    if (!sent)
      return fail(
        `says the amount is ${what}, and bk sends one kind of amount for every line: pass --amounts ${basis} to send it as written`,
      )
    if (sent === basis) return undefined
    return fail(
      `says the amount is ${what}, but --amounts ${sent} is given and the tax is not in the file, so bk cannot ${sent === 'net' ? 'take it out' : 'add it'}: import these bills with --amounts ${basis}, or export them ${sent === 'net' ? 'exclusive' : 'inclusive'} of tax`,
    )
  }

  /**
   * The type column: a credit type sets the document aside (or refuses it), a bill type passes,
   * and a value in neither closed list is not a bill (compared without case or surrounding spaces).
   */
  private creditMark(cells: string[], line: number): RowError | undefined {
    const credit = this.map.credit!
    const mark = (cells[this.creditIndex] ?? '').trim()
    const is = (list: readonly string[]) => list.some((v) => v.toLowerCase() === mark.toLowerCase())
    const column = this.labels[this.creditIndex]!
    if (is(credit.values)) return creditNote(line, column, mark, this.map.credits === 'skip')
    if (!credit.bills || is(credit.bills)) return undefined
    return {
      line,
      column,
      value: mark,
      message: `is neither a bill type (${credit.bills.join(', ')}) nor a credit type (${credit.values.join(', ')}) in ${this.map.source}: export only bills and credit notes, or remove the row`,
    }
  }

  /**
   * Blank cells of a continuation row take the bill's first-row values. A continuation row is one
   * whose key cells are blank or the bill's; one that leaves a filled-down number blank continues
   * the bill whatever else it says (a different vendor there is an error, not a new bill).
   */
  private fillDown(record: string[]): {cells: string[]; continues: boolean; ambiguous: boolean} {
    const marked = this.continuationIndex !== -1
    if (this.fillSources.length === 0 && !marked) return {cells: record, continues: false, ambiguous: false}
    const cur = this.current
    const blank = (i: number) => (record[i] ?? '').trim() === ''
    const same = (i: number) => (record[i] ?? '').trim() === (cur?.[i] ?? '').trim()
    const numberBlank =
      this.numberSource !== -1 && this.fillSources.includes(this.numberSource) && blank(this.numberSource)
    let continues: boolean
    let ambiguous = false
    if (marked) {
      continues =
        cur !== undefined && this.map.continuation!.values.includes((record[this.continuationIndex] ?? '').trim())
    } else {
      continues = cur !== undefined && (numberBlank || this.keySources.every((i) => i === -1 || blank(i) || same(i)))
      // A blank number on a row that repeats the bill's values (its vendor, its date) is as likely
      // a bill exported without a number as a line of the bill above: never merged silently.
      ambiguous =
        continues &&
        numberBlank &&
        this.fillSources.some((i) => i !== this.numberSource && !blank(i)) &&
        this.fillSources.every((i) => blank(i) || same(i))
    }
    if (!continues) {
      this.current = record
      return {cells: record, continues: false, ambiguous: false}
    }
    let filled: string[] | undefined
    for (const i of this.fillSources) {
      if (blank(i) && (cur![i] ?? '').trim() !== '') (filled ??= [...record])[i] = cur![i]!
    }
    return {cells: filled ?? record, continues: marked || numberBlank, ambiguous}
  }

  private computeAmount(texts: Map<string, string>, currency: string | undefined): string {
    const r = this.recipe!
    const d = (source: string) => this.decimal(source, texts.get(source) ?? '0')
    let value: Money
    switch (r.kind) {
      case 'direct':
        throw new Error('unreachable: a direct amount is not computed')
      case 'product': {
        const quantity = texts.get('quantity')!
        const places = currency ? minorUnit(currency) : 2
        // One of a price already in the minor unit is the price as written: no arithmetic to do.
        if (quantity === '1' && !r.addTax && !r.subtractTax) {
          const price = texts.get('unit_price')!
          const dot = price.indexOf('.')
          if (dot === -1 || price.length - dot - 1 <= places) return price
        }
        value = quantity === '1' ? d('unit_price') : d('quantity').times(d('unit_price'))
        if (r.addTax) value = value.plus(d('line_tax'))
        if (r.subtractTax) value = value.minus(d('line_tax'))
        break
      }
      case 'column':
        value = d(r.from)
        break
      case 'sum':
        value = r.sign === 1 ? d(r.from).plus(d('line_tax')) : d(r.from).minus(d('line_tax'))
        break
    }
    const places = currency ? minorUnit(currency) : 2
    return (value.decimalPlaces() <= places ? value : roundMoney(value, places)).toFixed()
  }

  /** A Decimal of a source column's text; the last one per column is kept (exports repeat prices). */
  private decimal(source: string, text: string): Money {
    const cached = this.decimals.get(source)
    if (cached && cached.text === text) return cached.value
    const value = new Decimal(text)
    this.decimals.set(source, {text, value})
    return value
  }

  private number(text: string) {
    return parseNumberAs(text, this.numberFormat, {
      currencySymbols: this.map.currencySymbols,
      negativeParentheses: this.map.negativeParentheses,
      negative: this.negative,
    })
  }

  private date(text: string): ReturnType<typeof parseDateAs> {
    let d = this.dateCache.get(text)
    if (d) return d
    const format = this.map.dateFormat
    if (format && this.map.dateAlternatives?.length) d = this.dateOfList(text, format)
    else if (format) d = parseDateAs(text, format, this.yearSource)
    else if (/^\d{4}-\d{2}-\d{2}/.test(text)) d = {ok: true, value: text}
    else
      d = {
        ok: false,
        reason: `is not an ISO 8601 date, and no date format is given: pass --date-format (${DATE_FORMATS.join(', ')}) to say how the file writes dates`,
      }
    if (this.dateCache.size > 4096) this.dateCache.clear()
    this.dateCache.set(text, d)
    return d
  }

  /** A date under a map's list of patterns: the one that reads it; two that read it differently are an error. */
  private dateOfList(text: string, first: string): ReturnType<typeof parseDateAs> {
    const patterns = [first, ...this.map.dateAlternatives!]
    const read = patterns.map((p) => ({p, d: parseDateAs(text, p, this.yearSource)}))
    const ok = read.filter((r) => r.d.ok) as Array<{p: string; d: {ok: true; value: string}}>
    if (ok.length === 0) return {ok: false, reason: `is not a date written ${patterns.join(' or ')}`}
    const other = ok.find((r) => r.d.value !== ok[0]!.d.value)
    if (other)
      return {
        ok: false,
        reason: `is ambiguous: ${ok[0]!.p} reads it as ${ok[0]!.d.value.slice(0, 10)}, ${other.p} as ${other.d.value.slice(0, 10)}; pass --date-format to say which`,
      }
    return ok[0]!.d
  }

  /** A column as messages name it; one joined from the lines file (`from` on) by that file's header. */
  private columnLabel(i: number, target: string, from?: number): string {
    const label = from === undefined ? this.labels[i]! : this.labels[i]!.slice(LINES_PREFIX.length + 1)
    return columnLabel(label, target)
  }
}

/** Whether a list holds the value, compared without case (the values are trimmed). */
export function listed(list: readonly string[], value: string): boolean {
  const v = value.toLowerCase()
  return list.some((x) => x.toLowerCase() === v)
}

/** Unknown (or unmapped) columns: the file does not fit the map; the nearest header the map knows is the likeliest fix. */
function unknownColumns(unknown: string[], header: string[] | undefined, map: BillMap, fileLabel: string): InputError {
  const many = unknown.length > 1
  const near = header
    ? unknown.flatMap((u) => {
        const n = nearestName(u.replace(/^"|"$/g, ''), map.spellings)
        return n ? [`${u} is not "${n}"`] : []
      })
    : []
  return new InputError(
    `${fileLabel}:1: ${header ? `unknown column${many ? 's' : ''}` : `unmapped column${many ? 's' : ''}`} ${unknown.join(', ')}: not in ${map.source}`,
    {
      hint:
        (header && noHeaderHint(header)) ??
        (near.length > 0 ? `The nearest headers the map knows: ${near.join('; ')}. Rename the header, or ` : '') +
          `${near.length > 0 ? 'map' : 'Map'} ${many ? 'them' : 'it'} in the map's columns: (or list ${many ? 'them' : 'it'} under ignore: to drop ${many ? 'them' : 'it'}).`,
    },
  )
}

/**
 * What a file's first record is, by the map: a header (its cells), or a data row. A layout the
 * package writes without a header (`header: false`) may still start with a row naming its
 * documented fields (`field_order:`): that row is skipped. A layout with a header that the
 * package also writes in its documented fixed order without one (`field_order:` again) is read
 * by those names when the first row has no header the map knows and holds data.
 */
export function readFirstRow(
  map: BillMap | undefined,
  record: string[],
): {header: string[] | undefined; isData: boolean} {
  const order = map?.fieldOrder
  if (!map || !order) return {header: map?.header === false ? undefined : record, isData: map?.header === false}
  const documented = new Set(order.map(headerKey))
  const names = (cell: string) => {
    const k = headerKey(cell)
    return documented.has(k) || documented.has(map.aliasOf.get(k) ?? '')
  }
  const filled = record.filter((c) => c.trim() !== '')
  if (map.header === false) {
    const named = filled.filter(names).length
    return {header: undefined, isData: !(named >= 2 && named * 2 >= filled.length)}
  }
  const known = record.some((c) => map.columns.has(headerKey(c)) || canonicalColumn(c) !== undefined)
  const data = filled.some((c) => /\d/.test(c))
  if (known || !data || record.length > order.length) return {header: record, isData: false}
  return {header: order.slice(0, record.length), isData: true}
}

/**
 * The map's columns for this file: a layout rule (`when_column:`) whose header the file has changes
 * what others mean. A header stands for its aliases here as everywhere: the rule fires on any
 * spelling of its header, and what it says of a header it says of that header's aliases.
 */
export function columnsForLayout(map: BillMap, header: string[] | undefined): Map<string, Target | null> {
  if (!header || map.whenColumn.size === 0) return map.columns
  const keys = new Set(header.map((h) => headerKey(h)).flatMap((k) => [k, map.aliasOf.get(k) ?? k]))
  let columns = map.columns
  for (const [trigger, meanings] of map.whenColumn) {
    if (!keys.has(trigger)) continue
    columns = new Map(columns)
    for (const [k, target] of meanings)
      for (const spelling of spellingsOfKey(map.aliasOf, k)) columns.set(spelling, target)
  }
  return columns
}
