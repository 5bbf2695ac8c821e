/**
 * What the presets read beyond columns: a status that sets a bill aside (Xero's Voided and
 * Deleted), a column saying whether an amount includes tax (QuickBooks Online's Amounts Are,
 * GnuCash's taxable/taxincluded), Sage's ddmmyy dates, and the flags a map needs (`needs:`),
 * refused once before any row. Through the real binary against the emulator, behind a recording
 * proxy: the bodies received are checked exactly, and the rejects file.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {runBk, tempDir} from '../helpers/bk.js'
import {example as ex, lookups} from '../helpers/preset-case.js'
import {recordedEmulator} from '../helpers/recorded-emulator.js'

const BIZ = 'biz_demo_acme'

const recorded = recordedEmulator(BIZ)
const {env, billPosts} = recorded

/** Writes `text` as FILE in a folder of its own and imports it there. */
async function importText(file: string, text: string, args: string[]) {
  const dir = tempDir('bk-gaps-')
  writeFileSync(join(dir, file), text)
  const result = await runBk(['bills', 'import', file, ...args], {env: env(), cwd: dir})
  const sent = billPosts().flatMap((r) => JSON.parse(r.body) as Array<Record<string, unknown>>)
  // With --json the error document is on stdout: `output` holds both streams.
  return {...result, dir, sent, output: result.stdout + result.stderr}
}
const rejectsOf = (dir: string, file: string) =>
  readFileSync(join(dir, file.replace(/\.csv$/, '.rejects.csv')), 'utf8')
    .trimEnd()
    .split(/\r?\n/)

describe("xero: the export's Status column", () => {
  it('sets Voided and Deleted bills aside with the reason, and imports the rest', async () => {
    const source = readFileSync(ex('xero', 'xero-export.csv'), 'utf8').trimEnd().split(/\r?\n/)
    // Line 4 (Cloudy's INV-3001) is voided in Xero; a deleted bill is added as line 7.
    source[3] = source[3]!.replace(/,Paid$/, ',Voided')
    source.push(
      'Fly & Stay Travel,,,,,,,,,,,,,,,,,,FS-90,,10/03/2026,09/04/2026,,50.00,0.00,0.00,50.00,,Taxi,1.0000,50.00,,50.00,494,No VAT,0.00,,,,,EUR,Bill,,DELETED',
    )
    const result = await importText('export.csv', `${source.join('\n')}\n`, [
      ...['--map', 'xero', '--date-format', 'DD/MM/YYYY', '--amounts', 'gross'],
      ...lookups('xero'),
    ])
    expect(result.code, result.output).toBe(6)
    const expected = JSON.parse(readFileSync(ex('xero', 'xero-export.expected.json'), 'utf8')) as Array<{
      vendor_id: string
    }>
    expect(result.sent).toEqual(expected.filter((b) => b.vendor_id !== 'ven_demo_cloud'))
    const rejects = rejectsOf(result.dir, 'export.csv')
    expect(rejects).toHaveLength(4)
    expect(rejects[1]!.startsWith(`${source[3]},`)).toBe(true)
    expect(rejects[1]).toContain(
      'export.csv:4: column ""Status"" (status): ""Voided"" is a status whose bills are set aside (voided or deleted in Xero): not sent',
    )
    expect(rejects[2]).toContain('export.csv:5: column Type: ""Bill Credit Note"" is a credit note')
    expect(rejects[3]!.startsWith(`${source[6]},`)).toBe(true)
    expect(rejects[3]).toContain(
      'export.csv:7: column ""Status"" (status): ""DELETED"" is a status whose bills are set aside',
    )
  })

  it('refuses a status in neither list, naming the row, and sends nothing', async () => {
    const source = readFileSync(ex('xero', 'xero-export.csv'), 'utf8').trimEnd().split(/\r?\n/)
    source[3] = source[3]!.replace(/,Paid$/, ',Archived')
    const result = await importText('export.csv', `${source.join('\n')}\n`, [
      ...['--map', 'xero', '--date-format', 'DD/MM/YYYY', '--amounts', 'gross'],
      ...lookups('xero'),
    ])
    expect(result.code).toBe(2)
    expect(result.sent).toEqual([])
    expect(result.output).toContain(
      'export.csv:4: column "Status" (status): "Archived" is neither a status of bills to import (Draft, Awaiting Approval, Awaiting Payment, Paid, Submitted, Authorised) nor one to set aside (Voided, Deleted)',
    )
  })
})

