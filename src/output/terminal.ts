/**
 * What bk knows of the terminal it writes to: whether colour is wanted (no-color.org: NO_COLOR
 * set to anything but the empty string turns it off; so does TERM=dumb), its width, and how wide
 * a piece of text shows on it. Text from the service is cleaned of control characters before it
 * reaches a terminal: an escape sequence inside an invoice description must not move the cursor.
 */

/** Colour on this stream: a terminal, and neither NO_COLOR nor TERM=dumb. */
export function colorWanted(stream: {isTTY?: boolean} = process.stdout): boolean {
  if (!stream.isTTY) return false
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '') return false
  return process.env.TERM !== 'dumb'
}

/**
 * The width output must fit: the terminal's, else COLUMNS (a terminal that reports no size, or
 * a user who sets it for a pipe), else none (Infinity: output to a pipe or a file is not cut).
 */
export function terminalWidth(stream: {isTTY?: boolean; columns?: number} = process.stdout): number {
  if (stream.isTTY && stream.columns && stream.columns > 0) return stream.columns
  const fromEnv = Number(process.env.COLUMNS)
  if (Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv
  return stream.isTTY ? 80 : Number.POSITIVE_INFINITY
}

/** The terminal's height in lines, when it reports one (LINES otherwise). */
export function terminalHeight(stream: {isTTY?: boolean; rows?: number} = process.stdout): number | undefined {
  if (stream.isTTY && stream.rows && stream.rows > 0) return stream.rows
  const fromEnv = Number(process.env.LINES)
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : undefined
}

const LINE_BREAKS = /[\t\n\r\v\f\u0085\u2028\u2029]+/g
// C0 and C1 controls and DEL: ESC among them.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g

/** Text safe for one line of a terminal: line breaks and tabs as one space, other controls as `�`. */
export function oneLine(text: string): string {
  return text.replace(LINE_BREAKS, ' ').replace(CONTROLS, '\uFFFD')
}

const COMBINING = /^[\p{Mn}\p{Me}]$/u
/** Code point ranges a terminal shows two columns wide: East Asian wide and full-width forms, emoji. */
const WIDE: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x115f],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe30, 0xfe4f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f300, 0x1f64f],
  [0x1f900, 0x1f9ff],
  [0x20000, 0x3fffd],
]

/** Columns one code point takes: 0 for combining marks and zero-width ones, 2 for wide ones, else 1. */
function charWidth(ch: string): number {
  const code = ch.codePointAt(0) ?? 0
  if (COMBINING.test(ch) || (code >= 0x200b && code <= 0x200f) || (code >= 0xfe00 && code <= 0xfe0f)) return 0
  return WIDE.some(([from, to]) => code >= from && code <= to) ? 2 : 1
}

/** How many terminal columns `text` (one line, no escapes) takes. */
export function displayWidth(text: string): number {
  // ASCII is the common case: one column a character.
  if (/^[\x20-\x7e]*$/.test(text)) return text.length
  let width = 0
  for (const ch of text) width += charWidth(ch)
  return width
}

/** `text` cut to at most `width` columns, ending with `…` when anything was cut. */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text
  if (width <= 0) return ''
  if (width === 1) return '…'
  let out = ''
  let used = 0
  for (const ch of text) {
    const w = charWidth(ch)
    if (used + w > width - 1) break
    out += ch
    used += w
  }
  return out + '…'
}

/** `text` padded with spaces to `width` columns, on the right (`start`) or the left (`end`). */
export function pad(text: string, width: number, align: 'start' | 'end'): string {
  const gap = Math.max(0, width - displayWidth(text))
  return align === 'start' ? text + ' '.repeat(gap) : ' '.repeat(gap) + text
}

/** SGR styles for headers and emphasis: empty strings when colour is off. */
export function styles(color: boolean): {bold: (s: string) => string; dim: (s: string) => string} {
  if (!color) return {bold: (s) => s, dim: (s) => s}
  return {bold: (s) => `\u001B[1m${s}\u001B[22m`, dim: (s) => `\u001B[2m${s}\u001B[22m`}
}

/** `text` broken between words into lines of at most `width` columns (a longer word stays whole). */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(' ')) {
    if (line && displayWidth(`${line} ${word}`) > width) {
      lines.push(line)
      line = word
    } else line = line ? `${line} ${word}` : word
  }
  return [...lines, line]
}
