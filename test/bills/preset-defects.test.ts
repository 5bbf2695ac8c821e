/**
 * Issue 28: files the presets refused or misread, each as its package writes it. Each test names
 * the defect it pins; the bodies are checked offline (--dry-run --show prints exactly what would be
 * sent), and the credit note among bills through a real import.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {ROOT, runBk} from '../helpers/bk.js'
import {expectedBodies, presetCases, type PresetCase} from '../helpers/preset-case.js'

const {presetCase} = presetCases()

/** The bills a dry run would send (`--show`). */
async function shown(c: PresetCase) {
  const result = await presetCase({...c, flags: [...(c.flags ?? []), '--dry-run', '--show', '50']})
  expect(result.code, result.stderr).toBe(0)
  return JSON.parse(result.stdout) as Array<Record<string, unknown>>
}

/** A Xero export of `text` as bills.csv, day-first, net amounts in GBP. */
const xero = (text: string): PresetCase => ({
  preset: 'xero',
  file: 'bills.csv',
  text,
  flags: ['--date-format', 'DD/MM/YYYY', '--amounts', 'net', '--currency', 'GBP'],
})
const line = (amount: number, ledger: string, description: string) => ({amount, ledger_id: ledger, description})

describe('header matching forgives what cannot mislead', () => {
  it('a BOM, a leading *, a trailing . or :, case and repeated spaces', async () => {
    const text =
      '\uFEFFcontactname ,*InvoiceNumber.,  INVOICEDATE:,*Due  Date,Description,*Quantity,*UnitAmount,*AccountCode,TaxAmount\n' +
      'Fly & Stay Travel,T-1,07/02/2026,09/03/2026,Taxi,1,12.50,494,0.00\n'
    expect(await shown(xero(text))).toEqual([
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
    const result = await presetCase(xero(text + 'Fly & Stay Travel,T-1,07/02/2026,09/03/2026,1,1,494\n'))
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('bills.csv:1: unknown column "*InvoiceNumbr"')
    expect(result.stderr).toContain('"*InvoiceNumbr" is not "*InvoiceNumber"')
  })
})

describe('quickbooks-online', () => {
  const qbo = (text: string) =>
    shown({
      preset: 'quickbooks-online',
      file: 'bills.csv',
      text,
      flags: ['--date-format', 'MM/DD/YYYY', '--currency', 'USD'],
    })

  it("takes Intuit's US wording: Vendor, Bill no", async () => {
    const text =
      'Bill no,Vendor,Bill Date,Due Date,Terms,Location,Memo,Account,Line Description,Line Amount\n' +
      '9001,Fly & Stay Travel,03/02/2026,04/01/2026,Net 30,,,Travel,Taxi,42.50\n'
    const bills = await qbo(text)
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
    const bills = await qbo(text)
    expect(bills.map((b) => b.lines)).toEqual([
      [line(120, 'ldg_demo_travel', 'Hotel'), line(30.25, 'ldg_demo_travel', 'Meals')],
    ])
  })
})

describe('xero', () => {
  it('a header written twice: says so, with the way out a map by headers cannot give', async () => {
    const text =
      '*ContactName,*InvoiceNumber,*InvoiceDate,*DueDate,Description,*Quantity,*UnitAmount,*AccountCode,description \n' +
      'Fly & Stay Travel,T-3,07/02/2026,09/03/2026,Taxi,1,12.50,494,Taxi\n'
    const result = await presetCase(xero(text))
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(
      'bills.csv:1: the header row names "description" twice (columns 5 and 9), and both would be line_description',
    )
    expect(result.stderr).toContain('bk bills maps init')
    expect(result.stderr).not.toContain('Map one of them to ~')
  })

  it('takes the Reference column (as the bill description)', async () => {
    const text =
      '*ContactName,*InvoiceNumber,Reference,*InvoiceDate,*DueDate,Description,*Quantity,*UnitAmount,*AccountCode,*TaxType,TaxAmount\n' +
      'Fly & Stay Travel,T-2,Lyon fair,07/02/2026,09/03/2026,Hotel,2,89.50,494,No VAT,0.00\n'
    const [bill] = await shown(xero(text))
    expect(bill).toMatchObject({
      number: 'T-2',
      description: 'Lyon fair',
      lines: [line(179, 'ldg_demo_travel', 'Hotel')],
    })
  })

  it("takes Xero's own bills export (no * marks, delivery addresses, Type and Status)", async () => {
    const bills = await shown({
      preset: 'xero',
      file: 'bills.csv',
      from: 'xero-export.csv',
      flags: ['--date-format', 'DD/MM/YYYY', '--amounts', 'gross'],
    })
    expect(bills).toEqual(expectedBodies('xero', 'xero-export.csv'))
  })

  it('refuses a row with a discount, naming the row: a discount changes the amount', async () => {
    const text =
      'ContactName,InvoiceNumber,InvoiceDate,DueDate,Description,Quantity,UnitAmount,Discount,AccountCode,TaxAmount\n' +
      'Fly & Stay Travel,T-3,07/02/2026,09/03/2026,Hotel,1,100.00,,494,0.00\n' +
      'Fly & Stay Travel,T-3,07/02/2026,09/03/2026,Meals,1,50.00,10,494,0.00\n'
    const result = await presetCase(xero(text))
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('bills.csv:3: column "Discount" (line_discount): "10" is a discount')
  })

  it('refuses a type value in neither closed list (a sales invoice in an export)', async () => {
    const text =
      'ContactName,InvoiceNumber,InvoiceDate,DueDate,Description,Quantity,UnitAmount,AccountCode,TaxAmount,Type\n' +
      'Fly & Stay Travel,T-4,07/02/2026,09/03/2026,Hotel,1,100.00,494,0.00,Bill\n' +
      'Fly & Stay Travel,S-4,07/02/2026,09/03/2026,Consulting,1,900.00,494,0.00,Sales invoice\n'
    const result = await presetCase(xero(text))
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('bills.csv:3: column Type: "Sales invoice" is neither a bill type (Bill, ACCPAY)')
  })
})

describe('sage50', () => {
  const SAGE = ['--date-format', 'DD/MM/YYYY', '--amounts', 'net', '--currency', 'GBP']
  const sage = (text: string, flags: string[] = [], file = 'bills.csv'): PresetCase => ({
    preset: 'sage50',
    file,
    text,
    flags: [...SAGE, ...flags],
  })
  const header =
    'Type,Account Reference,Nominal A/C Ref,Department Code,Date,Reference,Details,Net Amount,Tax Code,Tax Amount,Exchange Rate,Extra Reference,User Name,Project Refn,Cost Code Refn,Country of VAT,Report Type,Fund\n'

  it('takes the current template: Country of VAT, Report Type, Fund', async () => {
    const text = header + 'PI,FLY001,7400,0,07/02/2026,FS-1,Rail,89.60,T0,0.00,1,,MANAGER,,,GB,,\n'
    const [bill] = await shown(sage(text))
    expect(bill).toMatchObject({number: 'FS-1', lines: [line(89.6, 'ldg_demo_travel', 'Rail')]})
  })

  it('takes the fixed order without a header row', async () => {
    const text = 'PI,FLY001,7400,0,07/02/2026,FS-2,Rail,89.60,T0,0.00,1,,MANAGER\n'
    const [bill] = await shown(sage(text))
    expect(bill).toMatchObject({number: 'FS-2', vendor_id: 'ven_demo_travel', issued_at: '2026-02-07T00:00:00Z'})
  })

  /** The 13 columns every version writes (S1 A to M). */
  const older = header.split(',').slice(0, 13).join(',') + '\n'

  it('--due-days gives a due date with no due date column', async () => {
    const text = older + 'PI,FLY001,7400,0,07/02/2026,FS-3,Rail,89.60,T0,0.00,1,,MANAGER\n'
    const [bill] = await shown(sage(text, ['--due-days', '30']))
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
    const result = await presetCase(sage(older + rows.join('\n') + '\n', ['--json'], 'trail.csv'))
    expect(result.code, result.stderr).toBe(6)
    expect(JSON.parse(result.stdout)).toMatchObject({created: 5, failed: 1, partial: {failed: 1, unconfirmed: 0}})
    const rejects = result.rejects!
    expect(rejects).toHaveLength(2)
    expect(rejects[1]).toContain(
      'trail.csv:5: column Type: ""PC"" is a credit note: bk cannot create vendor credits through the API; enter it in the service',
    )
  })
})

describe('gnucash', () => {
  it('skips a first row that names the documented fields', async () => {
    const bills = await shown({
      preset: 'gnucash',
      file: 'bills.csv',
      from: 'field-names.csv',
      flags: ['--date-format', 'DD/MM/YYYY', '--number-format', '1234.56', '--delimiter', ',', '--currency', 'GBP'],
    })
    expect(bills).toEqual(expectedBodies('gnucash', 'field-names.csv'))
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
  /** `text` as bills.csv, read with a map that allows the `negative` forms. */
  const mapped = (text: string, negative: string): PresetCase => ({
    file: 'bills.csv',
    text,
    files: {'map.yaml': map(negative)},
    map: 'map.yaml',
    flags: ['--currency', 'USD'],
  })

  it('-$90.91, $-90.91, (90.91), ($90.91), 90.91-, 90.91 CR: each allowed by name, exact', async () => {
    const bills = await shown(mapped(csv + '\n', '["-$1", "$-1", "(1)", "($1)", "1-", "1 CR"]'))
    expect(bills).toHaveLength(1)
    expect((bills[0]!.lines as Array<{amount: number}>).map((l) => l.amount)).toEqual(
      amounts.flatMap(() => [100, -90.91]),
    )
  })

  it('a form the map does not list is refused, named', async () => {
    const text = 'Bill,Vendor,Account,Amount\nB-1,ven_demo_travel,ldg_demo_travel,-$90.91\n'
    const result = await presetCase({...mapped(text, '["-1"]'), flags: ['--currency', 'USD', '--dry-run']})
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
