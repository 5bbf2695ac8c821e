/**
 * Text files bk reads whole (journal-entry YAML, the bills --map file) must be UTF-8: bytes that
 * are not (a file saved as Windows-1252) would be read as U+FFFD and used as such.
 */
import {InputError} from './errors.js'

/**
 * The text of `bytes`, or an error naming the line and column where the first non-UTF-8 bytes
 * start; `origin` is where `bytes` start in their file, when they are one piece of it.
 */
export function decodeUtf8(bytes: Buffer, label: string, origin = {line: 1, column: 1}): string {
  try {
    return new TextDecoder('utf-8', {fatal: true}).decode(bytes)
  } catch {
    const text = new TextDecoder('utf-8').decode(bytes)
    const at = text.indexOf('\uFFFD')
    const lineStart = text.lastIndexOf('\n', at) + 1
    const lineEnd = text.indexOf('\n', at)
    const line = origin.line + text.slice(0, at).split('\n').length - 1
    const column = (lineStart === 0 ? origin.column : 1) + at - lineStart
    const shown = text
      .slice(lineStart, lineEnd === -1 ? undefined : lineEnd)
      .trim()
      .slice(0, 80)
    throw new InputError(`${label}:${line}:${column}: holds bytes that are not UTF-8 (shown as \uFFFD in "${shown}")`, {
      code: 'not_utf8',
      hint: 'Save the file as UTF-8 and run the command again.',
    })
  }
}
