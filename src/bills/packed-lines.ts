/**
 * A bill per row, its lines packed in cells (`packed_lines:`, Manager.io's batch update): each
 * packed cell holds one value per line, one per line of the cell, and every packed cell of a row
 * that is not blank holds the same count. The row becomes one row per line, the bill's cells
 * repeated on each. Or (`packed_lines: {numbered: ["Line {n} Amount", ...]}`) a group of columns
 * per line, numbered in the header: each group holding a value is one line, under the pattern's name.
 */
import {InputError} from '../shared/errors.js'
import {headerKey} from './columns.js'
import type {FlatRow, Flattened, ReadRecord, RowOrigin} from './record-structure.js'
import {counted} from '../shared/counts.js'

const CELL_LINES = /\r\n|\n|\r/

export function unpackLines(
  label: string,
  records: ReadRecord[],
  packed: string[],
  aliasOf: Map<string, string>,
): Flattened {
  const [header, ...rows] = records as [ReadRecord, ...ReadRecord[]]
  const wanted = new Set(packed)
  const at = header.cells.flatMap((h, i) => {
    const k = headerKey(h)
    return wanted.has(k) || wanted.has(aliasOf.get(k) ?? '') ? [i] : []
  })
  if (at.length === 0)
    throw new InputError(
      `${label}:${header.line}: none of the packed columns of the map (packed_lines:) is in the header`,
      {hint: `The header has: ${header.cells.join(', ')}.`},
    )
  return {header, bills: rows.map((row) => unpackRow(label, header, row, at)), readHeader: [header]}
}

function unpackRow(label: string, header: ReadRecord, row: ReadRecord, at: number[]): FlatRow[] {
  const parts = new Map<number, string[]>()
  for (const i of at) {
    const cell = row.cells[i] ?? ''
    if (cell.trim() !== '') parts.set(i, cell.split(CELL_LINES))
  }
  // A cell may end with a line break (a spreadsheet's habit) or hold a blank last line: its count
  // is the other cells' count, with or without its empty last part.
  const stripped = (values: string[]) =>
    values.length > 1 && values[values.length - 1] === '' ? values.length - 1 : values.length
  let count = 0
  let widest = -1
  for (const [i, values] of parts) if (stripped(values) > count) [count, widest] = [stripped(values), i]
  for (const [i, values] of parts) {
    if (values.length === count) continue
    if (stripped(values) === count) {
      values.pop()
      continue
    }
    throw new InputError(
      `${label}:${row.line}: column ${header.cells[i]} holds ${counted(stripped(values), 'line')} (${JSON.stringify(row.cells[i])}), but column ${header.cells[widest]} holds ${count}`,
      {
        hint: 'Each packed cell of a row holds one value per line of the bill, one per line of the cell: the same count in each (or none).',
      },
    )
  }
  const origin = asRead(row, header)
  if (count <= 1) return [{line: row.line, cells: row.cells.map((c, i) => parts.get(i)?.[0] ?? c), origin}]
  return Array.from({length: count}, (_, n) => ({
    line: row.line,
    cells: row.cells.map((c, i) => (at.includes(i) ? (parts.get(i)?.[n] ?? '') : c)),
    origin,
  }))
}

/** A bill of one row: that row, as read, is what its side files hold. */
function asRead(row: ReadRecord, header: ReadRecord): RowOrigin {
  return {records: [{...row, width: header.cells.length}]}
}

/** Numbered column groups (`Line 1 Amount`, `Line 2 Amount` …): one row per group that holds a value. */
export function numberedLines(label: string, records: ReadRecord[], patterns: string[]): Flattened {
  const [header, ...rows] = records as [ReadRecord, ...ReadRecord[]]
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const matchers = patterns.map((p) => new RegExp(`^${headerKey(p).split('{n}').map(escape).join('(\\d+)')}$`))
  // Line number -> the index of each pattern's column in that group.
  const groups = new Map<number, number[]>()
  const single: number[] = []
  header.cells.forEach((h, i) => {
    const key = headerKey(h)
    const which = matchers.findIndex((m) => m.test(key))
    if (which === -1) return single.push(i)
    const n = Number(matchers[which]!.exec(key)![1])
    const group = groups.get(n) ?? patterns.map(() => -1)
    group[which] = i
    groups.set(n, group)
  })
  if (groups.size === 0)
    throw new InputError(
      `${label}:${header.line}: no column of the header is one of the numbered groups (packed_lines.numbered)`,
      {
        hint: `The map's groups: ${patterns.join(', ')}; the header has: ${header.cells.join(', ')}.`,
      },
    )
  const numbers = [...groups.keys()].sort((a, b) => a - b)
  const out = {line: header.line, cells: [...single.map((i) => header.cells[i]!), ...patterns]}
  const bills = rows.map((row) => {
    const own = single.map((i) => row.cells[i] ?? '')
    const lines = numbers
      .map((n) => groups.get(n)!.map((i) => (i === -1 ? '' : (row.cells[i] ?? ''))))
      .filter((cells) => cells.some((c) => c.trim() !== ''))
    const origin = asRead(row, header)
    return (lines.length > 0 ? lines : [patterns.map(() => '')]).map((cells) => ({
      line: row.line,
      cells: [...own, ...cells],
      origin,
    }))
  })
  return {header: out, bills, readHeader: [header]}
}
