/**
 * Exports whose bill lines are not one row each (docs/bills.md "The map language", the file's
 * structure): Manager.io packs a bill's lines in cells, NetSuite puts them in a second file joined
 * by External ID, QuickBooks Desktop's IIF gives each record type its own header row. Each example
 * export (examples/exports/<preset>/) is imported through the real binary with its lookups: the
 * bodies the emulator receives must be exactly <layout>.expected.json, and a credit note is set
 * aside into the rejects file with the reason. Every structural mismatch is exit 2, naming the
 * file, the row and the value, with nothing sent.
 */
import {describe, expect, it} from 'vitest'

import {CREDIT_REASON, expectedBodies, exampleText, presetCases, type PresetCase} from '../helpers/preset-case.js'

interface Layout {
  preset: string
  file: string
  /** The second file (--lines-file), copied beside the first. */
  linesFile?: string
  flags: string[]
  /**
   * The credit note set aside: its number, the line each of its lines is read at, and the column
   * named; for record types, the header rows and the bill's rows (TRNS, SPL…, ENDTRNS) as read.
   */
  credit?: {number: string; lines: number[]; column: string; asRead?: {headers: number; rows: number}}
}

const LAYOUTS: Layout[] = [
  {
    preset: 'manager-io',
    file: 'batch-update.tsv',
    flags: ['--date-format', 'YYYY-MM-DD', '--number-format', '1234.56', '--currency', 'GBP'],
    credit: {
      number: 'CN-7',
      lines: [17],
      column: '"line_amount = if(blank([Lines.Qty]), 1, [Lines.Qty]) * [Lines.Amount]',
    },
  },
  {
    preset: 'manager-io',
    file: 'batch-create.tsv',
    flags: ['--date-format', 'DD/MM/YYYY', '--number-format', '1.234,56', '--currency', 'EUR'],
    credit: {
      number: 'CR-15',
      lines: [14],
      column: '"line_amount = if(blank([Lines.Qty]), 1, [Lines.Qty]) * [Lines.Amount]',
    },
  },
  {
    preset: 'netsuite',
    file: 'bills.csv',
    linesFile: 'expenses.csv',
    flags: ['--date-format', 'MM/DD/YYYY', '--number-format', '1,234.56'],
    credit: {number: 'CN-7', lines: [5], column: '"lines.Amount" (line_amount)'},
  },
  {
    preset: 'netsuite',
    file: 'account-numbers.csv',
    linesFile: 'account-numbers-expenses.csv',
    flags: ['--delimiter', ';', '--date-format', 'DD/MM/YYYY', '--number-format', '1.234,56'],
  },
  {
    preset: 'quickbooks-desktop',
    file: 'bills.iif',
    flags: ['--currency', 'USD'],
    credit: {number: 'CN-7', lines: [12], column: '"SPL.AMOUNT" (line_amount)', asRead: {headers: 3, rows: 3}},
  },
  {
    preset: 'quickbooks-desktop',
    file: 'export.iif',
    flags: ['--currency', 'USD', '--date-format', 'M/D/YYYY'],
    credit: {number: 'VC-15', lines: [17], column: '"SPL.AMOUNT" (line_amount)', asRead: {headers: 3, rows: 3}},
  },
]

const {presetCase, billPosts} = presetCases()

