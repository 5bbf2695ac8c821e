/**
 * Issue 27: the map language. Maps written for packages without a preset (examples/exports/
 * myob, odoo, datev) import their example exports exactly, through the real binary into the
 * emulator; the three silent wrongs of the issue (a two-column vendor name, a bill with a blank
 * number merged into the bill above, a dropped discount) are refused or done right; every mistake
 * of a map or a row is exit 2 naming file, line, column and value, with nothing sent.
 */
import {describe, expect, it} from 'vitest'

import {example, exampleText, presetCases, type PresetCase} from '../helpers/preset-case.js'
import {parseJsonOutput} from '../helpers/bk.js'

const {presetCase, billPosts} = presetCases()

/** Writes `files` into a folder of their own and imports `bills.csv` there with map.yaml and `flags`. */
const importFiles = (files: {'bills.csv': string; 'map.yaml': string}, flags: string[] = []) => {
  const {'bills.csv': text, ...rest} = files
  return presetCase({file: 'bills.csv', text, files: rest, map: 'map.yaml', flags})
}

/** An example's bills.csv imported with the example's map.yaml (examples/exports/<pkg>/). */
const exampleImport = <T>(pkg: string) => presetCase<T>({preset: pkg, file: 'bills.csv', map: example(pkg, 'map.yaml')})

/** `text` as bills.csv beside a copy of the example's map and lookup files, named as they are. */
const exampleFiles = (pkg: string, text: string): PresetCase => ({
  preset: pkg,
  file: 'bills.csv',
  text,
  copy: ['map.yaml', 'vendors.csv', 'ledgers.csv'],
  map: 'map.yaml',
  lookups: null,
  flags: ['--lookup', 'vendor_id=vendors.csv', '--lookup', 'line_ledger_id=ledgers.csv'],
})

describe.each(['myob', 'odoo', 'datev'])('bills import with examples/exports/%s/map.yaml', (pkg) => {
  it('sends exactly the bills the export means', async () => {
    const result = await exampleImport(pkg)
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(result.sent).toEqual(JSON.parse(exampleText(pkg, 'expected.json')))
  })
})

