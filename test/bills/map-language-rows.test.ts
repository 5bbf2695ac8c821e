/**
 * Issue 27, the rows of layouts whose lines are not one row each: a bad value of a lines file is
 * named by that file's row; its join key is matched as any column is (aliases, case); the side
 * files hold a bill's rows as read (all of them), the lines file's rows in its own side file; a
 * bill set aside for a documented reason is set aside with all its reasons. Through the real
 * binary into the emulator.
 */
import {copyFileSync, readFileSync, writeFileSync} from 'node:fs'
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

const recorded = recordedEmulator(BIZ)
const {env, billPosts} = recorded
const sentBodies = () => billPosts().flatMap((r) => JSON.parse(r.body) as Array<{number: string}>)

function copied(preset: string, ...files: string[]): string {
  const dir = tempDir('bk-lines-')
  for (const f of files) copyFileSync(ex(preset, f), join(dir, f))
  return dir
}

const rowsOf = (path: string) =>
  readFileSync(path, 'utf8')
    .replace(/^\uFEFF/, '')
    .trimEnd()
    .split(/\r?\n/)

const netsuite = ['--map', 'netsuite', '--date-format', 'MM/DD/YYYY', '--number-format', '1,234.56']

describe('a lines file (--lines-file)', () => {
  it('a bad value of the lines file names that file, its row, its column and the value; nothing sent', async () => {
    const dir = copied('netsuite', 'bills.csv', 'expenses.csv')
    const path = join(dir, 'expenses.csv')
    // Line 4 (VB-0001's toner) gets an amount that is not a number, line 5 an unknown account.
    writeFileSync(
      path,
      readFileSync(path, 'utf8').replace('129.98', '129.9O').replace('VB-0002,Software', 'VB-0002,Sofware'),
    )
    const result = await runBk(
      ['bills', 'import', 'bills.csv', '--lines-file', 'expenses.csv', ...netsuite, ...lookups('netsuite')],
      {env: env(), cwd: dir},
    )
    expect(result.code, result.stderr).toBe(2)
    expect(billPosts()).toEqual([])
    expect(result.stderr).toContain('expenses.csv:4: column "Amount" (line_amount): "129.9O" is not')
    expect(result.stderr).toContain(
      'expenses.csv:5: column "Account" (line_ledger_id): "Sofware" is not in the lookup file',
    )
  })

  it('the join key is matched in both files as any column is: by an alias, whatever its case', async () => {
    const dir = copied('netsuite', 'bills.csv', 'expenses.csv')
    const rename = (file: string, to: string) => {
      const text = readFileSync(join(dir, file), 'utf8')
      writeFileSync(join(dir, file), text.replace(/^External ID,/, `${to},`))
    }
    rename('bills.csv', 'Bill ID')
    rename('expenses.csv', 'BILL  id')
    writeFileSync(
      join(dir, 'map.yaml'),
      [
        'columns:',
        '  External ID: number',
        '  Vendor: vendor_id',
        '  Date: issued_at',
        '  Currency: currency',
        '  lines.Account: line_ledger_id',
        '  lines.Amount: line_amount',
        'aliases:',
        '  External ID: [Bill ID]',
        'lines_file: {key: External ID}',
        'ignore: all-others',
        'credit: {negative_total: true}',
        'credits: skip',
      ].join('\n') + '\n',
    )
    const result = await runBk(
      [
        'bills',
        'import',
        'bills.csv',
        '--lines-file',
        'expenses.csv',
        ...['--map', 'map.yaml', '--date-format', 'MM/DD/YYYY', '--number-format', '1,234.56'],
        ...lookups('netsuite'),
      ],
      {env: env(), cwd: dir},
    )
    expect(result.stderr).not.toContain('no column')
    expect(result.code, result.stderr).toBe(6)
    expect(sentBodies().map((b) => b.number)).toEqual(['VB-0001', 'VB-0002', 'VB-0003'])
  })

  it('the side files hold the rows as read: the bill in the bills file, its lines in the lines file', async () => {
    const dir = copied('netsuite', 'bills.csv', 'expenses.csv')
    const args = ['--lines-file', 'expenses.csv', ...netsuite, ...lookups('netsuite')]
    const result = await runBk(['bills', 'import', 'bills.csv', ...args], {env: env(), cwd: dir})
    expect(result.code, result.stderr).toBe(6)
    const rejects = rowsOf(join(dir, 'bills.rejects.csv'))
    expect(rejects[0]).toBe(
      'External ID,Vendor,Date,Due Date,Reference No.,Memo,Currency,Account,Terms,Subsidiary,Department,error',
    )
    expect(rejects.length).toBe(2)
    expect(rejects[1]).toMatch(
      /^VB-0004,1043,02\/10\/2026,,CN-7,Returned toner,USD,Accounts Payable,,Acme Bakery Inc\.,,"bills\.csv:5: /,
    )
    expect(rejects[1]).toContain(CREDIT_REASON)
    expect(rowsOf(join(dir, 'bills.rejects.lines.csv'))).toEqual([
      'External ID,Account,Amount,Memo,Department,Class,Location',
      'VB-0004,Office Expenses,-64.99,Returned toner cartridge,,,',
    ])
    // The two files import again as they are, with the same map: the same bill set aside.
    const again = await runBk(
      [
        'bills',
        'import',
        'bills.rejects.csv',
        '--dry-run',
        '--lines-file',
        'bills.rejects.lines.csv',
        ...args.slice(2),
        '--json',
      ],
      {env: env(), cwd: dir},
    )
    expect(again.stderr).not.toContain('no column')
    expect(JSON.parse(again.stdout)).toMatchObject({bills: 1, skipped: 1, invalid: 0})
  })

  it('a credit note that also has a lookup miss is set aside with both reasons, not refused', async () => {
    const dir = copied('netsuite', 'bills.csv', 'expenses.csv')
    const path = join(dir, 'expenses.csv')
    writeFileSync(path, readFileSync(path, 'utf8').replace('VB-0004,Office Expenses', 'VB-0004,Returns'))
    const result = await runBk(
      ['bills', 'import', 'bills.csv', '--lines-file', 'expenses.csv', ...netsuite, ...lookups('netsuite'), '--json'],
      {env: env(), cwd: dir},
    )
    expect(result.code, result.stderr).toBe(6)
    expect(JSON.parse(result.stdout)).toMatchObject({failed: 1, invalid: 0, created: 3})
    const [, row] = rowsOf(join(dir, 'bills.rejects.csv'))
    expect(row).toContain(CREDIT_REASON)
    expect(row).toContain('expenses.csv:7: column ""Account"" (line_ledger_id): ""Returns"" is not in the lookup file')
  })
})

