/**
 * CSV text for spreadsheets (docs/output.md, "Every CSV bk writes"): the one place bk defuses
 * cells a spreadsheet would run as a formula. The files an import writes to be imported again
 * (rejects, unconfirmed, unsent) repeat the input's rows instead, byte for byte.
 */
import {stringify} from 'csv-stringify/sync'

/**
 * Rows as CSV lines, each ended by `\n`. Spreadsheet safety (OWASP "CSV injection"): text
 * starting with =, +, -, @, a tab or a carriage return (or a full-width =, +, -, @) gets a
 * leading apostrophe; a number is not a formula, so a negative amount stays a number. `raw`
 * (--raw-csv) writes the cells verbatim.
 */
export function safeCsv(rows: unknown[][], {raw = false}: {raw?: boolean | undefined} = {}): string {
  return stringify(rows, {record_delimiter: 'unix', escape_formulas: !raw, cast: {boolean: String}})
}
