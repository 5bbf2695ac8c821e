/**
 * The map language's expressions (`compute:` in a map, docs/bills.md "The map language"), parsed
 * once when the map is read and compiled once per file into closures over decimal.js values: a row
 * costs a call, never a parse, and nothing is ever run through `eval` or `Function`.
 *
 * Types are decided at compile time, from the target and the operators: a column in brackets is
 * read as a number in arithmetic, as a date beside `days()`, and as text elsewhere. A mistake of
 * the map is an InputError naming the map's line and column; a cell that does not read as its
 * type is a `RowFailure` naming the column and the value.
 */
import {InputError} from '../../shared/errors.js'
import {Decimal, type Money} from '../../shared/money.js'
import {roundMoney, type Parsed, type ParsedNumber} from '../formats.js'
import * as generated from './parser.generated.js'

export type Node =
  | {type: 'number'; value: string; at: number}
  | {type: 'text'; value: string; at: number}
  | {type: 'column'; name: string; at: number}
  | {type: 'negate'; operand: Node; at: number}
  | {type: 'binary'; op: string; left: Node; right: Node; at: number}
  | {type: 'call'; name: string; args: Node[]; at: number}

/** What an expression yields: a number, a text, a date (whole days since 1970-01-01), a truth, or a count of days. */
export type Type = 'number' | 'text' | 'date' | 'bool' | 'days'
type Value = Money | string | number | boolean
/** A compiled expression: the row's cells in, a value of its type out. */
export type Compiled<T = Value> = (cells: readonly string[]) => T

/** An expression of the map, parsed, with the means to name a place in it. */
export interface ParsedExpression {
  text: string
  ast: Node
  /** `map.yaml:LINE:COLUMN` of an offset in the expression. */
  where: (offset: number) => string
}

/** A cell that does not read as what the expression needs: the row's error, naming the column. */
export class RowFailure extends Error {
  constructor(
    readonly column: number | undefined,
    readonly value: string,
    message: string,
  ) {
    super(message)
  }
}

/** What compiling needs from the file: its columns, and how it writes numbers and dates. */
export interface ExpressionContext {
  /** The index of a column named in brackets (a header, or a position when the file has none). */
  column(name: string): number | undefined
  /** A cell as a number; `column` is where it was read (a currency mark there is checked against the bill's). */
  number(text: string, column: number): ParsedNumber
  /** A date as the spec's UTC midnight datetime. */
  date(text: string): Parsed<string>
  /** Decimals of the currency's minor unit, for `round(x)` without places. */
  places: number
}

export const FUNCTIONS = ['if', 'days', 'eom', 'day', 'round', 'text', 'blank', 'and', 'or', 'not'] as const

/** Parses an expression; a syntax error names the map's line and column. */
export function parseExpression(text: string, where: (offset: number) => string): ParsedExpression {
  try {
    return {text, ast: (generated.parse as (input: string) => Node)(text), where}
  } catch (error) {
    if (!(error instanceof (generated.SyntaxError as unknown as typeof Error))) throw error
    const e = error as unknown as Error & {location: {start: {offset: number}}}
    throw new InputError(`${where(e.location.start.offset)}: ${e.message} in "${text}"`, {
      hint: 'Columns go in brackets ([Unit Price]), texts in double quotes, functions are if, days, eom, day, round, text, blank, and, or, not (docs/bills.md "The map language").',
    })
  }
}

/** Every column an expression names, with where it names it. */
export function columnsOf(node: Node, out: Array<{name: string; at: number}> = []): Array<{name: string; at: number}> {
  switch (node.type) {
    case 'column':
      out.push({name: node.name, at: node.at})
      break
    case 'negate':
      columnsOf(node.operand, out)
      break
    case 'binary':
      columnsOf(node.left, out)
      columnsOf(node.right, out)
      break
    case 'call':
      for (const a of node.args) columnsOf(a, out)
      break
    default:
      break
  }
  return out
}

const DESCRIBE: Record<Type, string> = {
  number: 'a number',
  text: 'a text',
  date: 'a date',
  bool: 'a condition (true or false)',
  days: 'a count of days',
}
const COMPARISONS = new Set(['=', '<>', '<', '>', '<=', '>='])
const DAY_MS = 86_400_000

/** Compiles a parsed expression for a value of type `want`, against a file's columns. */
export function compileExpression(parsed: ParsedExpression, want: Type, context: ExpressionContext): Compiled {
  return new Compiler(parsed, context).compile(parsed.ast, want)
}

class Compiler {
  constructor(
    private readonly parsed: ParsedExpression,
    private readonly context: ExpressionContext,
  ) {}

  private fail(node: Node, message: string): never {
    throw new InputError(`${this.parsed.where(node.at)}: ${message} (in "${this.parsed.text}")`, {
      hint: 'docs/bills.md "The map language" lists what each operator and function takes.',
    })
  }

