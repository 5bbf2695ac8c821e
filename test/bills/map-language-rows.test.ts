/**
 * Issue 27, the rows of layouts whose lines are not one row each: a bad value of a lines file is
 * named by that file's row; its join key is matched as any column is (aliases, case); the side
 * files hold a bill's rows as read (all of them), the lines file's rows in its own side file; a
 * bill set aside for a documented reason is set aside with all its reasons. Through the real
 * binary into the emulator.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {CREDIT_REASON, exampleText, presetCases, rowsOf} from '../helpers/preset-case.js'

const {presetCase, billPosts} = presetCases()

const netsuite = ['--date-format', 'MM/DD/YYYY', '--number-format', '1,234.56']
/** NetSuite's bills.csv with `expenses` (the example's, unless given) as its lines file. */
const withLines = (flags: string[] = [], expenses = exampleText('netsuite', 'expenses.csv')) =>
  presetCase<{number: string}>({
    preset: 'netsuite',
    file: 'bills.csv',
    files: {'expenses.csv': expenses},
    flags: ['--lines-file', 'expenses.csv', ...netsuite, ...flags],
  })

describe('a lines file (--lines-file)', () => {
  it('a bad value of the lines file names that file, its row, its column and the value; nothing sent', async () => {
    // Line 4 (VB-0001's toner) gets an amount that is not a number, line 5 an unknown account.
    const expenses = exampleText('netsuite', 'expenses.csv')
      .replace('129.98', '129.9O')
      .replace('VB-0002,Software', 'VB-0002,Sofware')
    const result = await withLines([], expenses)
    expect(result.code, result.stderr).toBe(2)
    expect(billPosts()).toEqual([])
    expect(result.stderr).toContain('expenses.csv:4: column "Amount" (line_amount): "129.9O" is not')
    expect(result.stderr).toContain(
      'expenses.csv:5: column "Account" (line_ledger_id): "Sofware" is not in the lookup file',
    )
  })

  it('the join key is matched in both files as any column is: by an alias, whatever its case', async () => {
    const renamed = (file: string, to: string) => exampleText('netsuite', file).replace(/^External ID,/, `${to},`)
    const map = [
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
    ]
    const result = await presetCase<{number: string}>({
      preset: 'netsuite',
      file: 'bills.csv',
      text: renamed('bills.csv', 'Bill ID'),
      files: {'expenses.csv': renamed('expenses.csv', 'BILL  id'), 'map.yaml': map.join('\n') + '\n'},
      map: 'map.yaml',
      flags: ['--lines-file', 'expenses.csv', ...netsuite],
    })
    expect(result.stderr).not.toContain('no column')
    expect(result.code, result.stderr).toBe(6)
    expect(result.sent.map((b) => b.number)).toEqual(['VB-0001', 'VB-0002', 'VB-0003'])
  })

  it('a layout rule (when_column) holds for every spelling of its headers (aliases)', async () => {
    // NetSuite's number is Reference No. whenever the file has it, under any of its spellings;
    // read by the literal header alone, Reference Number was dropped and the External ID sent as
    // each bill's number.
    const asWritten = await withLines(['--dry-run', '--show', '50'])
    const numbers = (JSON.parse(asWritten.stdout) as Array<{number: string}>).map((b) => b.number)
    expect(numbers).toEqual(['INV-1001', 'INV-1001', 'FS-20260207'])
    for (const spelling of ['Reference Number', 'tranid']) {
      const result = await presetCase({
        preset: 'netsuite',
        file: 'bills.csv',
        text: exampleText('netsuite', 'bills.csv').replace('Reference No.', spelling),
        files: {'expenses.csv': exampleText('netsuite', 'expenses.csv')},
        flags: ['--lines-file', 'expenses.csv', ...netsuite, '--dry-run', '--show', '50'],
      })
      expect(result.code, result.stderr).toBe(0)
      expect((JSON.parse(result.stdout) as Array<{number: string}>).map((b) => b.number)).toEqual(numbers)
    }
  })

  it('a layout rule that would drop the header that sets it off is refused before any row', async () => {
    const map = [
      'columns: {Bill no.: number, Supplier: vendor_id, Bill Date: issued_at, Account: line_ledger_id, Line Amount: line_amount}',
      'aliases:',
      '  Account: [Expense Line Account, Expense Account]',
      'when_column:',
      '  Expense Line Account: {Account: ~}',
    ]
    const result = await presetCase({
      file: 'bills.csv',
      text: 'Bill no.,Supplier,Bill Date,Expense Line Account,Line Amount\nB-1,ven_demo_office,2026-02-03,ldg_demo_expenses,10.00\n',
      files: {'map.yaml': map.join('\n') + '\n'},
      map: 'map.yaml',
      flags: ['--currency', 'EUR'],
    })
    expect(result.code, result.stderr).toBe(2)
    expect(billPosts()).toEqual([])
    expect(result.stderr).toContain(
      'map.yaml:5:35: drops "Account" and its aliases, among them "Expense Line Account", the header that sets off this rule',
    )
  })

  it('the side files hold the rows as read: the bill in the bills file, its lines in the lines file', async () => {
    const result = await withLines()
    expect(result.code, result.stderr).toBe(6)
    const rejects = result.rejects!
    expect(rejects[0]).toBe(
      'External ID,Vendor,Date,Due Date,Reference No.,Memo,Currency,Account,Terms,Subsidiary,Department,error',
    )
    expect(rejects.length).toBe(2)
    expect(rejects[1]).toMatch(
      /^VB-0004,1043,02\/10\/2026,,CN-7,Returned toner,USD,Accounts Payable,,Acme Bakery Inc\.,,"bills\.csv:5: /,
    )
    expect(rejects[1]).toContain(CREDIT_REASON)
    expect(rowsOf(join(result.dir, 'bills.rejects.lines.csv'))).toEqual([
      'External ID,Account,Amount,Memo,Department,Class,Location',
      'VB-0004,Office Expenses,-64.99,Returned toner cartridge,,,',
    ])
    // The two files import again as they are, with the same map: the same bill set aside.
    const again = await presetCase({
      preset: 'netsuite',
      file: 'bills.rejects.csv',
      dir: result.dir,
      flags: ['--dry-run', '--lines-file', 'bills.rejects.lines.csv', ...netsuite, '--json'],
    })
    expect(again.stderr).not.toContain('no column')
    expect(JSON.parse(again.stdout)).toMatchObject({bills: 1, skipped: 1, invalid: 0})
  })

  it('a credit note that also has a lookup miss is set aside with both reasons, not refused', async () => {
    const expenses = exampleText('netsuite', 'expenses.csv').replace('VB-0004,Office Expenses', 'VB-0004,Returns')
    const result = await withLines(['--json'], expenses)
    expect(result.code, result.stderr).toBe(6)
    expect(JSON.parse(result.stdout)).toMatchObject({failed: 1, invalid: 0, created: 3})
    const [, row] = result.rejects!
    expect(row).toContain(CREDIT_REASON)
    expect(row).toContain('expenses.csv:7: column ""Account"" (line_ledger_id): ""Returns"" is not in the lookup file')
  })

  it('a changed lines file is told as a changed bills file is: refused without --resume, said with it', async () => {
    // Exit 6: the example's credit note is set aside, the rest created.
    const first = await withLines()
    expect(first.code, first.stderr).toBe(6)
    const created = first.sent.length
    expect(created).toBeGreaterThan(0)
    const expenses = join(first.dir, 'expenses.csv')
    writeFileSync(expenses, readFileSync(expenses, 'utf8').replace('129.98', '139.98'))
    const again = (more: string[]) =>
      presetCase<{number: string}>({
        preset: 'netsuite',
        file: 'bills.csv',
        dir: first.dir,
        flags: ['--lines-file', 'expenses.csv', ...netsuite, ...more],
      })
    const refused = await again([])
    expect(refused.code, refused.stderr).toBe(2)
    expect(refused.stderr).toMatch(
      /created, and the lines file expenses\.csv has changed since its journal began \(\d+ bytes modified \S+ then, \d+ bytes modified \S+ now\)/,
    )
    const resumed = await again(['--resume'])
    expect(resumed.code, resumed.stderr).toBe(6)
    expect(resumed.stderr).toContain('the lines file expenses.csv has changed since its journal began')
    expect(resumed.sent.length).toBe(created)
  })

  it("a resume naming its lines file by another path compares that file, not the first run's", async () => {
    const first = await withLines()
    expect(first.code, first.stderr).toBe(6)
    // The first run's file stays as it was; the one this run names differs from it.
    const text = readFileSync(join(first.dir, 'expenses.csv'), 'utf8')
    writeFileSync(join(first.dir, 'expenses-fixed.csv'), text.replace('129.98', '139.98'))
    const resumed = await presetCase({
      preset: 'netsuite',
      file: 'bills.csv',
      dir: first.dir,
      flags: ['--lines-file', 'expenses-fixed.csv', ...netsuite, '--resume'],
    })
    expect(resumed.code, resumed.stderr).toBe(6)
    expect(resumed.stderr).toMatch(
      /the lines file expenses-fixed\.csv has changed since its journal began \(\d+ bytes modified \S+ then, \d+ bytes modified \S+ now\)/,
    )
  })
})

