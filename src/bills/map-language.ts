/**
 * The map language's keys (docs/bills.md "The map language"): computed values (`compute:`),
 * lookups keyed by several columns, the file's structure (lines before the header, a year read
 * from the preamble, rows to skip, continuation rows) and `ignore: all-others`. map-file.ts checks
 * the rest of a map and adds these keys to it from here.
 */
import {z} from 'zod'

import {InputError} from '../shared/errors.js'
import {KNOWN_COLUMNS} from './columns.js'
import {parseExpression, type ParsedExpression} from './expression/compile.js'
import {datePattern, type YearSource} from './formats.js'

const names = z.array(z.string({error: 'expected a text'})).min(1)
const columnValues = (what: string) =>
  z.object({column: z.string().min(1), values: names}, {error: `expected {column, values}: ${what}`}).strict()

/** The schema of the map language's keys, spread into the map's schema. */
export const MAP_LANGUAGE_KEYS = {
  compute: z
    .record(z.string(), z.string({error: 'expected an expression, such as "[Quantity] * [Unit Price]"'}))
    .optional(),
  lookups: z
    .record(z.string(), z.object({key: names}, {error: 'expected {key: [column, column, ...]}'}).strict())
    .optional(),
  skip_lines: z.number().int().min(0).max(1000).optional(),
  year_from: z
    .object(
      {
        line: z.number().int().min(1),
        field: z.number().int().min(1),
        pattern: z.string().optional(),
        fiscal_year_start: z.boolean().optional(),
      },
      {error: 'expected {line, field, pattern, fiscal_year_start}'},
    )
    .strict()
    .optional(),
  skip: columnValues('rows whose column holds one of the values are dropped').optional(),
  continuation: columnValues('rows whose column holds one of the values continue the bill above').optional(),
}

/** A value computed from the row's cells: bk's column, a tag, or one key of a metadata object. */
export interface ComputeRule {
  target: string
  expression: ParsedExpression
}

export interface MapLanguage {
  compute: ComputeRule[]
  /** Lookups keyed by several columns: the field, and its key columns in the lookup file's order. */
  lookupKeys: Map<string, string[]>
  /** Lines before the header row (a preamble). */
  skipLines: number
  /** Where a date pattern without a year takes it: a field of a preamble line. */
  yearFrom?: {line: number; field: number; pattern: string; fiscalYearStart: boolean} | undefined
  skip?: {column: string; values: string[]} | undefined
  continuation?: {column: string; values: string[]} | undefined
  /** `ignore: all-others`: a column the map does not name is dropped, not refused. */
  ignoreAllOthers: boolean
  /** The year of dates written without one, from `--year` (beats `yearFrom`). */
  year?: YearSource | undefined
}

/** Targets of a column or a computed value beyond bk's columns: one key of the bill's or a line's metadata. */
export const METADATA_TARGET = /^(line_)?metadata:\s*\S/i

/** Whether a computed value has somewhere to go: bk's column, a tag or a metadata key. */
function computable(target: string): boolean {
  return KNOWN_COLUMNS.includes(target) || /^tag:\S/.test(target) || /^(line_)?metadata:\S/.test(target)
}

export function canonicalTarget(to: string): string {
  const t = to.trim()
  const prefixed = /^(tag|line_metadata|metadata):\s*(.*)$/i.exec(t)
  if (prefixed) return `${prefixed[1]!.toLowerCase()}:${prefixed[2]!.trim()}`
  return t.toLowerCase()
}

type Document = {getIn(path: unknown[], keepScalar: true): unknown}
type MapKeys = {[K in keyof typeof MAP_LANGUAGE_KEYS]?: z.infer<(typeof MAP_LANGUAGE_KEYS)[K]>} & {ignore?: unknown}

/** The map language's keys of a checked map; `where` names an offset of the map's text. */
export function mapLanguage(m: MapKeys, where: (offset: number | undefined) => string, doc: Document): MapLanguage {
  const node = (path: unknown[]) =>
    doc.getIn(path, true) as {range?: [number, number, number]; type?: string; source?: string} | undefined
  const at = (path: unknown[]) => where(node(path)?.range?.[0])
  const compute: ComputeRule[] = []
  for (const [rawTarget, text] of Object.entries(m.compute ?? {})) {
    const target = canonicalTarget(rawTarget)
    if (!computable(target)) {
      throw new InputError(`${at(['compute'])}: compute: "${rawTarget}" has nowhere to go`, {
        hint: `A computed value goes to one of bk's columns (${KNOWN_COLUMNS.join(', ')}), tag:<field>, metadata:<key> or line_metadata:<key>.`,
      })
    }
    const scalar = node(['compute', rawTarget])
    const start = scalar?.range?.[0]
    const quoted = scalar?.type === 'QUOTE_DOUBLE' || scalar?.type === 'QUOTE_SINGLE' ? 1 : 0
    // Offsets inside the expression map to the map's text; exact for plain and quoted one-line values.
    const expressionWhere = (offset: number) => where(start === undefined ? undefined : start + quoted + offset)
    compute.push({target, expression: parseExpression(text, expressionWhere)})
  }
  const lookupKeys = new Map<string, string[]>()
  for (const [field, {key}] of Object.entries(m.lookups ?? {})) {
    lookupKeys.set(
      canonicalTarget(field),
      key.map((k) => k.trim()),
    )
  }
  let yearFrom: MapLanguage['yearFrom']
  if (m.year_from) {
    const pattern = m.year_from.pattern ?? 'YYYY'
    if (pattern !== 'YYYY') {
      const shape = datePattern(pattern)
      if (typeof shape === 'string') throw new InputError(`${at(['year_from', 'pattern'])}: ${shape}`)
    }
    if (m.year_from.line > (m.skip_lines ?? 0))
      throw new InputError(
        `${at(['year_from', 'line'])}: year_from reads line ${m.year_from.line}, but skip_lines is ${m.skip_lines ?? 0}: the preamble is the lines before the header`,
      )
    yearFrom = {...m.year_from, pattern, fiscalYearStart: m.year_from.fiscal_year_start ?? false}
  }
  const trimmed = (c?: {column: string; values: string[]}) =>
    c && {column: c.column.trim(), values: c.values.map((v) => v.trim())}
  return {
    compute,
    lookupKeys,
    skipLines: m.skip_lines ?? 0,
    yearFrom,
    skip: trimmed(m.skip),
    continuation: trimmed(m.continuation),
    ignoreAllOthers: m.ignore === 'all-others',
  }
}