  /** The type a node has whatever its context, or undefined for a bare column (its context decides). */
  infer(node: Node): Type | undefined {
    switch (node.type) {
      case 'number':
      case 'negate':
        return 'number'
      case 'text':
        return 'text'
      case 'column':
        return undefined
      case 'binary':
        if (COMPARISONS.has(node.op)) return 'bool'
        if (node.op === '&') return 'text'
        if (node.op === '+' || node.op === '-')
          return this.infer(node.left) === 'days' || this.infer(node.right) === 'days' ? 'date' : 'number'
        return 'number'
      case 'call':
        switch (node.name) {
          case 'if':
            return (node.args[1] && this.infer(node.args[1])) ?? (node.args[2] && this.infer(node.args[2]))
          case 'days':
            return 'days'
          case 'eom':
            return 'date'
          case 'day':
            return 'number'
          case 'round':
            return 'number'
          case 'text':
            return 'text'
          default:
            return 'bool'
        }
    }
  }

  compile(node: Node, want: Type): Compiled {
    const has = this.infer(node)
    if (has !== undefined && has !== want) {
      if (want === 'text' && (has === 'number' || has === 'date')) return this.asText(this.compile(node, has), has)
      this.fail(node, `expected ${DESCRIBE[want]}, but this is ${DESCRIBE[has]}`)
    }
    switch (node.type) {
      case 'number': {
        const value = new Decimal(node.value)
        return () => value
      }
      case 'text': {
        const value = node.value
        return () => value
      }
      case 'column':
        return this.column(node, want)
      case 'negate': {
        const operand = this.compile(node.operand, 'number') as Compiled<Money>
        return (cells) => operand(cells).neg()
      }
      case 'binary':
        return this.binary(node as Extract<Node, {type: 'binary'}>, want)
      case 'call':
        return this.call(node as Extract<Node, {type: 'call'}>, want)
    }
  }

  private asText(inner: Compiled, type: Type): Compiled<string> {
    if (type === 'number') return (cells) => (inner(cells) as Money).toFixed()
    return (cells) => new Date((inner(cells) as number) * DAY_MS).toISOString().slice(0, 10)
  }

  private column(node: Extract<Node, {type: 'column'}>, want: Type): Compiled {
    const index = this.context.column(node.name)
    if (index === undefined) this.fail(node, `[${node.name}] is not a column of the file`)
    const {context} = this
    switch (want) {
      case 'text':
        return (cells) => (cells[index] ?? '').trim()
      case 'number': {
        // Exports repeat a column's value from row to row (a quantity of 1, a tax of 0.00): the
        // last cell read and its Decimal are kept, so that a repeat costs a comparison. A cell
        // with a currency mark is read every time: reading it records the mark for its check.
        let lastText: string | undefined
        let lastValue: Money | undefined
        return (cells) => {
          const text = cells[index] ?? ''
          if (text === lastText) return lastValue!
          if (text.trim() === '')
            throw new RowFailure(
              index,
              text,
              `is empty: expected a number (write if(blank([${node.name}]), 0, [${node.name}]) to read a blank as 0)`,
            )
          const n = context.number(text, index)
          if (!n.ok) throw new RowFailure(index, text, n.reason)
          const value = new Decimal(n.value)
          if (n.mark === undefined) {
            lastText = text
            lastValue = value
          }
          return value
        }
      }
      case 'date':
        return (cells) => {
          const text = cells[index] ?? ''
          const d = text.trim() === '' ? {ok: false as const, reason: 'is empty: expected a date'} : context.date(text)
          if (!d.ok) throw new RowFailure(index, text, d.reason)
          return Date.parse(d.value) / DAY_MS
        }
      default:
        return this.fail(node, `[${node.name}] is a cell, not ${DESCRIBE[want]}: compare it (=) or pass it to blank()`)
    }
  }

  private binary(node: Extract<Node, {type: 'binary'}>, want: Type): Compiled {
    const {op} = node
    if (COMPARISONS.has(op)) return this.comparison(node)
    if (op === '&') {
      const left = this.compile(node.left, 'text') as Compiled<string>
      const right = this.compile(node.right, 'text') as Compiled<string>
      return (cells) => left(cells) + right(cells)
    }
    if (want === 'date') {
      const leftDays = this.infer(node.left) === 'days'
      if (leftDays && op === '-') this.fail(node, 'a date minus days is written [Date] - days(n), the date first')
      const date = this.compile(leftDays ? node.right : node.left, 'date') as Compiled<number>
      const days = this.compile(leftDays ? node.left : node.right, 'days') as Compiled<number>
      const sign = op === '-' ? -1 : 1
      return (cells) => date(cells) + sign * days(cells)
    }
    const left = this.compile(node.left, 'number') as Compiled<Money>
    const right = this.compile(node.right, 'number') as Compiled<Money>
    switch (op) {
      case '+':
        return (cells) => left(cells).plus(right(cells))
      case '-':
        return (cells) => left(cells).minus(right(cells))
      case '*':
        return (cells) => left(cells).times(right(cells))
      default:
        return (cells) => {
          const divisor = right(cells)
          if (divisor.isZero()) throw new RowFailure(undefined, '0', `divides by zero in "${this.parsed.text}"`)
          return left(cells).dividedBy(divisor)
        }
    }
  }

