/**
 * Spreadsheet safety (OWASP "CSV injection"): a cell a spreadsheet would run as a formula gets a
 * leading apostrophe. Applied to every CSV bk writes unless --raw-csv; JSON output is untouched.
 */
const FORMULA_START = /^[=+\-@\t\r]/

export function neutraliseCell(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value
}