describe.each(LAYOUTS)('bills import --map $preset, $file', ({preset, file, linesFile, flags, credit}) => {
  it('sends exactly the bills the layout means, and sets a credit note aside', async () => {
    const run = await presetCase({
      preset,
      file,
      ...(linesFile ? {copy: [linesFile]} : {}),
      flags: [...(linesFile ? ['--lines-file', linesFile] : []), ...flags, '--json'],
    })
    const expected = expectedBodies(preset, file)
    expect(run.sent).toEqual(expected)
    if (!credit) {
      expect(run.code, run.stderr).toBe(0)
      expect(run.rejects).toBeUndefined()
      return
    }
    expect(run.code, run.stderr).toBe(6)
    const out = JSON.parse(run.stdout) as {failed: number; created: number; partial: {reasons: string[]}}
    expect(out).toMatchObject({failed: 1, created: expected.length, partial: {failed: 1, unconfirmed: 0}})
    expect(out.partial.reasons.join('\n')).toContain(CREDIT_REASON)
    // The rejects file holds the credit note's rows as the file has them (under its header rows;
    // IIF: TRNS, SPL and ENDTRNS), each with the reason naming the file and the line it was read at.
    const rows = run.rejects!
    const {headers, rows: read} = credit.asRead ?? {headers: 1, rows: credit.lines.length}
    expect(rows.length).toBe(headers + read)
    for (const header of rows.slice(0, headers)) expect(header.endsWith('error')).toBe(true)
    expect(rows[headers]).toContain(credit.number)
    for (const row of rows.slice(headers)) {
      for (const line of credit.lines)
        expect(row).toContain(`${file}:${line}: column ${credit.column.replace(/"/g, '""')}`)
      expect(row).toContain(CREDIT_REASON)
    }
  })
})

/** Runs an import expected to stop before sending: exit 2, nothing posted; gives its stderr. */
async function refused(c: PresetCase): Promise<string> {
  const run = await presetCase(c)
  expect(run.code, run.stderr).toBe(2)
  expect(billPosts()).toEqual([])
  return run.stderr
}

describe('structural mismatches stop the import with nothing sent', () => {
  const manager = ['--date-format', 'YYYY-MM-DD', '--number-format', '1234.56', '--currency', 'GBP']
  const batchUpdate = (text: string) => ({preset: 'manager-io', file: 'batch-update.tsv', text, flags: manager})

  it('packed cells holding different counts of lines', async () => {
    // The Cloudy Hosting bill (line 9) gets a second account but still one amount.
    const text = exampleText('manager-io', 'batch-update.tsv').replace('\tSoftware\t', '\t"Software\nSoftware"\t')
    expect(await refused(batchUpdate(text))).toContain(
      'batch-update.tsv:9: column Lines.Description holds 1 line ("Compute, February"), but column Lines.Account holds 2',
    )
  })

  it('a stray quote in a file read whole: its line and column, and what to do', async () => {
    // Read whole before any bill (its lines are packed in cells): the quote error comes first.
    const text = exampleText('manager-io', 'batch-update.tsv').replace(
      '\tCompute, February\t',
      '\t"Compute" February\t',
    )
    const stderr = await refused(batchUpdate(text))
    expect(stderr).toContain('batch-update.tsv:9: column Lines.Description: text follows the closing quote')
    expect(stderr).toContain('Hint: Nothing was sent: the file is read whole before any bill is sent.')
  })

  it('two bills in a row under one vendor and number, which the scan would merge', async () => {
    const text = exampleText('manager-io', 'batch-update.tsv').replace('INV-1002', 'CN-7')
    expect(await refused(batchUpdate(text))).toContain(
      'batch-update.tsv:18: a second bill with Reference "CN-7", Supplier "Northwind Office Supplies Ltd", right after the bill at line 17',
    )
  })

  const netsuite = ['--date-format', 'MM/DD/YYYY', '--number-format', '1,234.56']
  /** NetSuite's bills.csv with `expenses` as its lines file. */
  const withLines = (expenses: string) => ({
    preset: 'netsuite',
    file: 'bills.csv',
    files: {'expenses.csv': expenses},
    flags: ['--lines-file', 'expenses.csv', ...netsuite],
  })

  it('a line whose bill is absent from the bills file', async () => {
    const expenses = exampleText('netsuite', 'expenses.csv') + 'VB-0009,Travel,10.00,Parking,,,\n'
    expect(await refused(withLines(expenses))).toContain(
      'expenses.csv:8: column External ID "VB-0009" names no bill in bills.csv (no row with column External ID "VB-0009")',
    )
  })

  it('a bill with no lines in the lines file', async () => {
    const expenses = exampleText('netsuite', 'expenses.csv').replace('VB-0002,', 'VB-0001,')
    expect(await refused(withLines(expenses))).toContain(
      'bills.csv:3: the bill with column External ID "VB-0002" has no lines in expenses.csv (no row with column External ID "VB-0002")',
    )
  })

  it('a lines map without --lines-file, and --lines-file with a map that has no lines file', async () => {
    expect(await refused({preset: 'netsuite', file: 'bills.csv', flags: netsuite})).toContain(
      'reads the bill lines from a second file: pass it as --lines-file FILE',
    )
    const managerMap = {map: 'manager-io', lookups: 'manager-io', flags: ['--lines-file', 'bills.csv', ...manager]}
    expect(await refused({preset: 'netsuite', file: 'bills.csv', ...managerMap})).toContain(
      '--lines-file bills.csv: preset manager-io',
    )
  })

  it('an IIF bill without lines, and a record type the map does not read', async () => {
    const iif = (text: string) => ({
      preset: 'quickbooks-desktop',
      file: 'bills.iif',
      text,
      flags: ['--currency', 'USD'],
    })
    const text = exampleText('quickbooks-desktop', 'bills.iif')
    const lines = text.split('\r\n')
    // Line 9 is the Cloudy Hosting bill's only SPL row.
    expect(await refused(iif([...lines.slice(0, 8), ...lines.slice(9)].join('\r\n')))).toContain(
      'bills.iif:8: the TRNS record has no SPL record before line 9: a bill needs at least one line',
    )
    expect(
      await refused(iif(text.replace('ENDTRNS\r\nTRNS\t\tBILL\t2/4/26', 'ENDTRNS\r\nINVC\t\tBILL\t2/4/26'))),
    ).toContain('bills.iif:8: the record type "INVC" is not one the map reads (TRNS, SPL, ENDTRNS, HDR')
  })
})

