/**
 * Issue 27: with a lines file (`lines_file:`, `--lines-file`), every check of a value the lines
 * file gave names that file, its row and its own column, whichever stage finds it: reading (a
 * control character), translating, or assembling the bill (an amount, a ledger or an account id,
 * line metadata, a computed value). Through the real binary into the emulator: exit 2, nothing sent.
 */
import {copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {ROOT, runBk, tempDir} from '../helpers/bk.js'
import {recordedEmulator} from '../helpers/recorded-emulator.js'

const BIZ = 'biz_demo_acme'
const ex = (file: string) => join(ROOT, 'examples', 'exports', 'netsuite', file)
const recorded = recordedEmulator(BIZ)
const {env, billPosts} = recorded

const NETSUITE = ['--map', 'netsuite', '--date-format', 'MM/DD/YYYY', '--number-format', '1,234.56']
const LOOKUPS = [
  ...['--lookup', `vendor_id=${ex('vendors.csv')}`],
  ...['--lookup', `line_ledger_id=${ex('ledgers.csv')}`],
]

/** The example's two files in a fresh folder, the lines file changed by `edit`. */
function files(edit: (lines: string) => string): string {
  const dir = tempDir('bk-lines-rows-')
  copyFileSync(ex('bills.csv'), join(dir, 'bills.csv'))
  writeFileSync(join(dir, 'expenses.csv'), edit(readFileSync(ex('expenses.csv'), 'utf8')))
  return dir
}

/** A map of the example's columns, the lines file's as `lines`; its ledgers ids in the cells. */
function ownMap(dir: string, lines: string[], more: string[] = []): string[] {
  writeFileSync(
    join(dir, 'map.yaml'),
    [
      'columns:',
      '  External ID: number',
      '  Vendor: vendor_id',
      '  Date: issued_at',
      '  Currency: currency',
      ...lines.map((l) => `  ${l}`),
      'lines_file: {key: External ID}',
      'ignore: all-others',
      'credit: {negative_total: true}',
      'credits: skip',
      ...more,
    ].join('\n') + '\n',
  )
  return ['--map', 'map.yaml', '--date-format', 'MM/DD/YYYY', '--number-format', '1,234.56']
}

const withIds = (text: string) =>
  text
    .replaceAll(',Office Expenses,', ',ldg_demo_expenses,')
    .replaceAll(',Software,', ',ldg_demo_software,')
    .replaceAll(',Travel,', ',ldg_demo_travel,')

async function refused(dir: string, args: string[]): Promise<string> {
  const result = await runBk(['bills', 'import', 'bills.csv', '--lines-file', 'expenses.csv', ...args], {
    env: env(),
    cwd: dir,
  })
  expect(result.code, result.stderr).toBe(2)
  expect(billPosts()).toEqual([])
  return result.stderr
}

describe('a value of the lines file is named by that file, its row and its column', () => {
  it('an amount the API cannot carry exactly', async () => {
    // expenses.csv:4 is VB-0001's toner (bills.csv:2).
    const dir = files((t) => t.replace('129.98', '1234567890123.456'))
    const stderr = await refused(dir, [...NETSUITE, ...LOOKUPS])
    expect(stderr).toContain(
      'expenses.csv:4: column "Amount" (line_amount): "1234567890123.456" has more than 15 significant digits',
    )
    expect(stderr).not.toContain('bills.csv:2:')
  })

  it('an account whose looked-up id is not an id', async () => {
    const dir = files((t) => t)
    const ledgers = join(dir, 'ledgers.csv')
    writeFileSync(
      ledgers,
      readFileSync(ex('ledgers.csv'), 'utf8').replace('Travel,ldg_demo_travel', 'Travel,ldg_demo travel'),
    )
    const stderr = await refused(dir, [
      ...NETSUITE,
      ...['--lookup', `vendor_id=${ex('vendors.csv')}`, '--lookup', `line_ledger_id=${ledgers}`],
    ])
    // VB-0003 (bills.csv:4) has its two lines at expenses.csv:3 and :6.
    for (const line of [3, 6])
      expect(stderr).toContain(
        `expenses.csv:${line}: column "Account" (line_ledger_id): "ldg_demo travel" is not an id starting with ldg_`,
      )
    expect(stderr).not.toContain('bills.csv:4:')
  })

  it('a ledger id written in the lines file', async () => {
    const dir = files((t) => withIds(t).replace('VB-0002,ldg_demo_software', 'VB-0002,ldg_demo/software'))
    const args = ownMap(dir, ['lines.Account: line_ledger_id', 'lines.Amount: line_amount'])
    const stderr = await refused(dir, [...args, '--lookup', `vendor_id=${ex('vendors.csv')}`])
    expect(stderr).toContain(
      'expenses.csv:5: column "Account" (line_ledger_id): "ldg_demo/software" is not an id starting with ldg_',
    )
    expect(stderr).not.toContain('bills.csv:3:')
  })

  it('a description holding a control character', async () => {
    const dir = files((t) => t.replace('Taxi to the airport', 'Taxi\u0001to the airport'))
    const stderr = await refused(dir, [...NETSUITE, ...LOOKUPS])
    expect(stderr).toContain(
      'expenses.csv:6: column Memo: "Taxi\\u0001to the airport" holds the control character U+0001',
    )
    expect(stderr).not.toContain('bills.csv:4:')
  })

  it('line metadata that is not a JSON object', async () => {
    const dir = files(withIds)
    const args = ownMap(dir, [
      'lines.Account: line_ledger_id',
      'lines.Amount: line_amount',
      'lines.Memo: line_metadata',
    ])
    const stderr = await refused(dir, [...args, '--lookup', `vendor_id=${ex('vendors.csv')}`])
    expect(stderr).toContain(
      'expenses.csv:2: column "Memo" (line_metadata): "Printer paper, A4 80gsm" is not valid JSON',
    )
    expect(stderr).not.toContain('bills.csv:2:')
  })

  it('a computed amount the API cannot carry, and one that divides by zero', async () => {
    const dir = files(withIds)
    const big = ownMap(
      dir,
      ['lines.Account: line_ledger_id'],
      ['compute:', '  line_amount: "[lines.Amount] * 10000000000000"'],
    )
    let stderr = await refused(dir, [...big, '--lookup', `vendor_id=${ex('vendors.csv')}`])
    expect(stderr).toContain(
      'expenses.csv:4: column "line_amount = [lines.Amount] * 10000000000000" (line_amount): "1299800000000000" has more than 15 significant digits',
    )
    expect(stderr).not.toContain('bills.csv:2:')
    const zero = ownMap(
      dir,
      ['lines.Account: line_ledger_id'],
      ['compute:', '  line_amount: "[lines.Amount] / ([lines.Amount] - [lines.Amount])"'],
    )
    stderr = await refused(dir, [...zero, '--lookup', `vendor_id=${ex('vendors.csv')}`])
    expect(stderr).toContain('expenses.csv:2: column line_amount: "0" divides by zero')
    expect(stderr).not.toContain('bills.csv:2:')
  })
})

describe('the side files of a two-file import', () => {
  /** The lines file in another folder (as the repository's examples are). */
  function apart(): string {
    const dir = files((t) => t)
    mkdirSync(join(dir, 'lines'))
    renameSync(join(dir, 'expenses.csv'), join(dir, 'lines', 'expenses.csv'))
    return dir
  }
  const args = ['bills', 'import', 'bills.csv', '--lines-file', join('lines', 'expenses.csv'), ...NETSUITE, ...LOOKUPS]

  it('are one set beside the bills file, named in the summary; nothing is written beside the lines file', async () => {
    const dir = apart()
    const result = await runBk(args, {env: env(), cwd: dir})
    // VB-0004, a credit note, is set aside: its row, and its line in the lines file's side file.
    expect(result.code, result.stderr).toBe(6)
    expect(result.stdout).toContain(
      'Failed bills (fix and import again): bills.rejects.csv, their lines bills.rejects.lines.csv',
    )
    expect(readdirSync(join(dir, 'lines'))).toEqual(['expenses.csv'])
    expect(readFileSync(join(dir, 'bills.rejects.lines.csv'), 'utf8')).toBe(
      'External ID,Account,Amount,Memo,Department,Class,Location\nVB-0004,Office Expenses,-64.99,Returned toner cartridge,,,\n',
    )
  })

  it("--json names the lines file's side files", async () => {
    const result = await runBk([...args, '--json'], {env: env(), cwd: apart()})
    expect(result.code, result.stderr).toBe(6)
    expect(JSON.parse(result.stdout)).toMatchObject({
      rejects_file: 'bills.rejects.csv',
      lines_rejects_file: 'bills.rejects.lines.csv',
      lines_unconfirmed_file: null,
      lines_unsent_file: null,
    })
  })
})