describe('the side files of packed and record-type layouts hold the rows as read', () => {
  it('an IIF bill: its TRNS, SPL and ENDTRNS rows under the type header rows; the file imports again', async () => {
    const iif = {preset: 'quickbooks-desktop', flags: ['--currency', 'USD']}
    const result = await presetCase({...iif, file: 'bills.iif'})
    expect(result.code, result.stderr).toBe(6)
    const source = exampleText('quickbooks-desktop', 'bills.iif').split('\r\n')
    const rejects = result.rejects!
    expect(rejects.slice(0, 3)).toEqual(source.slice(0, 3).map((h) => `${h}\terror`))
    // CN-7: lines 11 to 13 of the file, each with the reason.
    expect(rejects.slice(3).map((r) => r.slice(0, r.lastIndexOf('\t')))).toEqual(source.slice(10, 13))
    expect(rejects.length).toBe(6)
    for (const r of rejects.slice(3)) expect(r).toContain(CREDIT_REASON)
    const again = await presetCase({
      ...iif,
      file: 'bills.rejects.csv',
      dir: result.dir,
      flags: ['--dry-run', ...iif.flags, '--json'],
    })
    expect(again.code, again.stderr).toBe(0)
    expect(JSON.parse(again.stdout)).toMatchObject({bills: 1, skipped: 1, invalid: 0})
  })

  it('a packed bill: its one row, packed cells and all, not a row per line', async () => {
    // The credit note CN-7 gets a second line, packed in its cells.
    const packed = '\tOffice expenses\tReturned toner cartridge\t1\t-64.99\t'
    const twoLines =
      '\t"Office expenses\nOffice expenses"\t"Returned toner cartridge\nReturned stapler"\t"1\n1"\t"-64.99\n-5.00"\t'
    const source = exampleText('manager-io', 'batch-update.tsv').replace(packed, twoLines)
    const result = await presetCase({
      preset: 'manager-io',
      file: 'batch-update.tsv',
      text: source,
      flags: ['--date-format', 'YYYY-MM-DD', '--number-format', '1234.56', '--currency', 'GBP'],
    })
    expect(result.code, result.stderr).toBe(6)
    const rejects = readFileSync(join(result.dir, 'batch-update.rejects.csv'), 'utf8')
    const header = source.slice(0, source.search(/\r?\n/))
    expect(rejects.startsWith(`${header}\terror\n`)).toBe(true)
    // One row for the bill, as read: its packed cells hold both lines.
    expect(rejects).toContain('\t"Returned toner cartridge\nReturned stapler"\t"1\n1"\t"-64.99\n-5.00"\t')
    expect(rejects.split('CN-7').length).toBe(2)
  })
})

