/**
 * A proposed target for each column of an export, for a starter map (`bk bills maps init`): from
 * the header's words first, checked against the values (a "date" that holds no dates is not
 * one), then from the values alone. A proposal is a starting point the user checks; what cannot
 * be told from the file (which amount is sent, a format that reads two ways) is left to decide.
 */
import {headerKey, ID_COLUMN_PREFIX} from './columns.js'
import type {ColumnProfile} from './column-profile.js'
import type {ColumnFinding, CreditFinding, LookupFinding} from './map-init.js'

interface Rule {
  name: RegExp
  target: string
  /** What the values must be for the name to count. */
  values?: 'date' | 'number' | 'text'
}

/** Header words to targets, most specific first (compared in lower case). */
const RULES: Rule[] = [
  {name: /\bdue\b|fällig|faellig/, target: 'due_at', values: 'date'},
  {
    name: /(bill|invoice|inv|document|doc|voucher|supplier inv\w*|vendor inv\w*|beleg\w*|rechnung\w*)\s*(no|num|number|nr|#|id|ref\w*)\b|^(bill|invoice|bill no|number|no|ref|reference|belegfeld 1)$|(bill|invoice) ?#/,
    target: 'number',
  },
  {name: /first ?name|vorname/, target: 'vendor_first_name', values: 'text'},
  {name: /last ?name|surname|nachname/, target: 'vendor_id', values: 'text'},
  {name: /vendor|supplier|contact|payee|creditor|lieferant|kreditor|gegenkonto/, target: 'vendor_id'},
  {name: /date|datum/, target: 'issued_at', values: 'date'},
  {name: /currency|^curr$|^ccy$|wkz|währung|waehrung/, target: 'currency', values: 'text'},
  {name: /discount|rabatt/, target: 'line_discount'},
  {name: /qty|quantity|menge/, target: 'quantity', values: 'number'},
  {name: /unit|price|rate|preis/, target: 'unit_price', values: 'number'},
  {name: /\bnet\b|netto/, target: 'line_net', values: 'number'},
  {name: /\b(tax|vat|gst|mwst|ust)\b.*(amount|amt)|^(tax|vat|gst|mwst)$/, target: 'line_tax', values: 'number'},
  {name: /gross|brutto|incl/, target: 'line_gross', values: 'number'},
  {name: /amount|betrag|umsatz|^total$|line total/, target: 'line_amount', values: 'number'},
  {name: /account|ledger|nominal|konto|category|expense|\bgl\b/, target: 'line_ledger_id'},
  {name: /desc|detail|label|item|text|memo/, target: 'line_description', values: 'text'},
  {name: /note|memo|reference|\bref\b/, target: 'description', values: 'text'},
]

const CREDIT_WORDS = /credit|gutschrift|refund|^pc$|^cn$|accpaycredit|^vc$/i
const BILL_LEVEL = ['number', 'vendor_id', 'issued_at', 'due_at', 'currency', 'description']
const FILES: Record<string, string> = {vendor_id: 'vendors.csv', line_ledger_id: 'ledgers.csv'}

export interface Proposal {
  columns: ColumnFinding[]
  credit: CreditFinding | null
  amountsDecide: boolean
  lookups: LookupFinding[]
  fillDown: string[]
  decide: string[]
  notes: string[]
}

const kindOf = (p: ColumnProfile) =>
  p.values.length === 0 ? 'empty' : p.dateFormats.length > 0 ? 'date' : p.numberFormats.length > 0 ? 'number' : 'text'

/** A file whose bills and lines are rows of their own record types (IIF), read TYPE.COLUMN. */
export interface RecordLevels {
  bill: string
  line: string
  /** The format's preset: what it reads each TYPE.COLUMN as, and the reason to give for it. */
  preset?: {columns: ReadonlyMap<string, string | null>; why: (column: string) => string} | undefined
}

/**
 * The proposal for every column; `header` false: the names are positions and say nothing. With
 * record levels, a column of the bill's rows takes only a bill's targets and one of the lines'
 * rows only a line's: a bill row's AMOUNT is the bill's total, never a line amount.
 */
export function proposeColumns(
  names: string[],
  profiles: ColumnProfile[],
  header: boolean,
  levels?: RecordLevels,
): Proposal {
  const taken = new Map<string, number>()
  const take = (i: number, column: string, target: string, why: string, examples: string[]) => {
    taken.set(target, i)
    return {column, target, why, examples}
  }
  const columns: ColumnFinding[] = names.map((column, i) => {
    const p = profiles[i]!
    const examples = [...new Set(p.values)].slice(0, 3)
    const kind = kindOf(p)
    const type = levels && column.slice(0, column.indexOf('.'))
    const fits = (target: string) =>
      !levels || (type === levels.bill) === (BILL_LEVEL.includes(target) || target === 'credit_marker')
    const read = levels?.preset?.columns.get(headerKey(column))
    if (typeof read === 'string' && !taken.has(read))
      return take(i, column, read, levels!.preset!.why(column), examples)
    const named = header
      ? RULES.find((r) => r.name.test(column.toLowerCase()) && (!r.values || r.values === kind || kind === 'empty'))
      : undefined
    if (named && !taken.has(named.target) && fits(named.target))
      return take(i, column, named.target, `the header says ${named.target}`, examples)
    if (kind === 'date' && !taken.has('issued_at') && fits('issued_at'))
      return take(i, column, 'issued_at', 'the first column of dates', examples)
    if (kind === 'text' && isCreditMarker(p) && !taken.has('credit_marker') && fits('credit_marker'))
      return take(i, column, 'credit_marker', 'its values mark credit notes', examples)
    const why =
      named && !fits(named.target)
        ? `${named.target} comes from the ${type === levels!.bill ? levels!.line : levels!.bill} rows, not the ${type} rows`
        : kind === 'empty'
          ? 'empty in the sample'
          : 'not recognised'
    return {column, target: null, why, examples}
  })
  const decide: string[] = []
  const notes: string[] = []
  const target = (t: string) => columns.find((c) => c.target === t)
  const drop = (t: string, why: string) => {
    const c = target(t)
    if (c) Object.assign(c, {target: null, why})
  }
  // One way to the line amount: quantity × unit price beats a line total; a lone half is dropped.
  if (target('quantity') && target('unit_price')) {
    for (const t of ['line_amount', 'line_net', 'line_gross'])
      drop(t, `a line total: the amount is ${target('quantity')!.column} × ${target('unit_price')!.column}`)
  } else {
    drop('quantity', 'a quantity without a unit price column')
    drop('unit_price', 'a unit price without a quantity column')
  }
  if (target('line_amount') && (target('line_net') || target('line_gross')))
    drop('line_amount', 'another amount column')
  const priced = target('quantity') !== undefined
  const amountsDecide =
    (target('line_tax') !== undefined &&
      (priced || target('line_net') !== undefined || target('line_gross') !== undefined)) ||
    (target('line_net') !== undefined && target('line_gross') !== undefined)
  if (amountsDecide) decide.push('amounts: net or gross (the file has amounts before and after tax)')
  const credit = creditOf(columns, profiles)
  const lookups = lookupsOf(columns, profiles)
  const first = target('vendor_first_name')
  if (first) Object.assign(first, {target: null, why: 'a key of the vendor lookup (lookups: below)'})
  for (const [t, what] of [
    ['number', 'the bill number'],
    ['vendor_id', 'the vendor'],
    ['line_ledger_id', "the line's ledger account"],
  ] as const)
    if (!target(t)) decide.push(`no column looked like ${what}: map one to ${t}`)
  if (!['line_amount', 'line_net', 'line_gross', 'unit_price'].some(target))
    decide.push('no column looked like the line amount: map one to line_amount (or quantity and unit_price)')
  if (!target('currency'))
    notes.push('no column names the currency: pass --currency CODE (or defaults: {currency: CODE})')
  if (target('line_discount'))
    notes.push(
      `"${target('line_discount')!.column}" is mapped to line_discount: a row with a discount is refused until compute: line_amount applies it`,
    )
  const number = target('number')
  const fillDown =
    number && profiles[columns.indexOf(number)]!.blanks > 0
      ? columns
          .filter((c, i) => c.target && BILL_LEVEL.includes(c.target) && profiles[i]!.blanks > 0)
          .map((c) => c.target!)
      : []
  return {columns, credit, amountsDecide, lookups, fillDown, decide, notes}
}

/** A type column: a few values, each repeated (a text column of descriptions is not one), one a credit word. */
function isCreditMarker(p: ColumnProfile): boolean {
  const distinct = new Set(p.values)
  return distinct.size <= 6 && distinct.size * 2 <= p.values.length && [...distinct].some((v) => CREDIT_WORDS.test(v))
}

/** Credit notes: a type column with credit words (the other values its bill types), or negative amounts. */
function creditOf(columns: ColumnFinding[], profiles: ColumnProfile[]): CreditFinding | null {
  const marker = columns.findIndex((c) => c.target === 'credit_marker')
  const amounts = columns
    .map((c, i) => ({c, p: profiles[i]!}))
    .filter(({c}) => ['line_amount', 'line_net', 'line_gross', 'unit_price', 'quantity'].includes(c.target ?? ''))
  const negativeTotal = amounts.some(({p}) => p.negatives)
  if (marker === -1 && !negativeTotal) return null
  const distinct = marker === -1 ? [] : [...new Set(profiles[marker]!.values)]
  return {
    column: marker === -1 ? null : columns[marker]!.column,
    values: distinct.filter((v) => CREDIT_WORDS.test(v)),
    bills: distinct.filter((v) => !CREDIT_WORDS.test(v)),
    negativeTotal,
  }
}

/** Vendor and ledger columns holding names or codes rather than bk ids need a lookup file. */
function lookupsOf(columns: ColumnFinding[], profiles: ColumnProfile[]): LookupFinding[] {
  const out: LookupFinding[] = []
  const first = columns.find((c) => c.target === 'vendor_first_name')
  for (const field of ['vendor_id', 'line_ledger_id']) {
    const i = columns.findIndex((c) => c.target === field)
    if (i === -1) continue
    const values = profiles[i]!.values
    if (values.every((v) => v.startsWith(ID_COLUMN_PREFIX[field]!))) continue
    const keyed = field === 'vendor_id' && first !== undefined
    const key = keyed ? [columns[i]!.column, first.column] : [columns[i]!.column]
    if (keyed) Object.assign(columns[i]!, {target: null, why: 'a key of the vendor lookup (lookups: below)'})
    // For a keyed lookup, the distinct first parts: `lookups init` counts the whole keys.
    out.push({field, columns: key, file: FILES[field]!, distinct: new Set(values).size})
  }
  return out
}
