/**
 * Exports whose bill lines are not one row each (docs/bills.md "The map language", the file's
 * structure): Manager.io packs a bill's lines in cells, NetSuite puts them in a second file joined
 * by External ID, QuickBooks Desktop's IIF gives each record type its own header row. Each example
 * export (examples/exports/<preset>/) is imported through the real binary with its lookups: the
 * bodies the emulator receives must be exactly <layout>.expected.json, and a credit note is set
 * aside into the rejects file with the reason. Every structural mismatch is exit 2, naming the
 * file, the row and the value, with nothing sent.
 */
import {copyFileSync, existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {ROOT, runBk, tempDir} from '../helpers/bk.js'
import {recordedEmulator} from '../helpers/recorded-emulator.js'

const BIZ = 'biz_demo_acme'
const ex = (preset: string, file: string) => join(ROOT, 'examples', 'exports', preset, file)
const lookups = (preset: string) => [
  ...['--lookup', `vendor_id=${ex(preset, 'vendors.csv')}`],
  ...['--lookup', `line_ledger_id=${ex(preset, 'ledgers.csv')}`],
]
const CREDIT_REASON = 'is a credit note: bk cannot create vendor credits through the API; enter it in the service'

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

const recorded = recordedEmulator(BIZ)
const {env, billPosts} = recorded
const sentBodies = () => billPosts().flatMap((r) => JSON.parse(r.body) as unknown[])

function copied(preset: string, ...files: string[]): string {
  const dir = tempDir('bk-structured-')
  for (const f of files) copyFileSync(ex(preset, f), join(dir, f))
  return dir
}

describe.each(LAYOUTS)('bills import --map $preset, $file', ({preset, file, linesFile, flags, credit}) => {
  it('sends exactly the bills the layout means, and sets a credit note aside', async () => {
    const dir = copied(preset, file, ...(linesFile ? [linesFile] : []))
    const result = await runBk(
      [
        'bills',
        'import',
        file,
        '--map',
        preset,
        ...(linesFile ? ['--lines-file', linesFile] : []),
        ...flags,
        ...lookups(preset),
        '--json',
      ],
      {env: env(), cwd: dir},
    )
    const expected = JSON.parse(readFileSync(ex(preset, file.replace(/\.\w+$/, '.expected.json')), 'utf8')) as unknown[]
    expect(sentBodies()).toEqual(expected)
    const rejects = join(dir, `${file.replace(/\.[^.]+$/, '')}.rejects.csv`)
    if (!credit) {
      expect(result.code, result.stderr).toBe(0)
      expect(existsSync(rejects)).toBe(false)
      return
    }
    expect(result.code, result.stderr).toBe(6)
    const out = JSON.parse(result.stdout) as {failed: number; created: number; partial: {reasons: string[]}}
    expect(out).toMatchObject({failed: 1, created: expected.length, partial: {failed: 1, unconfirmed: 0}})
    expect(out.partial.reasons.join('\n')).toContain(CREDIT_REASON)
    // The rejects file holds the credit note's rows as the file has them (under its header rows;
    // IIF: TRNS, SPL and ENDTRNS), each with the reason naming the file and the line it was read at.
    const rows = readFileSync(rejects, 'utf8')
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split(/\r?\n/)
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

/** Runs an import of `file` (in `dir`) expected to stop before sending: exit 2, nothing posted. */
async function refused(dir: string, args: string[]): Promise<string> {
  const result = await runBk(['bills', 'import', ...args], {env: env(), cwd: dir})
  expect(result.code, result.stderr).toBe(2)
  expect(billPosts()).toEqual([])
  return result.stderr
}

describe('structural mismatches stop the import with nothing sent', () => {
  const manager = ['--map', 'manager-io', '--date-format', 'YYYY-MM-DD', '--number-format', '1234.56']
  const managerFlags = [...manager, '--currency', 'GBP', ...lookups('manager-io')]

  it('packed cells holding different counts of lines', async () => {
    const dir = copied('manager-io', 'batch-update.tsv')
    const path = join(dir, 'batch-update.tsv')
    // The Cloudy Hosting bill (line 9) gets a second account but still one amount.
    writeFileSync(path, readFileSync(path, 'utf8').replace('\tSoftware\t', '\t"Software\nSoftware"\t'))
    const stderr = await refused(dir, ['batch-update.tsv', ...managerFlags])
    expect(stderr).toContain(
      'batch-update.tsv:9: column Lines.Description holds 1 line ("Compute, February"), but column Lines.Account holds 2',
    )
  })

  it('two bills in a row under one vendor and number, which the scan would merge', async () => {
    const dir = copied('manager-io', 'batch-update.tsv')
    const path = join(dir, 'batch-update.tsv')
    writeFileSync(path, readFileSync(path, 'utf8').replace('INV-1002', 'CN-7'))
    const stderr = await refused(dir, ['batch-update.tsv', ...managerFlags])
    expect(stderr).toContain(
      'batch-update.tsv:18: a second bill with Reference "CN-7", Supplier "Northwind Office Supplies Ltd", right after the bill at line 17',
    )
  })

  const netsuite = ['--map', 'netsuite', '--date-format', 'MM/DD/YYYY', '--number-format', '1,234.56']
  const netsuiteFlags = [...netsuite, ...lookups('netsuite')]

  it('a line whose bill is absent from the bills file', async () => {
    const dir = copied('netsuite', 'bills.csv', 'expenses.csv')
    const path = join(dir, 'expenses.csv')
    writeFileSync(path, readFileSync(path, 'utf8') + 'VB-0009,Travel,10.00,Parking,,,\n')
    const stderr = await refused(dir, ['bills.csv', '--lines-file', 'expenses.csv', ...netsuiteFlags])
    expect(stderr).toContain(
      'expenses.csv:8: column External ID "VB-0009" names no bill in bills.csv (no row with column External ID "VB-0009")',
    )
  })

  it('a bill with no lines in the lines file', async () => {
    const dir = copied('netsuite', 'bills.csv', 'expenses.csv')
    const path = join(dir, 'expenses.csv')
    writeFileSync(path, readFileSync(path, 'utf8').replace('VB-0002,', 'VB-0001,'))
    const stderr = await refused(dir, ['bills.csv', '--lines-file', 'expenses.csv', ...netsuiteFlags])
    expect(stderr).toContain(
      'bills.csv:3: the bill with column External ID "VB-0002" has no lines in expenses.csv (no row with column External ID "VB-0002")',
    )
  })

  it('a lines map without --lines-file, and --lines-file with a map that has no lines file', async () => {
    const dir = copied('netsuite', 'bills.csv')
    expect(await refused(dir, ['bills.csv', ...netsuiteFlags])).toContain(
      'reads the bill lines from a second file: pass it as --lines-file FILE',
    )
    expect(await refused(dir, ['bills.csv', '--lines-file', 'bills.csv', ...managerFlags])).toContain(
      '--lines-file bills.csv: preset manager-io',
    )
  })

  const qbFlags = ['--map', 'quickbooks-desktop', '--currency', 'USD', ...lookups('quickbooks-desktop')]

  it('an IIF bill without lines, and a record type the map does not read', async () => {
    const dir = copied('quickbooks-desktop', 'bills.iif')
    const path = join(dir, 'bills.iif')
    const text = readFileSync(path, 'utf8')
    const lines = text.split('\r\n')
    // Line 9 is the Cloudy Hosting bill's only SPL row.
    writeFileSync(path, [...lines.slice(0, 8), ...lines.slice(9)].join('\r\n'))
    expect(await refused(dir, ['bills.iif', ...qbFlags])).toContain(
      'bills.iif:8: the TRNS record has no SPL record before line 9: a bill needs at least one line',
    )
    writeFileSync(path, text.replace('ENDTRNS\r\nTRNS\t\tBILL\t2/4/26', 'ENDTRNS\r\nINVC\t\tBILL\t2/4/26'))
    expect(await refused(dir, ['bills.iif', ...qbFlags])).toContain(
      'bills.iif:8: the record type "INVC" is not one the map reads (TRNS, SPL, ENDTRNS, HDR',
    )
  })
})

describe('numbered column groups (Line 1 Amount, Line 2 Amount …), one line per group that holds a value', () => {
  it('reads each group as a line, in the order of the numbers', async () => {
    const dir = tempDir('bk-numbered-')
    writeFileSync(
      join(dir, 'bills.csv'),
      [
        'Invoice No,Supplier,Date,Line 1 Description,Line 1 Amount,Line 1 Account,Line 2 Description,Line 2 Amount,Line 2 Account,Line 10 Description,Line 10 Amount,Line 10 Account',
        'A-1,Northwind,2026-02-03,Paper,12.50,OFF,Toner,129.98,OFF,,,',
        'A-2,Cloudy,2026-02-04,Compute,1250.00,SW,,,,Backup,10.00,SW',
      ].join('\n') + '\n',
    )
    writeFileSync(
      join(dir, 'map.yaml'),
      [
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
      ].join('\n') + '\n',
    )
    writeFileSync(join(dir, 'v.csv'), 'Supplier,vendor_id\nNorthwind,ven_demo_office\nCloudy,ven_demo_cloud\n')
    writeFileSync(join(dir, 'l.csv'), 'Account,ledger_id\nOFF,ldg_demo_expenses\nSW,ldg_demo_software\n')
    const args = ['bills.csv', '--map', 'map.yaml', '--lookup', 'vendor_id=v.csv', '--lookup', 'line_ledger_id=l.csv']
    const result = await runBk(['bills', 'import', ...args], {env: env(), cwd: dir})
    expect(result.code, result.stderr).toBe(0)
    const line = (amount: number, ledger_id: string, description: string) => ({amount, ledger_id, description})
    expect(sentBodies()).toEqual([
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
