/**
 * Issue 28: each preset takes the file as its package writes it, in every documented layout.
 * Each example export (examples/exports/<preset>/<layout>.csv, written from one documented layout:
 * a region's template, the package's own export, a third-party importer's template, a header row
 * or none) is imported through the real binary with its lookups: the bodies the emulator receives
 * must be exactly <layout>.expected.json, and a credit note is set aside into the rejects file with
 * its rows and the reason while the rest imports (exit 6, the `partial` shape).
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {CREDIT_REASON, expectedBodies, presetCases} from '../helpers/preset-case.js'

interface Layout {
  preset: string
  file: string
  flags: string[]
  /** The rows of the file set aside as a credit note (1-based physical lines), if any. */
  credit?: {lines: number[]; column: string}
}

const LAYOUTS: Layout[] = [
  {
    preset: 'xero',
    file: 'us-template.csv',
    flags: ['--date-format', 'MM/DD/YYYY', '--amounts', 'net', '--currency', 'USD'],
    credit: {lines: [5], column: '"*Quantity × *UnitAmount" (line_amount)'},
  },
  {
    preset: 'xero',
    file: 'xero-export.csv',
    flags: ['--date-format', 'DD/MM/YYYY', '--amounts', 'gross'],
    credit: {lines: [5], column: 'Type'},
  },
  {
    preset: 'quickbooks-online',
    file: 'us-template.csv',
    flags: ['--date-format', 'MM/DD/YYYY', '--number-format', '1,234.56', '--currency', 'USD'],
    credit: {lines: [5], column: '"Line Amount" (line_amount)'},
  },
  {
    preset: 'quickbooks-online',
    file: 'transaction-pro.csv',
    flags: ['--date-format', 'DD/MM/YYYY', '--number-format', '1,234.56', '--amounts', 'net'],
    credit: {lines: [5], column: '"Expense Line Amount" (line_amount)'},
  },
  {
    preset: 'gnucash',
    file: 'field-names.csv',
    flags: ['--date-format', 'DD/MM/YYYY', '--number-format', '1234.56', '--delimiter', ',', '--currency', 'GBP'],
  },
  {
    preset: 'gnucash',
    file: 'us-repeated.csv',
    flags: ['--date-format', 'MM/DD/YYYY', '--number-format', '1234.56', '--delimiter', ',', '--currency', 'USD'],
  },
  {
    preset: 'sage50',
    file: 'current-template.csv',
    flags: ['--date-format', 'DD/MM/YYYY', '--amounts', 'gross', '--currency', 'GBP', '--due-days', '30'],
    credit: {lines: [5], column: 'Type'},
  },
  {
    // dd/mm/yy, one of the date forms an audit-trail importer documents; no --date-format: the preset's list.
    preset: 'sage50',
    file: 'short-year.csv',
    flags: ['--amounts', 'gross', '--currency', 'GBP', '--due-days', '30'],
    credit: {lines: [5], column: 'Type'},
  },
  {
    preset: 'sage50',
    file: 'no-header.csv',
    flags: ['--date-format', 'DD/MM/YYYY', '--amounts', 'net', '--currency', 'GBP'],
    credit: {lines: [4], column: 'Type'},
  },
]

const {presetCase} = presetCases()

describe.each(LAYOUTS)('bills import --map $preset, $file', ({preset, file, flags, credit}) => {
  it('sends exactly the bills the layout means, and sets a credit note aside', async () => {
    const run = await presetCase({preset, file, flags: [...flags, '--json']})
    const expected = expectedBodies<{number: string; vendor_id: string}>(preset, file)
    expect(run.sent).toEqual(expected)
    // One number under two vendors: two bills.
    const numbers = expected.map((b) => b.number)
    expect(new Set(numbers).size).toBeLessThan(numbers.length)
    if (!credit) {
      expect(run.code, run.stderr).toBe(0)
      expect(run.rejects).toBeUndefined()
      return
    }
    expect(run.code, run.stderr).toBe(6)
    const out = JSON.parse(run.stdout) as {failed: number; created: number; partial: {reasons: string[]}}
    expect(out).toMatchObject({failed: 1, created: expected.length, partial: {failed: 1, unconfirmed: 0}})
    expect(out.partial.reasons.join('\n')).toContain(CREDIT_REASON)
    // The rejects file holds the credit note's own rows, as written, with the reason.
    const source = readFileSync(join(run.dir, file), 'utf8').split(/\r?\n/)
    // A file read as Windows-1252 is answered with a BOM (dropped in `rejects`), so that a
    // spreadsheet reads it as UTF-8.
    const lines = run.rejects!
    const headerless = preset === 'sage50' && file === 'no-header.csv'
    expect(lines.length).toBe(1 + credit.lines.length)
    if (!headerless) expect(lines[0]).toBe(`${source[0]},error`)
    credit.lines.forEach((line, i) => {
      expect(lines[1 + i]!.startsWith(`${source[line - 1]},`)).toBe(true)
      // The reason is one quoted CSV cell: its quotes are doubled.
      expect(lines[1 + i]).toContain(`${file}:${line}: column ${credit.column.replace(/"/g, '""')}`)
      expect(lines[1 + i]).toContain(CREDIT_REASON)
    })
  })
})