describe('the side files of packed and record-type layouts hold the rows as read', () => {
  it('an IIF bill: its TRNS, SPL and ENDTRNS rows under the type header rows; the file imports again', async () => {
    const dir = copied('quickbooks-desktop', 'bills.iif')
    const args = ['--map', 'quickbooks-desktop', '--currency', 'USD', ...lookups('quickbooks-desktop')]
    const result = await runBk(['bills', 'import', 'bills.iif', ...args], {env: env(), cwd: dir})
    expect(result.code, result.stderr).toBe(6)
    const source = readFileSync(join(dir, 'bills.iif'), 'utf8').split('\r\n')
    const rejects = rowsOf(join(dir, 'bills.rejects.csv'))
    expect(rejects.slice(0, 3)).toEqual(source.slice(0, 3).map((h) => `${h}\terror`))
    // CN-7: lines 11 to 13 of the file, each with the reason.
    expect(rejects.slice(3).map((r) => r.slice(0, r.lastIndexOf('\t')))).toEqual(source.slice(10, 13))
    expect(rejects.length).toBe(6)
    for (const r of rejects.slice(3)) expect(r).toContain(CREDIT_REASON)
    const again = await runBk(['bills', 'import', 'bills.rejects.csv', '--dry-run', ...args, '--json'], {
      env: env(),
      cwd: dir,
    })
    expect(again.code, again.stderr).toBe(0)
    expect(JSON.parse(again.stdout)).toMatchObject({bills: 1, skipped: 1, invalid: 0})
  })

  it('a packed bill: its one row, packed cells and all, not a row per line', async () => {
    const dir = copied('manager-io', 'batch-update.tsv')
    const path = join(dir, 'batch-update.tsv')
    // The credit note CN-7 gets a second line, packed in its cells.
    const packed = '\tOffice expenses\tReturned toner cartridge\t1\t-64.99\t'
    const twoLines =
      '\t"Office expenses\nOffice expenses"\t"Returned toner cartridge\nReturned stapler"\t"1\n1"\t"-64.99\n-5.00"\t'
    const source = readFileSync(path, 'utf8').replace(packed, twoLines)
    writeFileSync(path, source)
    const flags = ['--date-format', 'YYYY-MM-DD', '--number-format', '1234.56', '--currency', 'GBP']
    const result = await runBk(
      ['bills', 'import', 'batch-update.tsv', '--map', 'manager-io', ...flags, ...lookups('manager-io')],
      {env: env(), cwd: dir},
    )
    expect(result.code, result.stderr).toBe(6)
    const rejects = readFileSync(join(dir, 'batch-update.rejects.csv'), 'utf8')
    const header = source.slice(0, source.search(/\r?\n/))
    expect(rejects.startsWith(`${header}\terror\n`)).toBe(true)
    // One row for the bill, as read: its packed cells hold both lines.
    expect(rejects).toContain('\t"Returned toner cartridge\nReturned stapler"\t"1\n1"\t"-64.99\n-5.00"\t')
    expect(rejects.split('CN-7').length).toBe(2)
  })
})