describe('currency marks in cells a compute: expression reads', () => {
  const map = [
    'date_format: YYYY-MM-DD',
    'currency_symbols: true',
    'columns: {Invoice: number, Supplier: vendor_id, Date: issued_at, Currency: currency, Account: line_ledger_id}',
    'compute:',
    '  line_amount: "[Qty] * [Price]"',
    'ignore: all-others',
  ]
  /** The rows under a header with Qty and Price, imported through a map whose line amount is Qty × Price. */
  const pricedRows = (...rows: string[]) =>
    presetCase({
      file: 'bills.csv',
      text: 'Invoice,Supplier,Date,Currency,Account,Qty,Price\n' + rows.join(''),
      files: {'map.yaml': map.join('\n') + '\n'},
      map: 'map.yaml',
    })

  it('USD 5.00 read by an expression on a JPY bill is refused as a plain amount column would be', async () => {
    const result = await pricedRows(
      'A-1,ven_demo_office,2026-02-03,JPY,ldg_demo_expenses,2,USD 5.00\n' +
        'A-2,ven_demo_office,2026-02-04,JPY,ldg_demo_expenses,3,JPY 100\n',
    )
    expect(result.code, result.stderr).toBe(2)
    expect(billPosts()).toEqual([])
    expect(result.stderr).toContain(
      `bills.csv:2: column "Price" (line_amount): "USD 5.00" is written in USD, but the bill's currency is JPY`,
    )
    expect(result.stderr).not.toContain('bills.csv:3:')
  })

  it('the same marked cell on every row is checked on every row (an expression keeps no marked cell)', async () => {
    const result = await pricedRows(
      'A-1,ven_demo_office,2026-02-03,JPY,ldg_demo_expenses,2,USD 5.00\n' +
        'A-2,ven_demo_office,2026-02-04,JPY,ldg_demo_expenses,2,USD 5.00\n',
    )
    expect(result.code, result.stderr).toBe(2)
    expect(billPosts()).toEqual([])
    for (const line of [2, 3])
      expect(result.stderr).toContain(
        `bills.csv:${line}: column "Price" (line_amount): "USD 5.00" is written in USD, but the bill's currency is JPY`,
      )
  })
})
