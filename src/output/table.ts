/**
 * Tables for people: borderless, each column as wide as its content, the whole no wider than the
 * terminal. When the content is too wide, in this order: long text is cut with `…` (down to a
 * few characters), then the columns of lowest priority are dropped, and only then are ids and the
 * rest cut. Amounts and counts are right-aligned, amounts on their decimal point.
 */
import {displayWidth, oneLine, pad, styles, truncate} from './terminal.js'

/**
 * How a table shows a column: `text` is cut first when space runs short; `id` (ids, and codes
 * such as a status) and `date` keep
 * their width until nothing else can give; `amount` and `number` are right-aligned.
 */
export type ColumnKind = 'text' | 'id' | 'date' | 'amount' | 'number'

export interface TableColumn {
  header: string
  kind: ColumnKind
  /** Dropped when the terminal is too narrow, lowest first; undefined: never dropped. */
  priority?: number | undefined
}

export interface TableOptions {
  /** Columns available (Infinity: no limit). */
  width: number
  color: boolean
}

const GAP = 2
/** Text columns give way down to this many columns (or their content's width, if less). */
const TEXT_MIN = 10

/** The table's lines (no trailing newline), or none for no rows. */
export function renderTable(
  columns: readonly TableColumn[],
  rows: readonly string[][],
  options: TableOptions,
): string[] {
  const cells = rows.map((row) => row.map((cell) => oneLine(cell)))
  alignAmounts(columns, cells)
  const natural = columns.map((c, i) => Math.max(displayWidth(c.header), ...cells.map((r) => displayWidth(r[i] ?? ''))))
  const {shown, widths} = layout(columns, natural, options.width)
  const {bold} = styles(options.color)
  const line = (row: readonly string[], style: (s: string) => string = (s) => s) =>
    shown
      .map((col, k) => {
        const width = widths[k] as number
        const text = truncate(row[col] ?? '', width)
        const right = columns[col]?.kind === 'amount' || columns[col]?.kind === 'number'
        // The last column is not padded on the right: no trailing spaces.
        const padded = k === shown.length - 1 && !right ? text : pad(text, width, right ? 'end' : 'start')
        return style(padded)
      })
      .join(' '.repeat(GAP))
      .trimEnd()
  return [
    line(
      columns.map((c) => c.header),
      bold,
    ),
    ...cells.map((row) => line(row)),
  ]
}

/** Pads each amount on the right so that the decimal points of a column line up. */
function alignAmounts(columns: readonly TableColumn[], cells: string[][]): void {
  columns.forEach((column, i) => {
    if (column.kind !== 'amount') return
    const fraction = (text: string) => {
      const dot = text.indexOf('.')
      return /^-?\d+(\.\d+)?$/.test(text) ? (dot === -1 ? 0 : text.length - dot) : -1
    }
    const widest = Math.max(0, ...cells.map((r) => fraction(r[i] ?? '')))
    for (const row of cells) {
      const f = fraction(row[i] ?? '')
      if (f >= 0 && f < widest) row[i] = (row[i] ?? '') + ' '.repeat(widest - f)
    }
  })
}

/**
 * Which columns are shown, and how wide: natural widths if they fit; else text cut down to
 * TEXT_MIN; else the lowest-priority column dropped and the same again; else everything cut,
 * amounts last.
 */
export function layout(
  columns: readonly TableColumn[],
  natural: readonly number[],
  width: number,
): {shown: number[]; widths: number[]} {
  let shown = columns.map((_, i) => i)
  const total = (widths: number[]) => widths.reduce((a, b) => a + b, 0) + GAP * Math.max(0, widths.length - 1)
  for (;;) {
    const widths = shown.map((i) => natural[i] as number)
    if (total(widths) <= width) return {shown, widths}
    shrink(widths, width, (k) => {
      const col = columns[shown[k] as number]
      return col?.kind === 'text' ? Math.min(natural[shown[k] as number] as number, TEXT_MIN) : undefined
    })
    if (total(widths) <= width) return {shown, widths}
    const droppable = shown.filter((i) => columns[i]?.priority !== undefined)
    if (droppable.length === 0) break
    const lowest = droppable.reduce((a, b) => ((columns[b]?.priority ?? 0) < (columns[a]?.priority ?? 0) ? b : a))
    shown = shown.filter((i) => i !== lowest)
  }
  const widths = shown.map((i) => natural[i] as number)
  // Everything gives way now: text first, then ids and dates, amounts last; one column at least.
  for (const kinds of [['text'], ['text', 'id', 'date', 'number'], ['text', 'id', 'date', 'number', 'amount']]) {
    shrink(widths, width, (k) => (kinds.includes(columns[shown[k] as number]?.kind ?? 'text') ? 1 : undefined))
    if (total(widths) <= width) return {shown, widths}
  }
  while (shown.length > 1 && total(widths) > width) {
    shown = shown.slice(0, -1)
    widths.pop()
  }
  widths[0] = Math.max(1, Math.min(widths[0] as number, width))
  return {shown, widths}
}

/** Narrows the widest columns that may give (down to `floor(k)`) until the total fits or none can. */
function shrink(widths: number[], width: number, floor: (k: number) => number | undefined): void {
  const over = () => widths.reduce((a, b) => a + b, 0) + GAP * Math.max(0, widths.length - 1) - width
  let excess = over()
  while (excess > 0) {
    let widest = -1
    for (let k = 0; k < widths.length; k++) {
      const min = floor(k)
      if (min === undefined || (widths[k] as number) <= min) continue
      if (widest === -1 || (widths[k] as number) > (widths[widest] as number)) widest = k
    }
    if (widest === -1) return
    widths[widest] = (widths[widest] as number) - 1
    excess--
  }
}
