/**
 * The translator's part of the map language: `compute:` rules compiled against the file's
 * columns, metadata keys (`line_metadata:KEY`, `metadata:KEY`) gathered into the row's JSON
 * object, lookups keyed by several columns, and the guard that no column declared or named as a
 * quantity, a discount or a tax amount is dropped while the line amount is computed.
 */
import {InputError} from '../shared/errors.js'
import type {Money} from '../shared/money.js'
import {compileExpression, columnsOf, isoDate, RowFailure, type Compiled, type Type} from './expression/compile.js'
import {minorUnit, roundMoney, type Parsed} from './formats.js'
import {lookUpKey, type Lookup, type Lookups} from './lookups.js'
import type {BillMap} from './map-file.js'

export {RowFailure}

/** One computed value: where it goes in the translated row, or which metadata key it fills. */
export interface ComputedStep {
  target: string
  type: Type
  run: Compiled
  /** The file's columns it reads. */
  reads: number[]
  /** A bill-level value: rows that leave all its columns blank (continuation rows) compute nothing. */
  billLevel: boolean
}

/** A lookup keyed by several columns of the row. */
export interface KeyedLookup {
  target: string
  lookup: Lookup
  columns: number[]
}

const BILL_LEVEL = /^(business_id|number|vendor_id|description|issued_at|due_at|currency|metadata(:.*)?|tag:.*)$/
const QUANTITY_HEADER = /^\W*(qty|quantity)\b/i
// A cash discount for early payment (Skonto) changes the payment, not the bill: not listed.
const DISCOUNT_HEADER = /discount|\bdisc\b|rabatt/i
const TAX_AMOUNT_HEADER = /(tax|vat|gst)\s*(amount|amt)/i
/** Source columns that change an amount: declared in a map, each must be read by the amount it changes. */
const AMOUNT_CHANGING = ['quantity', 'discount', 'line_tax'] as const

export interface ComputeContext {
  labels: string[]
  /** The index of a column the map names (header or position), or undefined. */
  column(name: string): number | undefined
  number(text: string, column: number): Parsed<string>
  date(text: string): Parsed<string>
  currency: string | undefined
}

/** Compiles the map's `compute:` rules once for this file. */
export function compileComputed(map: BillMap, context: ComputeContext): ComputedStep[] {
  const places = context.currency ? minorUnit(context.currency) : 2
  return map.compute.map(({target, expression}) => {
    const type: Type =
      target === 'line_amount' ? 'number' : target === 'issued_at' || target === 'due_at' ? 'date' : 'text'
    const run = compileExpression(expression, type, {...context, places})
    const reads = columnsOf(expression.ast).map((c) => context.column(c.name)!)
    return {target, type, run, reads, billLevel: BILL_LEVEL.test(target)}
  })
}

/** A computed value as the text of bk's column; line amounts rounded half away from zero to the currency's minor unit. */
export function computedText(step: ComputedStep, value: unknown, currency: string | undefined): string {
  if (step.type === 'date') return isoDate(value as number)
  if (typeof value === 'string') return value
  const n = value as Money
  if (step.target !== 'line_amount') return n.toFixed()
  const places = currency ? minorUnit(currency) : 2
  return (n.decimalPlaces() <= places ? n : roundMoney(n, places)).toFixed()
}

/** The lookups the map keys by several columns, resolved against the file. */
export function keyedLookups(
  map: BillMap,
  lookups: Lookups,
  context: ComputeContext,
  fileLabel: string,
): KeyedLookup[] {
  const out: KeyedLookup[] = []
  for (const [target, key] of map.lookupKeys) {
    const lookup = lookups.get(target)
    if (!lookup)
      throw new InputError(
        `${map.source}: lookups: ${target} is keyed by ${key.map((k) => `"${k}"`).join(', ')}, but no --lookup ${target}=FILE.csv is given`,
        {
          hint: `Pass --lookup ${target}=FILE.csv, a CSV whose columns are ${key.join(', ')}, then the id.`,
        },
      )
    const columns = key.map((name) => {
      const i = context.column(name)
      if (i === undefined)
        throw new InputError(`${map.source}: lookups: ${target}: "${name}" is not a column of ${fileLabel}`)
      return i
    })
    out.push({target, lookup, columns})
  }
  return out
}

/** The row's value for a keyed lookup, or undefined when the lookup file lacks it. */
export function lookUpRow(step: KeyedLookup, cells: readonly string[]): {key: string[]; value: string | undefined} {
  const key = step.columns.map((i) => (cells[i] ?? '').trim())
  return {key, value: lookUpKey(step.lookup, key)}
}

/**
 * Refuses a map that computes the line amount while dropping a column that changes it: a column
 * it declares as a quantity, a discount or a tax amount that no computation reads, or a dropped
 * column whose header says it is one. Tax codes (names of rates) are not amounts.
 */
export function guardAmountColumns(
  map: BillMap,
  targets: ReadonlyArray<string | null>,
  labels: string[],
  header: boolean,
  amountReads: ReadonlySet<number> | undefined,
  used: ReadonlySet<number>,
): void {
  if (amountReads === undefined) return
  targets.forEach((t, i) => {
    const label = labels[i]!
    if (t !== null && (AMOUNT_CHANGING as readonly string[]).includes(t) && !amountReads.has(i)) {
      throw new InputError(
        `${map.source}: "${label}" is declared as ${t}, but the line amount does not read it: a line would be sent without it`,
        {hint: `Use [${label}] in compute: line_amount (docs/bills.md "The map language").`},
      )
    }
    if (t !== null || !header || amountReads.has(i) || used.has(i)) return
    const meaning = QUANTITY_HEADER.test(label)
      ? 'a quantity'
      : DISCOUNT_HEADER.test(label)
        ? 'a discount'
        : TAX_AMOUNT_HEADER.test(label)
          ? 'a tax amount'
          : undefined
    if (!meaning) return
    throw new InputError(
      `${map.source}: "${label}" (${meaning}) is dropped${map.ignoreAllOthers ? ' (ignore: all-others)' : ''} while the line amount is computed: a line would be sent without it`,
      {
        hint: `Use [${label}] in compute: line_amount, e.g. line_amount: "[Quantity] * [Unit Price] * (1 - [${label}] / 100)"; or keep it as line_metadata:${label.replace(/\W+/g, '_').replace(/^_|_$/g, '').toLowerCase()} if it truly does not change the amount.`,
      },
    )
  })
}

/** Throws when a computed value also comes from a column: one way to each value. */
export function checkComputeTargets(map: BillMap, fedBy: ReadonlyMap<string, number>, labels: string[]): void {
  for (const {target} of map.compute) {
    const column = fedBy.get(target)
    if (column !== undefined)
      throw new InputError(
        `${map.source}: ${target} is computed and also fed by the column "${labels[column]}": keep one`,
      )
    if (map.lookupKeys.has(target))
      throw new InputError(`${map.source}: ${target} is computed and also looked up (lookups:): keep one`)
  }
  for (const target of map.lookupKeys.keys()) {
    const column = fedBy.get(target)
    if (column !== undefined)
      throw new InputError(
        `${map.source}: ${target} is looked up by several columns (lookups:) and also fed by "${labels[column]}": keep one`,
      )
  }
}