  /** `=` and `<>` compare texts (ignoring case, as a spreadsheet does), numbers or dates; `<` and `>` numbers or dates. */
  private comparison(node: Extract<Node, {type: 'binary'}>): Compiled<boolean> {
    const ordered = node.op !== '=' && node.op !== '<>'
    // Two cells compared: `=` compares their text, `<` and `>` their numbers.
    const type = this.infer(node.left) ?? this.infer(node.right) ?? (ordered ? 'number' : 'text')
    if (type === 'bool' || type === 'days') this.fail(node, `cannot compare ${DESCRIBE[type]}`)
    if (ordered && type === 'text') this.fail(node, `${node.op} compares numbers or dates, not texts`)
    const left = this.compile(node.left, type)
    const right = this.compile(node.right, type)
    const order: (cells: readonly string[]) => number =
      type === 'text'
        ? (cells) => {
            const a = (left(cells) as string).toLowerCase()
            const b = (right(cells) as string).toLowerCase()
            return a === b ? 0 : a < b ? -1 : 1
          }
        : type === 'number'
          ? (cells) => (left(cells) as Money).comparedTo(right(cells) as Money)
          : (cells) => Math.sign((left(cells) as number) - (right(cells) as number))
    switch (node.op) {
      case '=':
        return (cells) => order(cells) === 0
      case '<>':
        return (cells) => order(cells) !== 0
      case '<':
        return (cells) => order(cells) < 0
      case '>':
        return (cells) => order(cells) > 0
      case '<=':
        return (cells) => order(cells) <= 0
      default:
        return (cells) => order(cells) >= 0
    }
  }

  private call(node: Extract<Node, {type: 'call'}>, want: Type): Compiled {
    const {args} = node
    const arity = (min: number, max = min) => {
      if (args.length < min || args.length > max)
        this.fail(
          node,
          `${node.name}() takes ${min === max ? min : `${min} to ${max}`} argument${max === 1 ? '' : 's'}, not ${args.length}`,
        )
    }
    switch (node.name) {
      case 'if': {
        arity(3)
        const test = this.compile(args[0]!, 'bool') as Compiled<boolean>
        const then = this.compile(args[1]!, want)
        const otherwise = this.compile(args[2]!, want)
        return (cells) => (test(cells) ? then(cells) : otherwise(cells))
      }
      case 'days': {
        arity(1)
        const n = this.compile(args[0]!, 'number') as Compiled<Money>
        return (cells) => {
          const d = n(cells)
          if (!d.isInteger()) throw new RowFailure(undefined, d.toFixed(), 'is not a whole number of days')
          return d.toNumber()
        }
      }
      case 'eom': {
        // The month's last day: terms counted from the end of the month (MYOB's "after EOM").
        arity(1)
        const date = this.compile(args[0]!, 'date') as Compiled<number>
        return (cells) => {
          const d = new Date(date(cells) * DAY_MS)
          return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0) / DAY_MS
        }
      }
      case 'day': {
        // The day of the month (1 to 31): terms due on a day of the month.
        arity(1)
        const date = this.compile(args[0]!, 'date') as Compiled<number>
        return (cells) => new Decimal(new Date(date(cells) * DAY_MS).getUTCDate())
      }
      case 'round': {
        arity(1, 2)
        const x = this.compile(args[0]!, 'number') as Compiled<Money>
        const placesNode = args[1]
        if (placesNode && (placesNode.type !== 'number' || !/^\d{1,2}$/.test(placesNode.value)))
          this.fail(placesNode, 'round() takes a whole number of decimal places, written as a number (round([X], 2))')
        const places = placesNode ? Number((placesNode as {value: string}).value) : this.context.places
        return (cells) => roundMoney(x(cells), places)
      }
      case 'text': {
        if (args.length === 0) this.fail(node, 'text() takes one argument or more')
        const parts = args.map((a) => this.compile(a, 'text') as Compiled<string>)
        return (cells) => parts.map((p) => p(cells)).join('')
      }
      case 'blank': {
        arity(1)
        const column = args[0]!
        if (column.type !== 'column') this.fail(column, 'blank() takes a column in brackets: blank([Discount])')
        const read = this.column(column, 'text') as Compiled<string>
        return (cells) => read(cells) === ''
      }
      case 'and':
      case 'or': {
        if (args.length === 0) this.fail(node, `${node.name}() takes one condition or more`)
        const parts = args.map((a) => this.compile(a, 'bool') as Compiled<boolean>)
        return node.name === 'and' ? (cells) => parts.every((p) => p(cells)) : (cells) => parts.some((p) => p(cells))
      }
      case 'not': {
        arity(1)
        const inner = this.compile(args[0]!, 'bool') as Compiled<boolean>
        return (cells) => !inner(cells)
      }
      default:
        return this.fail(node, `unknown function ${node.name}(): expected one of ${FUNCTIONS.join(', ')}`)
    }
  }
}

/** A compiled date (whole days since 1970-01-01) as the spec's UTC midnight datetime. */
export function isoDate(days: number): string {
  return new Date(days * DAY_MS).toISOString().replace('.000Z', 'Z')
}
