/**
 * Issue 29: the presets for MYOB, Odoo, KashFlow, Sage Accounting and DATEV take each documented
 * layout as the package writes it. Each example export (examples/exports/<preset>/<layout>) is
 * imported through the real binary with its lookups: the bodies the emulator receives must be
 * exactly <layout>.expected.json, and the credit note in it is set aside into the rejects file
 * with its rows and the reason while the rest imports (exit 6, the `partial` shape).
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {CREDIT_REASON, example, expectedBodies, exampleText, presetCases} from '../helpers/preset-case.js'

interface Layout {
  preset: string
  file: string
  flags: string[]
  /** The rows of the file set aside as a credit note (1-based physical lines), and the column named. */
  credit: {lines: number[]; column: string}
  /** The header row's physical line (after a preamble). */
  headerLine?: number
  encoding?: 'windows-1252'
}

// The credit note's column is the computed amount, named by its expression.
const DATEV_AMOUNT =
  '"line_amount = if(or(and([Soll/Haben-Kennzeichen] = "S", [Konto] < [Gegenkonto (ohne BU-Schlüssel)])'
const MYOB = ['--date-format', 'DD/MM/YYYY', '--number-format', '1,234.56']
const LAYOUTS: Layout[] = [
  {
    preset: 'myob',
    file: 'item-purchases.txt',
    flags: [...MYOB, '--amounts', 'net', '--currency', 'AUD'],
    credit: {lines: [9], column: '"Total" (line_amount)'},
  },
  {
    preset: 'myob',
    file: 'service-purchases.txt',
    flags: [...MYOB, '--amounts', 'gross'],
    credit: {lines: [5], column: '"Inc-Tax Amount" (line_amount)'},
  },
  {preset: 'odoo', file: 'list-export.csv', flags: [], credit: {lines: [4], column: 'Type'}},
  {preset: 'odoo', file: 'import-compatible.csv', flags: [], credit: {lines: [5], column: 'move_type'}},
  {
    preset: 'kashflow',
    file: 'template.csv',
    flags: ['--amounts', 'gross', '--currency', 'GBP'],
    credit: {lines: [5], column: '"Line Quantity × Line Rate + Line VAT Amount" (line_amount)'},
  },
  {
    preset: 'kashflow',
    file: 'hyphenated.csv',
    flags: ['--amounts', 'net', '--currency', 'GBP'],
    credit: {lines: [5], column: '"Line-Quantity × Line-Rate" (line_amount)'},
  },
  {
    preset: 'sage-accounting',
    file: 'uk-vat-registered.csv',
    flags: ['--date-format', 'DD-MM-YYYY', '--amounts', 'net', '--currency', 'GBP'],
    credit: {lines: [5], column: 'Type'},
  },
  {
    preset: 'sage-accounting',
    file: 'uk-not-vat-registered.csv',
    flags: ['--date-format', 'DD-MM-YYYY', '--currency', 'GBP'],
    credit: {lines: [4], column: 'Type'},
  },
  {
    preset: 'sage-accounting',
    file: 'us-expenses.csv',
    flags: ['--date-format', 'MM-DD-YYYY', '--amounts', 'gross', '--currency', 'USD'],
    credit: {lines: [4], column: 'Type'},
  },
  {
    preset: 'datev',
    file: 'format-13.csv',
    flags: [],
    credit: {lines: [6], column: DATEV_AMOUNT},
    headerLine: 2,
    encoding: 'windows-1252',
  },
  {
    // DATEV's field description allows a four-digit year in Belegdatum (TTMMJJJJ).
    preset: 'datev',
    file: 'belegdatum-ttmmjjjj.csv',
    flags: [],
    credit: {lines: [6], column: DATEV_AMOUNT},
    headerLine: 2,
    encoding: 'windows-1252',
  },
  {
    // Format version 9 (116 columns) as an ERP writes it: Latin-1, every text quoted, 119,0.
    preset: 'datev',
    file: 'format-9.csv',
    flags: [],
    credit: {lines: [6], column: DATEV_AMOUNT},
    headerLine: 2,
    encoding: 'windows-1252',
  },
  {
    preset: 'datev',
    file: 'creditor-konto.csv',
    flags: ['--currency', 'EUR'],
    credit: {lines: [5], column: DATEV_AMOUNT},
    headerLine: 2,
    encoding: 'windows-1252',
  },
]