describe('currency marks in cells a compute: expression reads', () => {
  it('USD 5.00 read by an expression on a JPY bill is refused as a plain amount column would be', async () => {
    const dir = tempDir('bk-lines-')
    writeFileSync(
      join(dir, 'bills.csv'),
      'Invoice,Supplier,Date,Currency,Account,Qty,Price\n' +
        'A-1,ven_demo_office,2026-02-03,JPY,ldg_demo_expenses,2,USD 5.00\n' +
        'A-2,ven_demo_office,2026-02-04,JPY,ldg_demo_expenses,3,JPY 100\n',
    )
    writeFileSync(
      join(dir, 'map.yaml'),
      [
        'date_format: YYYY-MM-DD',
        'currency_symbols: true',
        'columns: {Invoice: number, Supplier: vendor_id, Date: issued_at, Currency: currency, Account: line_ledger_id}',
        'compute:',
        '  line_amount: "[Qty] * [Price]"',
        'ignore: all-others',
      ].join('\n') + '\n',
    )
    const result = await runBk(['bills', 'import', 'bills.csv', '--map', 'map.yaml'], {env: env(), cwd: dir})
    expect(result.code, result.stderr).toBe(2)
    expect(billPosts()).toEqual([])
    expect(result.stderr).toContain(
      `bills.csv:2: column "Price" (line_amount): "USD 5.00" is written in USD, but the bill's currency is JPY`,
    )
    expect(result.stderr).not.toContain('bills.csv:3:')
  })

  it('the same marked cell on every row is checked on every row (an expression keeps no marked cell)', async () => {
    const dir = tempDir('bk-lines-')
    writeFileSync(
      join(dir, 'bills.csv'),
      'Invoice,Supplier,Date,Currency,Account,Qty,Price\n' +
        'A-1,ven_demo_office,2026-02-03,JPY,ldg_demo_expenses,2,USD 5.00\n' +
        'A-2,ven_demo_office,2026-02-04,JPY,ldg_demo_expenses,2,USD 5.00\n',
    )
    writeFileSync(
      join(dir, 'map.yaml'),
      [
        'date_format: YYYY-MM-DD',
        'currency_symbols: true',
        'columns: {Invoice: number, Supplier: vendor_id, Date: issued_at, Currency: currency, Account: line_ledger_id}',
        'compute:',
        '  line_amount: "[Qty] * [Price]"',
        'ignore: all-others',
      ].join('\n') + '\n',
    )
    const result = await runBk(['bills', 'import', 'bills.csv', '--map', 'map.yaml'], {env: env(), cwd: dir})
    expect(result.code, result.stderr).toBe(2)
    expect(billPosts()).toEqual([])
    for (const line of [2, 3])
      expect(result.stderr).toContain(
        `bills.csv:${line}: column "Price" (line_amount): "USD 5.00" is written in USD, but the bill's currency is JPY`,
      )
  })
})
