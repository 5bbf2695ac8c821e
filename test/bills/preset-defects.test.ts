/**
 * Issue 28: files the presets refused or misread, each as its package writes it. Each test names
 * the defect it pins; the bodies are checked offline (--dry-run --show prints exactly what would be
 * sent), and the credit note among bills through a real import.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {ROOT, runBk, tempDir} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

const BIZ = 'biz_demo_acme'
const ex = (preset: string, file: string) => join(ROOT, 'examples', 'exports', preset, file)
const lookups = (preset: string) => [
  ...['--lookup', `vendor_id=${ex(preset, 'vendors.csv')}`],
  ...['--lookup', `line_ledger_id=${ex(preset, 'ledgers.csv')}`],
]

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

/** Writes `text` as FILE in a folder of its own and runs `bills import FILE …` there. */
async function importText(file: string, text: string, args: string[]) {
  const dir = tempDir('bk-defect-')
  writeFileSync(join(dir, file), text)
  const result = await runBk(['bills', 'import', file, ...args], {env: envFor(emulator, BIZ), cwd: dir})
  return {...result, dir}
}
/** The bills a dry run would send (`--show`). */
async function shown(file: string, text: string, args: string[]) {
  const result = await importText(file, text, [...args, '--dry-run', '--show', '50'])
  expect(result.code, result.stderr).toBe(0)
  return JSON.parse(result.stdout) as Array<Record<string, unknown>>
}

const XERO = [
  '--map',
  'xero',
  '--date-format',
  'DD/MM/YYYY',
  '--amounts',
  'net',
  '--currency',
  'GBP',
  ...lookups('xero'),
]
const line = (amount: number, ledger: string, description: string) => ({amount, ledger_id: ledger, description})

describe('header matching forgives what cannot mislead', () => {
  it('a BOM, a leading *, a trailing . or :, case and repeated spaces', async () => {
    const text =
      '\uFEFFcontactname ,*InvoiceNumber.,  INVOICEDATE:,*Due  Date,Description,*Quantity,*UnitAmount,*AccountCode,TaxAmount\n' +
      'Fly & Stay Travel,T-1,07/02/2026,09/03/2026,Taxi,1,12.50,494,0.00\n'
    expect(await shown('bills.csv', text, XERO)).toEqual([
      {
        number: 'T-1',
        vendor_id: 'ven_demo_travel',
        issued_at: '2026-02-07T00:00:00Z',
        due_at: '2026-03-09T00:00:00Z',
        currency: 'GBP',
        lines: [line(12.5, 'ldg_demo_travel', 'Taxi')],
      },
    ])
  })

  it('any other difference is an unknown column, with the nearest known header as the fix', async () => {
    const text = '*ContactName,*InvoiceNumbr,*InvoiceDate,*DueDate,*Quantity,*UnitAmount,*AccountCode\n'
    const result = await importText('bills.csv', text + 'Fly & Stay Travel,T-1,07/02/2026,09/03/2026,1,1,494\n', XERO)
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('bills.csv:1: unknown column "*InvoiceNumbr"')
    expect(result.stderr).toContain('"*InvoiceNumbr" is not "*InvoiceNumber"')
  })
})

describe('quickbooks-online', () => {
  it("takes Intuit's US wording: Vendor, Bill no", async () => {
    const text =
      'Bill no,Vendor,Bill Date,Due Date,Terms,Location,Memo,Account,Line Description,Line Amount\n' +
      '9001,Fly & Stay Travel,03/02/2026,04/01/2026,Net 30,,,Travel,Taxi,42.50\n'
    const bills = await shown('bills.csv', text, [
      ...['--map', 'quickbooks-online', '--date-format', 'MM/DD/YYYY', '--currency', 'USD'],
      ...lookups('quickbooks-online'),
    ])
    expect(bills).toEqual([
      {
        number: '9001',
        vendor_id: 'ven_demo_travel',
        issued_at: '2026-03-02T00:00:00Z',
        due_at: '2026-04-01T00:00:00Z',
        currency: 'USD',
        lines: [line(42.5, 'ldg_demo_travel', 'Taxi')],
      },
    ])
  })

  it("takes the importers' Expense Line Account / Description / Amount", async () => {
    const text =
      'Bill No,Vendor,Bill Date,Expense Line Account,Expense Line Description,Expense Line Amount\n' +
      '9002,Fly & Stay Travel,03/02/2026,Travel,Hotel,120.00\n9002,Fly & Stay Travel,03/02/2026,Travel,Meals,30.25\n'
    const bills = await shown('bills.csv', text, [
      ...['--map', 'quickbooks-online', '--date-format', 'MM/DD/YYYY', '--currency', 'USD'],
      ...lookups('quickbooks-online'),
    ])
    expect(bills.map((b) => b.lines)).toEqual([
      [line(120, 'ldg_demo_travel', 'Hotel'), line(30.25, 'ldg_demo_travel', 'Meals')],
    ])
  })
})