describe('numbered column groups (Line 1 Amount, Line 2 Amount …), one line per group that holds a value', () => {
  it('reads each group as a line, in the order of the numbers', async () => {
    const bills = [
      'Invoice No,Supplier,Date,Line 1 Description,Line 1 Amount,Line 1 Account,Line 2 Description,Line 2 Amount,Line 2 Account,Line 10 Description,Line 10 Amount,Line 10 Account',
      'A-1,Northwind,2026-02-03,Paper,12.50,OFF,Toner,129.98,OFF,,,',
      'A-2,Cloudy,2026-02-04,Compute,1250.00,SW,,,,Backup,10.00,SW',
    ]
    const map = [
      'date_format: YYYY-MM-DD',
      'columns:',
      '  Invoice No: number',
      '  Supplier: vendor_id',
      '  Date: issued_at',
      '  "Line {n} Description": line_description',
      '  "Line {n} Amount": line_amount',
      '  "Line {n} Account": line_ledger_id',
      'packed_lines:',
      '  numbered: ["Line {n} Description", "Line {n} Amount", "Line {n} Account"]',
      'defaults: {currency: GBP}',
    ]
    const run = await presetCase({
      file: 'bills.csv',
      text: bills.join('\n') + '\n',
      files: {
        'map.yaml': map.join('\n') + '\n',
        'v.csv': 'Supplier,vendor_id\nNorthwind,ven_demo_office\nCloudy,ven_demo_cloud\n',
        'l.csv': 'Account,ledger_id\nOFF,ldg_demo_expenses\nSW,ldg_demo_software\n',
      },
      map: 'map.yaml',
      flags: ['--lookup', 'vendor_id=v.csv', '--lookup', 'line_ledger_id=l.csv'],
    })
    expect(run.code, run.stderr).toBe(0)
    const line = (amount: number, ledger_id: string, description: string) => ({amount, ledger_id, description})
    expect(run.sent).toEqual([
      {
        number: 'A-1',
        vendor_id: 'ven_demo_office',
        issued_at: '2026-02-03T00:00:00Z',
        currency: 'GBP',
        lines: [line(12.5, 'ldg_demo_expenses', 'Paper'), line(129.98, 'ldg_demo_expenses', 'Toner')],
      },
      {
        number: 'A-2',
        vendor_id: 'ven_demo_cloud',
        issued_at: '2026-02-04T00:00:00Z',
        currency: 'GBP',
        lines: [line(1250, 'ldg_demo_software', 'Compute'), line(10, 'ldg_demo_software', 'Backup')],
      },
    ])
  })
})