describe('quickbooks-online: Amounts Are says whether Line Amount includes tax', () => {
  const header = 'Bill no.,Supplier,Bill Date,Account,Line Description,Line Amount,Amounts Are,Currency\n'
  const rows =
    'Q-1,Fly & Stay Travel,02/03/2026,Travel,Taxi,42.50,Exclusive of Tax,CAD\n' +
    'Q-2,Fly & Stay Travel,03/03/2026,Travel,Hotel,113.00,Inclusive of Tax,CAD\n' +
    'Q-3,Fly & Stay Travel,04/03/2026,Travel,Train,20.00,Out of Scope of Tax,CAD\n'
  const QBO = ['--map', 'quickbooks-online', '--date-format', 'DD/MM/YYYY', ...lookups('quickbooks-online')]

  it('with --amounts net, refuses the tax-inclusive row, naming row and value; nothing is sent', async () => {
    const result = await importText('bills.csv', header + rows, [...QBO, '--amounts', 'net'])
    expect(result.code).toBe(2)
    expect(result.sent).toEqual([])
    expect(result.output).toContain(
      'bills.csv:3: column "Amounts Are" (amounts_are): "Inclusive of Tax" says the amount is with tax (gross), but --amounts net is given and the tax is not in the file, so bk cannot take it out',
    )
    expect(result.output).not.toContain('bills.csv:2:')
    expect(result.output).not.toContain('bills.csv:4:')
  })

  it('with --amounts gross, refuses the tax-exclusive row', async () => {
    const result = await importText('bills.csv', header + rows, [...QBO, '--amounts', 'gross'])
    expect(result.code).toBe(2)
    expect(result.output).toContain(
      'bills.csv:2: column "Amounts Are" (amounts_are): "Exclusive of Tax" says the amount is without tax (net), but --amounts gross is given',
    )
  })

  it('rows of one basis and out of scope rows import as written', async () => {
    const result = await importText('bills.csv', header + rows.split('\n').slice(1).join('\n'), [
      ...QBO,
      '--amounts',
      'gross',
    ])
    expect(result.code, result.stderr).toBe(0)
    const bill = (number: string, date: string, description: string, amount: number) => ({
      number,
      vendor_id: 'ven_demo_travel',
      issued_at: `2026-03-0${date}T00:00:00Z`,
      currency: 'CAD',
      lines: [{amount, ledger_id: 'ldg_demo_travel', description}],
    })
    expect(result.sent).toEqual([bill('Q-2', '3', 'Hotel', 113), bill('Q-3', '4', 'Train', 20)])
  })

  it('without --amounts, a taxed row asks for it', async () => {
    const result = await importText('bills.csv', header + rows, QBO)
    expect(result.code).toBe(2)
    expect(result.output).toContain(
      'bills.csv:2: column "Amounts Are" (amounts_are): "Exclusive of Tax" says the amount is without tax (net), and bk sends one kind of amount for every line: pass --amounts net to send it as written',
    )
  })
})

