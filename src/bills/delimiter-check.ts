/**
 * A file separated by another delimiter than its map's (a comma-separated GnuCash export read
 * with the preset's ";") would otherwise fail deep in the file, with a quote error on some later
 * line or a column that feeds nothing. Its first line tells: when it does not split into the
 * fields the map reads at the map's delimiter but does at another, the import is refused before
 * any row, with the flag that fixes it.
 */
import {open} from 'node:fs/promises'

import {parse} from 'csv-parse/sync'

import {counted} from '../shared/counts.js'
import {InputError} from '../shared/errors.js'
import {canonicalColumn, headerKey} from './columns.js'
import type {BillMap} from './map-file.js'

const CANDIDATES = [',', ';', '\t'] as const
/** Enough for any first line worth reading; a longer one is not a delimiter question. */
const FIRST_BYTES = 64 * 1024

/** Throws an InputError naming `--delimiter` when `file`'s first line is split by another delimiter. */
export async function checkDelimiter(file: string, map: BillMap): Promise<void> {
  if (file === '-') return
  const first = await firstLine(file, map.skipLines)
  if (first === undefined) return
  const cellsAt = (d: string) => cells(first.text, d, map.quotes)
  const own = cellsAt(map.delimiter)
  const fits = map.header === false ? positionalFit(map) : headerFit(map)
  if (fits(own)) return
  for (const other of CANDIDATES) {
    if (other === map.delimiter) continue
    const split = cellsAt(other)
    if (split.length < 2 || !fits(split)) continue
    throw new InputError(
      `${file}:${first.line}: the line splits into ${counted(own.length, 'field')} at ${named(map.delimiter)} (the delimiter of ${mapName(map)}) but into ${split.length} at ${named(other)}`,
      {
        code: 'wrong_delimiter',
        hint: `The file is ${spelled(other)}-separated: pass --delimiter ${flagValue(other)} and run the command again.`,
      },
    )
  }
}

/** A headerless map fits a line that has every position it reads. */
function positionalFit(map: BillMap): (cells: string[]) => boolean {
  const positions = [...map.columns].filter(([, target]) => target !== null).map(([key]) => Number(key))
  const needed = Math.max(0, ...positions.filter((n) => Number.isInteger(n)))
  return (cells) => cells.length >= needed
}

/** A header map fits a line of more than one cell, one of which is a header the map knows. */
function headerFit(map: BillMap): (cells: string[]) => boolean {
  return (cells) =>
    cells.length > 1 && cells.some((c) => map.columns.has(headerKey(c)) || canonicalColumn(c) !== undefined)
}

function cells(line: string, delimiter: string, quotes: boolean): string[] {
  try {
    const rows = parse(line, {delimiter, quote: quotes ? '"' : false, relax_quotes: true, relax_column_count: true})
    return (rows as string[][])[0] ?? []
  } catch {
    return line.split(delimiter)
  }
}

/** The first non-blank line after the map's preamble, with its number; undefined when unreadable. */
async function firstLine(file: string, skipLines: number): Promise<{text: string; line: number} | undefined> {
  let handle
  try {
    handle = await open(file, 'r')
    const buffer = Buffer.alloc(FIRST_BYTES)
    const {bytesRead} = await handle.read(buffer, 0, FIRST_BYTES, 0)
    // The delimiters are ASCII: latin1 reads them in any of the encodings a map may name.
    const lines = buffer
      .toString('latin1', 0, bytesRead)
      .replace(/^\xEF\xBB\xBF/, '')
      .split(/\r?\n/)
    if (bytesRead === FIRST_BYTES) lines.pop()
    for (let i = skipLines; i < lines.length; i++) if (lines[i]!.trim() !== '') return {text: lines[i]!, line: i + 1}
    return undefined
  } catch {
    // Unreadable here is unreadable to the reader too, which says why.
    return undefined
  } finally {
    await handle?.close()
  }
}

const mapName = (map: BillMap) => (map.preset ? `preset ${map.preset}` : map.source)
const spelled = (d: string) => (d === '\t' ? 'tab' : d === ';' ? 'semicolon' : 'comma')
const named = (d: string) => (d === '\t' ? 'tabs' : `"${d}"`)
/** As typed in a shell: `;` would end the command unquoted. */
const flagValue = (d: string) => (d === '\t' ? 'tab' : d === ';' ? `';'` : d)