describe('xero', () => {
  it('takes the Reference column (as the bill description)', async () => {
    const text =
      '*ContactName,*InvoiceNumber,Reference,*InvoiceDate,*DueDate,Description,*Quantity,*UnitAmount,*AccountCode,*TaxType,TaxAmount\n' +
      'Fly & Stay Travel,T-2,Lyon fair,07/02/2026,09/03/2026,Hotel,2,89.50,494,No VAT,0.00\n'
    const [bill] = await shown('bills.csv', text, XERO)
    expect(bill).toMatchObject({
      number: 'T-2',
      description: 'Lyon fair',
      lines: [line(179, 'ldg_demo_travel', 'Hotel')],
    })
  })

  it("takes Xero's own bills export (no * marks, delivery addresses, Type and Status)", async () => {
    const text = readFileSync(ex('xero', 'xero-export.csv'), 'utf8')
    const bills = await shown('bills.csv', text, [
      ...['--map', 'xero', '--date-format', 'DD/MM/YYYY', '--amounts', 'gross'],
      ...lookups('xero'),
    ])
    expect(bills).toEqual(JSON.parse(readFileSync(ex('xero', 'xero-export.expected.json'), 'utf8')))
  })

  it('refuses a row with a discount, naming the row: a discount changes the amount', async () => {
    const text =
      'ContactName,InvoiceNumber,InvoiceDate,DueDate,Description,Quantity,UnitAmount,Discount,AccountCode,TaxAmount\n' +
      'Fly & Stay Travel,T-3,07/02/2026,09/03/2026,Hotel,1,100.00,,494,0.00\n' +
      'Fly & Stay Travel,T-3,07/02/2026,09/03/2026,Meals,1,50.00,10,494,0.00\n'
    const result = await importText('bills.csv', text, XERO)
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('bills.csv:3: column "Discount" (line_discount): "10" is a discount')
  })

  it('refuses a type value in neither closed list (a sales invoice in an export)', async () => {
    const text =
      'ContactName,InvoiceNumber,InvoiceDate,DueDate,Description,Quantity,UnitAmount,AccountCode,TaxAmount,Type\n' +
      'Fly & Stay Travel,T-4,07/02/2026,09/03/2026,Hotel,1,100.00,494,0.00,Bill\n' +
      'Fly & Stay Travel,S-4,07/02/2026,09/03/2026,Consulting,1,900.00,494,0.00,Sales invoice\n'
    const result = await importText('bills.csv', text, XERO)
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('bills.csv:3: column Type: "Sales invoice" is neither a bill type (Bill, ACCPAY)')
  })
})

describe('sage50', () => {
  const SAGE = ['--map', 'sage50', '--date-format', 'DD/MM/YYYY', '--amounts', 'net', '--currency', 'GBP']
  const header =
    'Type,Account Reference,Nominal A/C Ref,Department Code,Date,Reference,Details,Net Amount,Tax Code,Tax Amount,Exchange Rate,Extra Reference,User Name,Project Refn,Cost Code Refn,Country of VAT,Report Type,Fund\n'

  it('takes the current template: Country of VAT, Report Type, Fund', async () => {
    const text = header + 'PI,FLY001,7400,0,07/02/2026,FS-1,Rail,89.60,T0,0.00,1,,MANAGER,,,GB,,\n'
    const [bill] = await shown('bills.csv', text, [...SAGE, ...lookups('sage50')])
    expect(bill).toMatchObject({number: 'FS-1', lines: [line(89.6, 'ldg_demo_travel', 'Rail')]})
  })

  it('takes the fixed order without a header row', async () => {
    const text = 'PI,FLY001,7400,0,07/02/2026,FS-2,Rail,89.60,T0,0.00,1,,MANAGER\n'
    const [bill] = await shown('bills.csv', text, [...SAGE, ...lookups('sage50')])
    expect(bill).toMatchObject({number: 'FS-2', vendor_id: 'ven_demo_travel', issued_at: '2026-02-07T00:00:00Z'})
  })

  /** The 13 columns every version writes (S1 A to M). */
  const older = header.split(',').slice(0, 13).join(',') + '\n'

  it('--due-days gives a due date with no due date column', async () => {
    const text = older + 'PI,FLY001,7400,0,07/02/2026,FS-3,Rail,89.60,T0,0.00,1,,MANAGER\n'
    const [bill] = await shown('bills.csv', text, [...SAGE, ...lookups('sage50'), '--due-days', '30'])
    expect(bill).toMatchObject({issued_at: '2026-02-07T00:00:00Z', due_at: '2026-03-09T00:00:00Z'})
  })

  it('one credit note among six documents: set aside with the reason, the rest imported (exit 6)', async () => {
    const rows = [
      'PI,NOR001,7500,0,03/02/2026,INV-1,Paper,10.00,T1,2.00,1,,MANAGER',
      'PI,NOR001,7500,0,03/02/2026,INV-2,Toner,20.00,T1,4.00,1,,MANAGER',
      'PI,CLO001,7600,0,04/02/2026,INV-1,Hosting,30.00,T1,6.00,1,,MANAGER',
      'PC,NOR001,7500,0,05/02/2026,CN-1,Toner returned,20.00,T1,4.00,1,,MANAGER',
      'PI,FLY001,7400,0,06/02/2026,FS-4,Rail,40.00,T0,0.00,1,,MANAGER',
      'PI,FLY001,7400,0,07/02/2026,FS-5,Taxi,50.00,T0,0.00,1,,MANAGER',
    ]
    const result = await importText('trail.csv', older + rows.join('\n') + '\n', [
      ...SAGE,
      ...lookups('sage50'),
      '--json',
    ])
    expect(result.code, result.stderr).toBe(6)
    expect(JSON.parse(result.stdout)).toMatchObject({created: 5, failed: 1, partial: {failed: 1, unconfirmed: 0}})
    const rejects = readFileSync(join(result.dir, 'trail.rejects.csv'), 'utf8')
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split(/\r?\n/)
    expect(rejects).toHaveLength(2)
    expect(rejects[1]).toContain(
      'trail.csv:5: column Type: ""PC"" is a credit note: bk cannot create vendor credits through the API; enter it in the service',
    )
  })
})