describe('the silent wrongs of issue 27', () => {
  it('two suppliers with one last name are two vendors (a lookup keyed by two columns)', async () => {
    const result = await exampleImport<{number: string; vendor_id: string; lines: unknown[]}>('myob')
    expect(result.code).toBe(0)
    const vendors = result.sent.map((b) => `${b.number} ${b.vendor_id} ${b.lines.length}`)
    expect(vendors).toEqual([
      'LN-2026-07 ven_demo_office 2',
      'LN-2026-07 ven_demo_travel 1',
      'CH-8812 ven_demo_cloud 1',
    ])
  })

  it('a name pair missing from a two-column lookup is an error naming the row, nothing sent', async () => {
    const result = await presetCase(
      exampleFiles('myob', exampleText('myob', 'bills.csv').replace('Nguyen,Tran,', 'Nguyen,Minh,')),
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
    const result = await importFiles(blankNumber)
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
    const result = await importFiles({'bills.csv': csv, 'map.yaml': map})
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

  it.each([
    [
      'a map that drops a discount column while computing the amount is refused, nothing sent',
      ['  Quantity: quantity', '  Unit Price: unit_price', '  Discount (%): ~'],
      'map.yaml: "Discount (%)" (a discount) is dropped while the line amount is computed: a line would be sent without it',
    ],
    [
      'the same map refused when the discount is dropped by ignore: all-others',
      ['  Quantity: quantity', '  Unit Price: unit_price', 'ignore: all-others'],
      '"Discount (%)" (a discount) is dropped (ignore: all-others)',
    ],
    [
      'a discount declared but not read by the amount is refused',
      ['  Quantity: quantity', '  Discount (%): discount', 'compute:', '  line_amount: "[Quantity] * [Unit Price]"'],
      '"Discount (%)" is declared as discount, but the line amount does not read it',
    ],
  ])('%s', async (_title, map, error) => {
    const result = await importFiles(discount(map))
    expect(result.stderr).toContain(error)
    expect(result.code).toBe(2)
    expect(billPosts()).toEqual([])
  })

  it('the discount applied by an expression: 3 × 10.00 × (1 − 10 / 100) = 27', async () => {
    const result = await importFiles(
      discount([
        '  Quantity: quantity',
        '  Discount (%): discount',
        'compute:',
        '  line_amount: "[Quantity] * [Unit Price] * (1 - [Discount (%)] / 100)"',
      ]),
    )
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect((result.sent as Array<{lines: Array<{amount: number}>}>)[0]!.lines[0]!.amount).toBe(27)
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

  it.each([
    ['a syntax error', files('"[Qty] * * [Price]"'), 'map.yaml:9:25: Expected'],
    [
      'a column that is not in the file',
      files('"[Qty] * [Prize]"', 'ignore: [Price]'),
      'map.yaml:9:25: [Prize] is not a column of bills.csv',
    ],
    ['a type mistake', files('"[Qty] * [Price] * \\"x\\""'), /map\.yaml:9:\d+: expected a number, but this is a text/],
  ])('%s names the map line and column', async (_mistake, map, error) => {
    const result = await importFiles(map, ['--dry-run'])
    expect(result.stderr).toMatch(error)
    expect(result.code).toBe(2)
  })

  it('a cell that is not a number names the row, column and value; nothing sent', async () => {
    const result = await importFiles(files('"[Qty] * [Price]"'))
    expect(result.stderr).toContain('bills.csv:2: column "Price" (line_amount): "abc" is not a number')
    expect(result.code).toBe(2)
    expect(billPosts()).toEqual([])
  })

  it('a computed value with nowhere to go is an error of the map', async () => {
    const result = await importFiles(files('"[Qty] * 2"', 'compute2: x'), ['--dry-run'])
    expect(result.code).toBe(2)
    const nowhere = await importFiles(
      {...files('"[Qty] * 2"'), 'map.yaml': files('"[Qty] * 2"')['map.yaml'].replace('line_amount:', 'unit_price:')},
      ['--dry-run'],
    )
    expect(nowhere.stderr).toContain('compute: "unit_price" has nowhere to go')
    expect(nowhere.code).toBe(2)
  })
})

describe('file structure', () => {
  /** The DATEV example with its map less `year_from:`. */
  const datev = (flags: string[]) => {
    const c = exampleFiles('datev', exampleText('datev', 'bills.csv'))
    const map = exampleText('datev', 'map.yaml').replace(/^year_from:.*$/m, '')
    return presetCase({...c, files: {...c.files, 'map.yaml': map}, flags: [...c.flags!, ...flags]})
  }

  it('a date without a year and no year to take is an error, never a guess', async () => {
    const result = await datev(['--dry-run'])
    expect(result.stderr).toContain('bills.csv:3: column "Belegdatum" (issued_at): "0502" has no year (DDMM)')
    expect(result.code).toBe(2)
  })

  it('--year gives the year of a DDMM date', async () => {
    const result = await datev(['--year', '2027'])
    expect(result.code).toBe(0)
    const dates = (result.sent as Array<{issued_at: string}>).map((b) => b.issued_at)
    expect(dates).toEqual(['2027-02-05T00:00:00Z', '2027-02-14T00:00:00Z', '2027-06-23T00:00:00Z'])
  })

  /** Two bills and, between them, a payment row of the first bill's number. */
  const TYPED_ROWS = [
    'Type,Vendor,Ref,Date,Account,Amount',
    'BILL,ven_demo_office,NW-1,2026-02-03,ldg_demo_expenses,10.00',
    'PAYMENT,ven_demo_office,NW-1,2026-02-04,ldg_demo_expenses,10.00',
    'BILL,ven_demo_cloud,CH-1,2026-02-05,ldg_demo_software,5.00',
    '',
  ].join('\n')

  it('skip: drops rows of other types without a word, rows: refuses the rest', async () => {
    const map = [
      'columns: {Vendor: vendor_id, Ref: number, Date: issued_at, Account: line_ledger_id, Amount: line_amount}',
      'rows: {column: Type, values: [BILL]}',
      'defaults: {currency: EUR}',
      '',
    ].join('\n')
    const files = {'bills.csv': TYPED_ROWS, 'map.yaml': `${map}skip: {column: Type, values: [PAYMENT]}\n`}
    // The dry run counts the rows as the import does: those of the bills, the dropped row not among them.
    const dry = await importFiles(files, ['--dry-run', '--json'])
    expect(parseJsonOutput(dry)).toMatchObject({rows: 2, bills: 2, valid: 2})
    const skipped = await importFiles(files, ['--json'])
    expect(skipped.code).toBe(0)
    expect(parseJsonOutput(skipped)).toMatchObject({rows: 2, bills: 2, created: 2})
    expect((skipped.sent as Array<{number: string}>).map((b) => b.number)).toEqual(['NW-1', 'CH-1'])
    const refused = await importFiles({'bills.csv': TYPED_ROWS, 'map.yaml': map}, ['--dry-run'])
    expect(refused.stderr).toContain('bills.csv:3: column Type: "PAYMENT" is not a bill row')
    expect(refused.code).toBe(2)
  })

  it('a column named by any spelling (aliases:) is found under any other the file writes', async () => {
    // The map names the type column by an alias; this file writes the header itself.
    const map = (compute: boolean) =>
      [
        'columns: {Vendor: vendor_id, Ref: number, Date: issued_at, Account: line_ledger_id, Amount: line_amount}',
        'ignore: [Type]',
        'aliases: {Type: [Kind]}',
        'rows: {column: Kind, values: [BILL]}',
        'skip: {column: Kind, values: [PAYMENT]}',
        compute ? 'compute: {description: \'[Kind] & " " & [Ref]\'}' : '',
        'defaults: {currency: EUR}',
        '',
      ].join('\n')
    const skipped = await importFiles({'bills.csv': TYPED_ROWS, 'map.yaml': map(false)})
    expect(skipped.stderr).toBe('')
    expect((skipped.sent as Array<{number: string}>).map((b) => b.number)).toEqual(['NW-1', 'CH-1'])
    const computed = await importFiles({'bills.csv': TYPED_ROWS, 'map.yaml': map(true)})
    expect(computed.stderr).toBe('')
    expect(computed.code).toBe(0)
    // The emulator's record holds both imports' bills: these are the second's.
    const second = (computed.sent as Array<{description: string}>).slice(skipped.sent.length)
    expect(second.map((b) => b.description)).toEqual(['BILL NW-1', 'BILL CH-1'])
  })
})
