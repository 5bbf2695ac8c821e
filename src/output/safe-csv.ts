/**
 * CSV text for spreadsheets (docs/output.md, "Every CSV bk writes"): the one place bk defuses
 * cells a spreadsheet would run as a formula. The files an import writes to be imported again
 * (rejects, unconfirmed, unsent) repeat the input's rows instead, byte for byte.
 */
import {stringify} from 'csv-stringify/sync'

import {JsonNumber, stringifyExact} from '../shared/exact-json.js'
import {numberText} from '../shared/money.js'

/**
 * What a spreadsheet reads as the start of a formula (OWASP "CSV injection"): =, +, -, @, a tab
 * or a carriage return, or a full-width =, +, -, @.
 */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/

/** Text a spreadsheet would run as a formula, with a leading apostrophe that makes it text. */
export const defused = (text: string): string => (FORMULA_START.test(text) ? `'${text}` : text)

/**
 * The text `defused` was given, for a file bk writes and reads back (a lookup file): the
 * apostrophe goes only where `defused` would have put it.
 */
export const undefused = (text: string): string =>
  text.startsWith("'") && FORMULA_START.test(text.slice(1)) ? text.slice(1) : text

/**
 * Rows as CSV lines, each ended by `\n`. Spreadsheet safety: text that starts like a formula
 * gets a leading apostrophe; a number is not a formula, so a negative amount stays a number, an
 * exact one (a JsonNumber, src/api/answer-json.ts) too. Numbers are plain decimals, never in
 * exponent form. `raw` (--raw-csv) writes the text cells verbatim.
 */
export function safeCsv(rows: unknown[][], {raw = false}: {raw?: boolean | undefined} = {}): string {
  return stringify(rows, {
    record_delimiter: 'unix',
    // The guard is bk's own (csv-stringify's would take a JsonNumber's minus sign for a formula).
    cast: {
      boolean: String,
      number: numberText,
      object: (value) => (value instanceof JsonNumber ? numberText(value) : stringifyExact(value)),
      ...(raw ? {} : {string: defused}),
    },
  })
}
