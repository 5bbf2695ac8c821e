/**
 * Spreadsheet safety (OWASP "CSV injection"): a cell a spreadsheet would run as a formula gets a
 * leading apostrophe. Applied to every CSV bk writes unless --raw-csv; JSON output is untouched.
 * A plain number (`-120.5`, `+3`, `1e-7`) is not a formula, so it stays a number, as
 * defusedcsv does.
 */
const FORMULA_START = /^[=+\-@\t\r]/
const PLAIN_NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/

export function neutraliseCell(value: string): string {
  return FORMULA_START.test(value) && !PLAIN_NUMBER.test(value) ? `'${value}` : value
}
