/**
 * Issue 27: the map language. Maps written for packages without a preset (examples/exports/
 * myob, odoo, datev) import their example exports exactly, through the real binary into the
 * emulator; the three silent wrongs of the issue (a two-column vendor name, a bill with a blank
 * number merged into the bill above, a dropped discount) are refused or done right; every mistake
 * of a map or a row is exit 2 naming file, line, column and value, with nothing sent.
 */
import {copyFileSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {ROOT, runBk, tempDir} from '../helpers/bk.js'
import {recordedEmulator} from '../helpers/recorded-emulator.js'

const BIZ = 'biz_demo_acme'
const ex = (pkg: string, file: string) => join(ROOT, 'examples', 'exports', pkg, file)
const lookups = (pkg: string) => [
  ...['--lookup', `vendor_id=${ex(pkg, 'vendors.csv')}`],
  ...['--lookup', `line_ledger_id=${ex(pkg, 'ledgers.csv')}`],
]

const recorded = recordedEmulator(BIZ)
const {env, billPosts} = recorded
const sent = () => billPosts().flatMap((r) => JSON.parse(r.body) as unknown[])

/** Writes files into a folder of their own and imports `bills.csv` there with `args`. */
async function importFiles(files: Record<string, string>, args: string[]) {
  const dir = tempDir('bk-maplang-')
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return runBk(['bills', 'import', 'bills.csv', ...args], {env: env(), cwd: dir})
}

describe.each(['myob', 'odoo', 'datev'])('bills import with examples/exports/%s/map.yaml', (pkg) => {
  it('sends exactly the bills the export means', async () => {
    const dir = tempDir('bk-maplang-')
    copyFileSync(ex(pkg, 'bills.csv'), join(dir, 'bills.csv'))
    const result = await runBk(['bills', 'import', 'bills.csv', '--map', ex(pkg, 'map.yaml'), ...lookups(pkg)], {
      env: env(),
      cwd: dir,
    })
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(sent()).toEqual(JSON.parse(readFileSync(ex(pkg, 'expected.json'), 'utf8')))
  })
})

describe('the silent wrongs of issue 27', () => {
  it('two suppliers with one last name are two vendors (a lookup keyed by two columns)', async () => {
    const dir = tempDir('bk-maplang-')
    copyFileSync(ex('myob', 'bills.csv'), join(dir, 'bills.csv'))
    const result = await runBk(['bills', 'import', 'bills.csv', '--map', ex('myob', 'map.yaml'), ...lookups('myob')], {
      env: env(),
      cwd: dir,
    })
    expect(result.code).toBe(0)
    const vendors = (sent() as Array<{number: string; vendor_id: string; lines: unknown[]}>).map(
      (b) => `${b.number} ${b.vendor_id} ${b.lines.length}`,
    )
    expect(vendors).toEqual([
      'LN-2026-07 ven_demo_office 2',
      'LN-2026-07 ven_demo_travel 1',
      'CH-8812 ven_demo_cloud 1',
    ])
  })

  it('a name pair missing from a two-column lookup is an error naming the row, nothing sent', async () => {
    const csv = readFileSync(ex('myob', 'bills.csv'), 'utf8').replace('Nguyen,Tran,', 'Nguyen,Minh,')
    const result = await importFiles(
      {
        'bills.csv': csv,
        'map.yaml': readFileSync(ex('myob', 'map.yaml'), 'utf8'),
        'vendors.csv': readFileSync(ex('myob', 'vendors.csv'), 'utf8'),
        'ledgers.csv': readFileSync(ex('myob', 'ledgers.csv'), 'utf8'),
      },
      ['--map', 'map.yaml', '--lookup', 'vendor_id=vendors.csv', '--lookup', 'line_ledger_id=ledgers.csv'],
    )
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(
      'bills.csv:5: column "Co./Last Name" (vendor_id): "Nguyen, Minh" is not in the lookup file vendors.csv',
    )
    expect(billPosts()).toEqual([])
  })

  const blankNumber = {
    'bills.csv': [
      'Vendor,Ref,Date,Item,Account,Amount',
      'ven_demo_office,NW-1,2026-02-03,Desk lamps,ldg_demo_expenses,93.80',
      ',,,Toner,ldg_demo_expenses,110.48',
      'ven_demo_office,,2026-02-03,Paper A4,ldg_demo_expenses,41.99',
      '',
    ].join('\n'),
    'map.yaml': [
      'columns:',
      '  Vendor: vendor_id',
      '  Ref: number',
      '  Date: issued_at',
      '  Item: line_description',
      '  Account: line_ledger_id',
      '  Amount: line_amount',
      'fill_down: [number, vendor_id, issued_at]',
      'defaults: {currency: EUR}',
      '',
    ].join('\n'),
  }

  it('a bill with a blank number is not merged into the bill above of the same vendor', async () => {
    const result = await importFiles(blankNumber, ['--map', 'map.yaml'])
    expect(result.stderr).toContain(
      'bills.csv:4: column "Ref" (number): is empty on a row that repeats the bill above: a line of that bill, or a bill without a number?',
    )
    expect(result.code).toBe(2)
    expect(billPosts()).toEqual([])
  })

  it('a blank-number row with a continuation column is read as the map says', async () => {
    const csv = blankNumber['bills.csv']
      .split('\n')
      .map((l, i) => (l === '' ? l : `${i === 0 ? 'Line' : i === 2 ? 'L' : 'H'},${l}`))
      .join('\n')
    const map = `${blankNumber['map.yaml']}continuation: {column: Line, values: [L]}\nignore: [Line]\n`
    const result = await importFiles({'bills.csv': csv, 'map.yaml': map}, ['--map', 'map.yaml'])
    // Row 4 starts a bill of its own, and a bill needs a number: refused, never merged.
    expect(result.stderr).toContain('bills.csv:4: column "Ref" (number): is empty')
    expect(result.code).toBe(2)
    expect(billPosts()).toEqual([])
  })

  const discount = (map: string[]) => ({
    'bills.csv': [
      'Vendor,Ref,Date,Item,Account,Quantity,Unit Price,Discount (%)',
      'ven_demo_office,NW-1,2026-02-03,Desk lamps,ldg_demo_expenses,3,10.00,10',
      '',
    ].join('\n'),
    'map.yaml': [
      'columns:',
      '  Vendor: vendor_id',
      '  Ref: number',
      '  Date: issued_at',
      '  Item: line_description',
      '  Account: line_ledger_id',
      ...map,
      'defaults: {currency: EUR}',
      '',
    ].join('\n'),
  })

  it('a map that drops a discount column while computing the amount is refused, nothing sent', async () => {
    const result = await importFiles(
      discount(['  Quantity: quantity', '  Unit Price: unit_price', '  Discount (%): ~']),
      ['--map', 'map.yaml'],
    )
    expect(result.stderr).toContain(
      'map.yaml: "Discount (%)" (a discount) is dropped while the line amount is computed: a line would be sent without it',
    )
    expect(result.code).toBe(2)
    expect(billPosts()).toEqual([])
  })

  it('the same map refused when the discount is dropped by ignore: all-others', async () => {
    const result = await importFiles(
      discount(['  Quantity: quantity', '  Unit Price: unit_price', 'ignore: all-others']),
      ['--map', 'map.yaml'],
    )
    expect(result.stderr).toContain('"Discount (%)" (a discount) is dropped (ignore: all-others)')
    expect(result.code).toBe(2)
    expect(billPosts()).toEqual([])
  })

  it('a discount declared but not read by the amount is refused', async () => {
    const result = await importFiles(
      discount([
        '  Quantity: quantity',
        '  Discount (%): discount',
        'compute:',
        '  line_amount: "[Quantity] * [Unit Price]"',
      ]),
      ['--map', 'map.yaml'],
    )
    expect(result.stderr).toContain('"Discount (%)" is declared as discount, but the line amount does not read it')
    expect(result.code).toBe(2)
  })

  it('the discount applied by an expression: 3 × 10.00 × (1 − 10 / 100) = 27', async () => {
    const result = await importFiles(
      discount([
        '  Quantity: quantity',
        '  Discount (%): discount',
        'compute:',
        '  line_amount: "[Quantity] * [Unit Price] * (1 - [Discount (%)] / 100)"',
      ]),
      ['--map', 'map.yaml'],
    )
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect((sent() as Array<{lines: Array<{amount: number}>}>)[0]!.lines[0]!.amount).toBe(27)
  })
})

describe('mistakes name the map or the row', () => {
  const files = (compute: string, extra = '') => ({
    'bills.csv': [
      'Vendor,Ref,Date,Account,Qty,Price',
      'ven_demo_office,NW-1,03-02-2026,ldg_demo_expenses,3,abc',
      '',
    ].join('\n'),
    'map.yaml': [
      'date_format: DD-MM-YYYY',
      'columns:',
      '  Vendor: vendor_id',
      '  Ref: number',
      '  Date: issued_at',
      '  Account: line_ledger_id',
      '  Qty: quantity',
      'compute:',
      `  line_amount: ${compute}`,
      'defaults: {currency: EUR}',
      extra,
    ].join('\n'),
  })

  it('a syntax error names the map line and column', async () => {
    const result = await importFiles(files('"[Qty] * * [Price]"'), ['--map', 'map.yaml', '--dry-run'])
    expect(result.stderr).toContain('map.yaml:9:25: Expected')
    expect(result.code).toBe(2)
  })

  it('a column that is not in the file names the map line and column', async () => {
    const result = await importFiles(files('"[Qty] * [Prize]"', 'ignore: [Price]'), ['--map', 'map.yaml', '--dry-run'])
    expect(result.stderr).toContain('map.yaml:9:25: [Prize] is not a column of bills.csv')
    expect(result.code).toBe(2)
  })

  it('a type mistake names the map line and column', async () => {
    const result = await importFiles(files('"[Qty] * [Price] * \\"x\\""'), ['--map', 'map.yaml', '--dry-run'])
    expect(result.stderr).toMatch(/map\.yaml:9:\d+: expected a number, but this is a text/)
    expect(result.code).toBe(2)
  })

  it('a cell that is not a number names the row, column and value; nothing sent', async () => {
    const result = await importFiles(files('"[Qty] * [Price]"'), ['--map', 'map.yaml'])
    expect(result.stderr).toContain('bills.csv:2: column "Price" (line_amount): "abc" is not a number')
    expect(result.code).toBe(2)
    expect(billPosts()).toEqual([])
  })

  it('a computed value with nowhere to go is an error of the map', async () => {
    const result = await importFiles(files('"[Qty] * 2"', 'compute2: x'), ['--map', 'map.yaml', '--dry-run'])
    expect(result.code).toBe(2)
    const nowhere = await importFiles(
      {...files('"[Qty] * 2"'), 'map.yaml': files('"[Qty] * 2"')['map.yaml'].replace('line_amount:', 'unit_price:')},
      ['--map', 'map.yaml', '--dry-run'],
    )
    expect(nowhere.stderr).toContain('compute: "unit_price" has nowhere to go')
    expect(nowhere.code).toBe(2)
  })
})

describe('file structure', () => {
  const datev = (args: string[], map = readFileSync(ex('datev', 'map.yaml'), 'utf8')) =>
    importFiles(
      {
        'bills.csv': readFileSync(ex('datev', 'bills.csv'), 'utf8'),
        'map.yaml': map,
        'vendors.csv': readFileSync(ex('datev', 'vendors.csv'), 'utf8'),
        'ledgers.csv': readFileSync(ex('datev', 'ledgers.csv'), 'utf8'),
      },
      ['--map', 'map.yaml', '--lookup', 'vendor_id=vendors.csv', '--lookup', 'line_ledger_id=ledgers.csv', ...args],
    )

  it('a date without a year and no year to take is an error, never a guess', async () => {
    const map = readFileSync(ex('datev', 'map.yaml'), 'utf8').replace(/^year_from:.*$/m, '')
    const result = await datev(['--dry-run'], map)
    expect(result.stderr).toContain('bills.csv:3: column "Belegdatum" (issued_at): "0502" has no year (DDMM)')
    expect(result.code).toBe(2)
  })

  it('--year gives the year of a DDMM date', async () => {
    const map = readFileSync(ex('datev', 'map.yaml'), 'utf8').replace(/^year_from:.*$/m, '')
    const result = await datev(['--year', '2027'], map)
    expect(result.code).toBe(0)
    const dates = (sent() as Array<{issued_at: string}>).map((b) => b.issued_at)
    expect(dates).toEqual(['2027-02-05T00:00:00Z', '2027-02-14T00:00:00Z', '2027-06-23T00:00:00Z'])
  })

  it('skip: drops rows of other types without a word, rows: refuses the rest', async () => {
    const csv = [
      'Type,Vendor,Ref,Date,Account,Amount',
      'BILL,ven_demo_office,NW-1,2026-02-03,ldg_demo_expenses,10.00',
      'PAYMENT,ven_demo_office,NW-1,2026-02-04,ldg_demo_expenses,10.00',
      'BILL,ven_demo_cloud,CH-1,2026-02-05,ldg_demo_software,5.00',
      '',
    ].join('\n')
    const map = [
      'columns: {Vendor: vendor_id, Ref: number, Date: issued_at, Account: line_ledger_id, Amount: line_amount}',
      'rows: {column: Type, values: [BILL]}',
      'defaults: {currency: EUR}',
      '',
    ].join('\n')
    const skipped = await importFiles(
      {'bills.csv': csv, 'map.yaml': `${map}skip: {column: Type, values: [PAYMENT]}\n`},
      ['--map', 'map.yaml'],
    )
    expect(skipped.code).toBe(0)
    expect((sent() as Array<{number: string}>).map((b) => b.number)).toEqual(['NW-1', 'CH-1'])
    const refused = await importFiles({'bills.csv': csv, 'map.yaml': map}, ['--map', 'map.yaml', '--dry-run'])
    expect(refused.stderr).toContain('bills.csv:3: column Type: "PAYMENT" is not a bill row')
    expect(refused.code).toBe(2)
  })
})
