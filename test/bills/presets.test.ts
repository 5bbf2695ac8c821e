/**
 * Issue 12: accounting-package exports imported as they are. Each preset's example export (written
 * from the package's documented layout, examples/exports/<preset>/) is imported through the real
 * binary, and the bodies the emulator received must be exactly the hand-computed expected.json:
 * amounts, dates, vendor and ledger ids, and two bills that share a number under two vendors.
 * Then each way an export goes wrong is refused: exit 2, the row and column named, nothing sent.
 */
import {copyFileSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {ROOT, runBk, tempDir} from '../helpers/bk.js'
import {example as ex, lookups} from '../helpers/preset-case.js'
import {recordedEmulator} from '../helpers/recorded-emulator.js'

const BIZ = 'biz_demo_acme'
/** A fixture copied into a folder of its own: an import writes its journal beside the file it reads. */
const fixture = (file: string) => {
  const copy = join(tempDir('bk-fixture-'), file)
  copyFileSync(join(ROOT, 'test', 'fixtures', 'exports', file), copy)
  return copy
}

/** The command line each example's README documents, with its lookups. */
const PRESETS: Record<string, string[]> = {
  xero: ['--map', 'xero', '--date-format', 'DD/MM/YYYY', '--amounts', 'net', '--currency', 'GBP'],
  'quickbooks-online': [
    ...['--map', 'quickbooks-online', '--date-format', 'MM/DD/YYYY'],
    ...['--number-format', '1,234.56', '--currency', 'USD'],
  ],
  gnucash: ['--map', 'gnucash', '--date-format', 'DD.MM.YYYY', '--number-format', '1.234,56', '--currency', 'EUR'],
  sage50: ['--map', 'sage50', '--date-format', 'DD/MM/YYYY', '--amounts', 'gross', '--currency', 'GBP'],
}

/** Presets whose files are not one row per line: their imports are in preset-packed-lines.test.ts. */
const STRUCTURED_PRESETS = ['manager-io', 'netsuite', 'quickbooks-desktop']

const recorded = recordedEmulator(BIZ)
const {env, billPosts} = recorded

describe.each(Object.keys(PRESETS))('bills import --map %s', (preset) => {
  it('sends exactly the bills its documented layout means', async () => {
    const dir = tempDir('bk-preset-')
    copyFileSync(ex(preset, 'bills.csv'), join(dir, 'bills.csv'))
    const result = await runBk(['bills', 'import', 'bills.csv', ...PRESETS[preset]!, ...lookups(preset)], {
      env: env(),
      cwd: dir,
    })
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const expected = JSON.parse(readFileSync(ex(preset, 'expected.json'), 'utf8')) as Array<{number: string}>
    const sent = billPosts().flatMap((r) => JSON.parse(r.body) as unknown[])
    expect(sent).toEqual(expected)
    // Two bills with one number under two vendors: two bills, never merged or refused.
    const numbers = expected.map((b) => b.number)
    expect(new Set(numbers).size).toBeLessThan(numbers.length)
    // And the service holds them: one bill per (vendor, number).
    const held = recorded
      .emulator()
      .state.bills.all(BIZ)
      .filter((b) => numbers.includes(b.number ?? ''))
      .map((b) => `${b.vendor_id} ${b.number}`)
    for (const bill of expected as Array<{vendor_id: string; number: string}>)
      expect(held).toContain(`${bill.vendor_id} ${bill.number}`)
  })
})

it('bills maps lists each preset with what it needs', async () => {
  const result = await runBk(['bills', 'maps', '--json'])
  expect(result.code, result.stderr).toBe(0)
  const presets = JSON.parse(result.stdout) as Array<{name: string; needs: string[]}>
  // Issue 29's presets are tested in preset-more.test.ts and preset-packed-lines.test.ts.
  const more = ['datev', 'kashflow', 'myob', 'odoo', 'sage-accounting']
  expect(presets.map((p) => p.name)).toEqual([...Object.keys(PRESETS), ...STRUCTURED_PRESETS, ...more].sort())
  // Each of the first four needs its lookups; Sage 50 (UK and Ireland) writes dates day first, so
  // its preset lists the formats itself, and the others ask for --date-format.
  for (const p of presets.filter((p) => p.name in PRESETS)) {
    expect(
      p.needs.filter((n) => n.startsWith('--lookup ')),
      p.name,
    ).toHaveLength(2)
    expect(
      p.needs.some((n) => n.startsWith('--date-format')),
      p.name,
    ).toBe(p.name !== 'sage50')
  }
})

it('gnucash: a blank quantity is 1, as GnuCash reads it', async () => {
  const dir = tempDir('bk-gnucash-qty-')
  writeFileSync(join(dir, 'bills.csv'), 'R-9;03.02.2026;000017;;;;Lamp;pc;Expenses:Office Supplies;;23,45;;;;;;;;;;;\n')
  const result = await runBk(
    ['bills', 'import', 'bills.csv', ...PRESETS.gnucash!, ...lookups('gnucash'), '--dry-run', '--show', '1'],
    {env: env(), cwd: dir},
  )
  expect(result.code, result.stderr).toBe(0)
  expect(JSON.parse(result.stdout)).toEqual([
    expect.objectContaining({lines: [expect.objectContaining({amount: 23.45})]}),
  ])
})

describe('an export that does not read is refused whole: exit 2, row and column named, nothing sent', () => {
  const refused = async (args: string[], ...messages: string[]) => {
    const dir = tempDir('bk-preset-bad-')
    const result = await runBk(['bills', 'import', ...args], {env: env(), cwd: dir})
    expect(result.code, result.stderr).toBe(2)
    for (const m of messages) expect(result.stderr).toContain(m)
    expect(billPosts()).toEqual([])
    return result
  }
  const xero = (...flags: string[]) => [
    ...flags,
    '--map',
    'xero',
    '--amounts',
    'net',
    '--currency',
    'GBP',
    ...lookups('xero'),
  ]

  it('a preset used without --date-format: refused once, before any row, saying what it means', async () => {
    const result = await refused(
      xero(fixture('xero-ambiguous-date.csv')),
      "preset xero needs a flag you did not give: --date-format (Xero writes dates in the organisation's region: DD/MM/YYYY (UK, AU, NZ), MM/DD/YYYY (US))",
    )
    expect(result.stderr).not.toContain('xero-ambiguous-date.csv:2')
  })

  it('a comma-separated GnuCash file: one Error and a Hint naming --delimiter, before any row', async () => {
    // GnuCash takes "," as well as the preset's ";": its own export, re-saved by a spreadsheet.
    const file = join(tempDir('bk-gnucash-comma-'), 'bills.csv')
    const rows = [
      'R-1,03.02.2026,000017,,,,Desk lamps,pc,Expenses:Office Supplies,5,"23,45",,,,,,,,,,,',
      'R-1,,,,,,Toner,pc,Expenses:Office Supplies,2,"64,99",,,,,,,,,,,',
      'R-2,05.02.2026,000023,,,,Cloud server,ea,Expenses:Software,1,"1.250,00",,,,,,,,,,,',
    ]
    writeFileSync(file, rows.join('\n') + '\n')
    for (const flags of [[], ['--dry-run']]) {
      const result = await refused(
        [file, ...PRESETS.gnucash!, ...lookups('gnucash'), ...flags],
        `Error: ${file}:1: the line splits into 1 field at ";" (the delimiter of preset gnucash) but into 22 at ","\n`,
        'Hint: The file is comma-separated: pass --delimiter , and run the command again.\n',
      )
      expect(result.stderr.split('\n').filter(Boolean)).toHaveLength(2)
      expect(result.stderr).not.toContain('RFC 4180')
    }
  })

  it('an impossible date', async () => {
    await refused(
      xero(fixture('xero-impossible-date.csv'), '--date-format', 'DD/MM/YYYY'),
      'xero-impossible-date.csv:2: column "*InvoiceDate" (issued_at): "31/02/2026" is not a real date (DD/MM/YYYY): month 2 of 2026 has 28 days',
    )
  })

  it('a number in another format than declared', async () => {
    await refused(
      [fixture('qbo-wrong-number-format.csv'), ...PRESETS['quickbooks-online']!, ...lookups('quickbooks-online')],
      'qbo-wrong-number-format.csv:2: column "Line Amount" (line_amount): "1.250,00" is not a number: expected a number written 1,234.56',
      'check --number-format',
    )
  })

  it('a value the map converted is named as the file writes it, and as bk read it', async () => {
    const file = join(tempDir('bk-qbo-digits-'), 'bills.csv')
    const text = readFileSync(ex('quickbooks-online', 'bills.csv'), 'utf8').split('\n')
    text[2] = text[2]!.replace(/,[^,]*$/, ',"1,000,000,000,000,000,000.00"')
    writeFileSync(file, text.join('\n'))
    await refused(
      [file, ...PRESETS['quickbooks-online']!, ...lookups('quickbooks-online'), '--dry-run'],
      `${file}:3: column "Line Amount" (line_amount): "1,000,000,000,000,000,000.00" (read as "1000000000000000000.00") has more than 15 significant digits`,
    )
  })

  it('a value missing from a lookup, listed once by --dry-run', async () => {
    const file = fixture('xero-vendor-missing.csv')
    const args = xero(file, '--date-format', 'DD/MM/YYYY')
    const result = await refused(
      args,
      'xero-vendor-missing.csv:2: column "*ContactName" (vendor_id): "Southwind Paper Co" is not in the lookup file',
      'vendors.csv',
    )
    expect(result.stderr).toContain('xero-vendor-missing.csv:3:')
    const dry = await refused([...args, '--dry-run'])
    expect(dry.stderr.match(/missing from lookups: .*Southwind Paper Co/g)?.length).toBe(1)
  })

  it('a unit price mapped to the line amount while the quantity is dropped', async () => {
    await refused(
      [ex('xero', 'bills.csv'), '--map', fixture('dropped-quantity.yaml'), '--date-format', 'DD/MM/YYYY'],
      '"*UnitAmount" (a unit price) feeds line_amount while "*Quantity" is dropped',
      '"*Quantity": quantity',
    )
  })

  it('with --credits refuse, a credit note, marked by a column (Sage PC) or by negative amounts (Xero)', async () => {
    await refused(
      [fixture('sage50-credit-note.csv'), ...PRESETS.sage50!, ...lookups('sage50'), '--credits', 'refuse'],
      'sage50-credit-note.csv:2: column Type: "PC" marks a credit note',
    )
    await refused(
      xero(fixture('xero-credit-note.csv'), '--date-format', 'DD/MM/YYYY', '--credits', 'refuse'),
      'xero-credit-note.csv:2: column "*Quantity × *UnitAmount" (line_amount): "-',
      'marks a credit note',
    )
  })

  it('a row of another kind than a bill (a Sage sales invoice)', async () => {
    await refused(
      [fixture('sage50-sales-row.csv'), ...PRESETS.sage50!, ...lookups('sage50')],
      'sage50-sales-row.csv:3: column Type: "SI" is neither a bill type (PI) nor a credit type (PC)',
    )
  })

  it('a continuation row that names another vendor', async () => {
    await refused(
      [fixture('gnucash-continuation-conflict.csv'), ...PRESETS.gnucash!, ...lookups('gnucash')],
      // The cell as written, then the id its lookup gave: the number is what the file holds.
      'gnucash-continuation-conflict.csv:2: column 3 (vendor_id): "000023" (read as "ven_',
      'differs from line 1',
    )
  })

  it('a * header left unquoted in a map', async () => {
    await refused(
      [ex('xero', 'bills.csv'), '--map', fixture('star-header-unquoted.yaml'), '--date-format', 'DD/MM/YYYY'],
      'star-header-unquoted.yaml:5:',
      'must be quoted in YAML: "*ContactName"',
    )
  })

  it('a Windows-1252 file read as UTF-8', async () => {
    await refused(
      [fixture('sage50-cp1252-as-utf8.csv'), ...PRESETS.sage50!, '--encoding', 'utf-8', ...lookups('sage50')],
      'sage50-cp1252-as-utf8.csv:2: column Details: ',
      '--encoding windows-1252',
    )
  })

  it('a ; file without a header row, read as bk format', async () => {
    await refused([fixture('gnucash-no-header.csv')], 'gnucash-no-header.csv:1: unknown column', "--delimiter ';'")
  })
})

describe('--skip-existing', () => {
  it('a second export that overlaps the first creates only the new bills', async () => {
    const dir = tempDir('bk-skip-existing-')
    const config = {BK_CONFIG_DIR: join(dir, 'config')}
    const text = readFileSync(ex('quickbooks-online', 'bills.csv'), 'utf8').trimEnd().split('\n')
    // The first night's export: the header and the first two bills (rows 2-4); the second: all of it.
    writeFileSync(join(dir, 'monday.csv'), text.slice(0, 4).join('\n') + '\n')
    writeFileSync(join(dir, 'tuesday.csv'), text.join('\n') + '\n')
    const args = (file: string) => [
      ...['bills', 'import', file, ...PRESETS['quickbooks-online']!, ...lookups('quickbooks-online')],
      '--skip-existing',
      '--json',
    ]
    const monday = await runBk(args('monday.csv'), {env: {...env(), ...config}, cwd: dir})
    expect(monday.code, monday.stderr).toBe(0)
    const first = billPosts().flatMap((r) => JSON.parse(r.body) as Array<{number: string; vendor_id: string}>)
    expect(first.length).toBe(2)
    recorded.proxy().requests.length = 0
    const tuesday = await runBk(args('tuesday.csv'), {env: {...env(), ...config}, cwd: dir})
    expect(tuesday.code, tuesday.stderr).toBe(0)
    const second = billPosts().flatMap((r) => JSON.parse(r.body) as Array<{number: string; vendor_id: string}>)
    const key = (b: {number: string; vendor_id: string}) => `${b.vendor_id} ${b.number}`
    expect(second.map(key)).not.toEqual(expect.arrayContaining(first.map(key).slice(0, 1)))
    for (const b of first) expect(second.map(key)).not.toContain(key(b))
    expect(second.length).toBe(2)
    const summary = JSON.parse(tuesday.stdout) as {created: number; skipped: number; existing: number}
    expect(summary).toMatchObject({created: 2, skipped: 2, existing: 2})
  })
})