describe('gnucash: taxable and taxincluded', () => {
  // id;date_opened;owner_id;billing_id;notes;date;desc;action;account;quantity;price;…;taxable;taxincluded;…
  const row = (id: string, desc: string, price: string, taxable: string, included: string) =>
    `${id};01/03/2026;000042;;;;${desc};;Expenses:Travel:Fares;1;${price};;;;${taxable};${included};;;;;;\n`
  const GNUCASH = [
    ...['--map', 'gnucash', '--date-format', 'DD/MM/YYYY', '--number-format', '1234.56', '--currency', 'GBP'],
    ...lookups('gnucash'),
  ]

  it('with --amounts net, refuses a taxable row whose price includes tax; untaxed rows pass', async () => {
    const text = row('G-1', 'Taxi', '12.00', 'N', '') + row('G-2', 'Hotel', '120.00', 'Y', 'Y')
    const result = await importText('bills.csv', text, [...GNUCASH, '--amounts', 'net'])
    expect(result.code).toBe(2)
    expect(result.sent).toEqual([])
    expect(result.output).toContain(
      'bills.csv:2: column 16 (amounts_are): "Y" says the amount is with tax (gross), but --amounts net is given',
    )
    expect(result.output).not.toContain('bills.csv:1:')
  })

  it('untaxed rows need no --amounts, and go as quantity x price', async () => {
    const text = row('G-3', 'Taxi', '12.00', '', '') + row('G-4', 'Train', '30.00', 'N', 'Y')
    const result = await importText('bills.csv', text, GNUCASH)
    expect(result.code, result.stderr).toBe(0)
    expect(result.sent.map((b) => b.lines)).toEqual([
      [{amount: 12, ledger_id: 'ldg_demo_travel', description: 'Taxi'}],
      [{amount: 30, ledger_id: 'ldg_demo_travel', description: 'Train'}],
    ])
  })
})

describe('sage50: ddmmyy dates', () => {
  it('reads 020326 and 03032026 as the preset lists them, with no --date-format', async () => {
    const text =
      'Type,Account Reference,Nominal A/C Ref,Department Code,Date,Reference,Details,Net Amount,Tax Code,Tax Amount\n' +
      'PI,NOR001,7500,0,020326,S-1,Paper,10.00,T1,2.00\n' +
      'PI,NOR001,7500,0,03032026,S-2,Toner,20.00,T1,4.00\n' +
      'PI,NOR001,7500,0,4/3/2026,S-3,Pens,5.00,T1,1.00\n'
    const result = await importText('trail.csv', text, [
      ...['--map', 'sage50', '--amounts', 'net', '--currency', 'GBP'],
      ...lookups('sage50'),
    ])
    expect(result.code, result.stderr).toBe(0)
    expect(result.sent.map((b) => [b.number, b.issued_at])).toEqual([
      ['S-1', '2026-03-02T00:00:00Z'],
      ['S-2', '2026-03-03T00:00:00Z'],
      ['S-3', '2026-03-04T00:00:00Z'],
    ])
  })
})

describe('needs: the flags a map needs, refused once before any row', () => {
  it('names each missing flag with what it means, once, and reads no row', async () => {
    const result = await importText('export.csv', readFileSync(ex('xero', 'xero-export.csv'), 'utf8'), [
      ...['--map', 'xero', '--date-format', 'DD/MM/YYYY'],
      ...['--lookup', `vendor_id=${ex('xero', 'vendors.csv')}`],
      '--json',
    ])
    expect(result.code).toBe(2)
    expect(result.sent).toEqual([])
    const error = JSON.parse(result.stdout) as {error: string; code: string}
    expect(error.code).toBe('flags_needed')
    expect(error.error).toBe(
      'preset xero needs flags you did not give: ' +
        '--amounts (the layout has a TaxAmount column: net sends each line without tax (Quantity x UnitAmount), gross with it (plus TaxAmount)); ' +
        '--lookup line_ledger_id=FILE.csv (AccountCode (e.g. 461) -> ldg_...)',
    )
    expect(result.stdout).not.toMatch(/export\.csv:\d/)
  })

  it('a map of your own can say it too', async () => {
    const dir = tempDir('bk-gaps-')
    writeFileSync(
      join(dir, 'map.yaml'),
      'columns: {Ref: number}\nneeds:\n  year: "the file writes dates without a year"\n',
    )
    writeFileSync(join(dir, 'bills.csv'), 'Ref\n1\n')
    const result = await runBk(['bills', 'import', 'bills.csv', '--map', 'map.yaml', '--dry-run'], {
      env: env(),
      cwd: dir,
    })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(
      'map.yaml needs a flag you did not give: --year (the file writes dates without a year)',
    )
  })
})