const {presetCase} = presetCases()

describe.each(LAYOUTS)('bills import --map $preset, $file', ({preset, file, flags, credit, headerLine, encoding}) => {
  it('sends exactly the bills the layout means, and sets the credit note aside', async () => {
    const run = await presetCase({preset, file, flags: [...flags, '--json']})
    const expected = expectedBodies<{number: string}>(preset, file)
    expect(run.sent).toEqual(expected)
    // One number under two vendors: two bills.
    const numbers = expected.map((b) => b.number)
    expect(new Set(numbers).size).toBeLessThan(numbers.length)
    expect(run.code, run.stderr).toBe(6)
    const out = JSON.parse(run.stdout) as {failed: number; created: number; partial: {reasons: string[]}}
    expect(out).toMatchObject({failed: 1, created: expected.length, partial: {failed: 1, unconfirmed: 0}})
    expect(out.partial.reasons.join('\n')).toContain(CREDIT_REASON)
    // The rejects file holds the credit note's own rows, as written, with the reason.
    const source = new TextDecoder(encoding ?? 'utf-8').decode(readFileSync(join(run.dir, file))).split(/\r?\n/)
    // bk names the rejects file after the input, less its extension.
    const lines = run.rejects!
    expect(lines.length).toBe(1 + credit.lines.length)
    // The rejects file keeps the export's delimiter: its header row, then the reason's column.
    const delimiter = preset === 'myob' ? '\t' : preset === 'datev' ? ';' : ','
    // Its cells as written (a field's CSV quotes may differ: DATEV writers quote every text).
    const unquoted = (text: string) => text.replace(/"/g, '')
    expect(unquoted(lines[0]!)).toBe(unquoted(`${source[(headerLine ?? 1) - 1]}${delimiter}error`))
    credit.lines.forEach((line, i) => {
      expect(unquoted(lines[1 + i]!).startsWith(unquoted(source[line - 1]!))).toBe(true)
      // The reason is one quoted CSV cell: its quotes are doubled.
      expect(lines[1 + i]).toContain(`${file}:${line}: column ${credit.column.replace(/"/g, '""')}`)
      expect(lines[1 + i]).toContain(CREDIT_REASON)
    })
  })
})

describe('what the new presets refuse, naming the row', () => {
  it('MYOB: a purchase with freight, which bk cannot send as a line', async () => {
    const rows = exampleText('myob', 'item-purchases.txt').split('\r\n')
    const header = rows[0]!.split('\t')
    const cells = rows[1]!.split('\t')
    cells[header.indexOf('Freight Amount')] = '$15.00'
    rows[1] = cells.join('\t')
    const run = await presetCase({
      preset: 'myob',
      file: 'purchases.txt',
      text: rows.join('\r\n'),
      flags: [...MYOB, '--amounts', 'net', '--dry-run'],
    })
    expect(run.code, run.stderr).toBe(2)
    expect(run.stderr).toContain(
      'purchases.txt:2: column "Freight Amount" (bill_charge): "$15.00" is a charge on the bill',
    )
  })

  it('DATEV: a creditor account missing from the vendor lookup, wherever the booking puts it', async () => {
    const run = await presetCase({
      preset: 'datev',
      file: 'stapel.csv',
      from: 'creditor-konto.csv',
      files: {'vendors.csv': 'Kreditor,vendor_id\n70001,ven_demo_office\n70002,ven_demo_cloud\n'},
      lookups: null,
      flags: [
        ...['--currency', 'EUR', '--lookup', 'vendor_id=vendors.csv'],
        ...['--lookup', `line_ledger_id=${example('datev', 'ledgers.csv')}`, '--dry-run'],
      ],
    })
    expect(run.code, run.stderr).toBe(2)
    // Row 6 books the creditor 70003 in Konto, against the expense account 4660 in Gegenkonto.
    expect(run.stderr).toContain('"70003" is not in the lookup file vendors.csv (compute: vendor_id)')
  })
})