describe('gnucash', () => {
  it('skips a first row that names the documented fields', async () => {
    const text = readFileSync(ex('gnucash', 'field-names.csv'), 'utf8')
    const bills = await shown('bills.csv', text, [
      ...['--map', 'gnucash', '--date-format', 'DD/MM/YYYY', '--number-format', '1234.56'],
      ...['--delimiter', ',', '--currency', 'GBP'],
      ...lookups('gnucash'),
    ])
    expect(bills).toEqual(JSON.parse(readFileSync(ex('gnucash', 'field-names.expected.json'), 'utf8')))
  })
})

describe('negative numbers as packages write them', () => {
  const map = (negative: string) =>
    `columns:\n  Bill: number\n  Vendor: vendor_id\n  Account: line_ledger_id\n  Amount: line_amount\ncurrency_symbols: true\nnegative: ${negative}\n`
  const amounts = ['-$90.91', '$-90.91', '(90.91)', '($90.91)', '90.91-', '90.91 CR']
  const csv =
    'Bill,Vendor,Account,Amount\n' +
    amounts
      .map((a) => `B-1,ven_demo_travel,ldg_demo_travel,100.00\nB-1,ven_demo_travel,ldg_demo_travel,"${a}"`)
      .join('\n')

  it('-$90.91, $-90.91, (90.91), ($90.91), 90.91-, 90.91 CR: each allowed by name, exact', async () => {
    const dir = tempDir('bk-negative-')
    writeFileSync(join(dir, 'map.yaml'), map('["-$1", "$-1", "(1)", "($1)", "1-", "1 CR"]'))
    const bills = await shown('bills.csv', csv + '\n', [...['--map', join(dir, 'map.yaml'), '--currency', 'USD']])
    expect(bills).toHaveLength(1)
    expect((bills[0]!.lines as Array<{amount: number}>).map((l) => l.amount)).toEqual(
      amounts.flatMap(() => [100, -90.91]),
    )
  })

  it('a form the map does not list is refused, named', async () => {
    const dir = tempDir('bk-negative-')
    writeFileSync(join(dir, 'map.yaml'), map('["-1"]'))
    const result = await importText(
      'bills.csv',
      'Bill,Vendor,Account,Amount\nB-1,ven_demo_travel,ldg_demo_travel,-$90.91\n',
      [...['--map', join(dir, 'map.yaml'), '--currency', 'USD', '--dry-run']],
    )
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(
      '"-$90.91" is a negative number written in the form "-$1", which the map does not list',
    )
  })
})

describe('bills maps show', () => {
  it('prints the preset with its sources and the flags it needs', async () => {
    const result = await runBk(['bills', 'maps', 'show', 'sage50'])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe(readFileSync(join(ROOT, 'maps', 'sage50.yaml'), 'utf8'))
    const json = await runBk(['bills', 'maps', 'show', 'sage50', '--json'])
    const preset = JSON.parse(json.stdout) as {needs: string[]; sources: string[]}
    expect(preset.needs.some((n) => n.startsWith('--due-days'))).toBe(true)
    expect(preset.sources.some((s) => s.startsWith('S1 ') && s.includes('gb-kb.sage.com'))).toBe(true)
    const unknown = await runBk(['bills', 'maps', 'show', 'sage'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('No preset named "sage"')
  })
})
