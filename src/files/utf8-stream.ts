/**
 * UTF-8 text read piece by piece (journal-entry files of any size): each piece is cut at the
 * last whole character, checked, and decoded; the first bytes that are not UTF-8 are named by
 * line and column in the whole file, as decodeUtf8 names them in a file read whole.
 */
import {isUtf8} from 'node:buffer'

import {decodeUtf8} from '../shared/utf8.js'

export async function* decodeUtf8Pieces(pieces: AsyncIterable<Buffer>, label: string): AsyncGenerator<string> {
  let carry: Buffer | undefined
  let line = 1
  let column = 1
  let first = true
  const decode = (bytes: Buffer): string => {
    if (!isUtf8(bytes)) decodeUtf8(bytes, label, {line, column}) // throws, naming the place
    let text = bytes.toString('utf8')
    // A byte order mark is no part of the text (TextDecoder drops it the same way).
    if (first && text.startsWith('\uFEFF')) text = text.slice(1)
    first = false
    const lastNewline = text.lastIndexOf('\n')
    if (lastNewline < 0) column += text.length
    else {
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) line++
      column = text.length - lastNewline
    }
    return text
  }
  for await (const piece of pieces) {
    const bytes = carry ? Buffer.concat([carry, piece]) : piece
    const whole = wholeCharacters(bytes)
    carry = whole < bytes.length ? Buffer.from(bytes.subarray(whole)) : undefined
    if (whole > 0) yield decode(bytes.subarray(0, whole))
  }
  if (carry) yield decode(carry) // a character cut off by the end of the file: not UTF-8
}

/** How many bytes of `b` end on a character boundary (a sequence cut at the end is left out). */
function wholeCharacters(b: Buffer): number {
  for (let i = b.length - 1; i >= Math.max(0, b.length - 4); i--) {
    const byte = b[i] as number
    if ((byte & 0xc0) === 0x80) continue // a continuation byte: look further back
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1
    return b.length - i < length ? i : b.length
  }
  return b.length
}
