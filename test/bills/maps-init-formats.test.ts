/**
 * `bk bills maps init` and the formats a file is written in, through the real binary: a preset
 * whose own date or number format does not read the sample gets the flag that does in the
 * command it prints (the command then imports the file exactly); a starter map says
 * `quotes: false` where the file can be read only so, and keeps quotes on otherwise.
 */
import {copyFileSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {ROOT, runBk, tempDir} from '../helpers/bk.js'
import {recordedEmulator} from '../helpers/recorded-emulator.js'

const BIZ = 'biz_demo_acme'
const EXPORTS = join(ROOT, 'examples', 'exports')
const recorded = recordedEmulator(BIZ)

interface Findings {
  preset: {name: string; command: string} | null
  quotes: boolean
  decide: string[]
  notes: string[]
  map: string | null
}

async function mapsInit(file: string): Promise<Findings> {
  const r = await runBk(['bills', 'maps', 'init', file, '--json'])
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as Findings
}

/**
 * The import command maps init printed, run with the values only the user can give filled in
 * (`<CODE>` and the like from `fill`) and the lookup files of the example's folder.
 */
async function runCommand(command: string, folder: string, fill: Record<string, string>) {
  const words = command.split(' ')
  expect(words.slice(0, 3)).toEqual(['bk', 'bills', 'import'])
  const args = words.slice(1).map((w) => {
    const lookup = /^(\w+)=(\w+\.csv)$/.exec(w)
    return lookup ? `${lookup[1]}=${join(EXPORTS, folder, lookup[2]!)}` : (fill[w] ?? w)
  })
  expect(args.join(' ')).not.toMatch(/</)
  const result = await runBk(args, {env: recorded.env(), cwd: tempDir('bk-init-formats-')})
  return {result, sent: recorded.billPosts().flatMap((r) => JSON.parse(r.body) as unknown[])}
}

const expected = (folder: string, name: string) =>
  JSON.parse(readFileSync(join(EXPORTS, folder, name), 'utf8')) as unknown

describe('bills maps init: a preset whose own format does not read the sample', () => {
  it('adds the date format the dates read in (four-digit years against M/D/YY), and the command imports the file', async () => {
    // A copy: an import writes its journal and rejects file beside the file.
    const file = join(tempDir('bk-init-years-'), 'export.iif')
    copyFileSync(join(EXPORTS, 'quickbooks-desktop', 'export.iif'), file)
    const found = await mapsInit(file)
    expect(found.preset?.name).toBe('quickbooks-desktop')
    expect(found.preset!.command).toContain(' --date-format M/D/YYYY')
    expect(found.notes).toContain(
      `the preset's date format (M/D/YY) does not read "02/10/2026": the dates read as M/D/YYYY, passed as --date-format`,
    )
    const {result, sent} = await runCommand(found.preset!.command, 'quickbooks-desktop', {'<CODE>': 'USD'})
    expect(result.code, result.stderr).toBe(6) // the vendor credit set aside
    expect(sent).toEqual(expected('quickbooks-desktop', 'export.expected.json'))
  })

  it('names the month-first format for a US-region file against a day-first preset, and the command imports it', async () => {
    const dir = tempDir('bk-init-us-dates-')
    const file = join(dir, 'receipts.csv')
    // KashFlow's template with its dates written month first (03/02/2026 -> 02/03/2026).
    const dayFirst = readFileSync(join(EXPORTS, 'kashflow', 'template.csv'), 'utf8')
    writeFileSync(file, dayFirst.replace(/\b(\d\d)\/(\d\d)\/(\d{4})\b/g, '$2/$1/$3'))
    const found = await mapsInit(file)
    expect(found.preset?.name).toBe('kashflow')
    expect(found.preset!.command).toContain(' --date-format MM/DD/YYYY')
    expect(found.notes).toContain(
      `the preset's date format (DD/MM/YYYY) does not read "03/14/2026": the dates read as MM/DD/YYYY, passed as --date-format`,
    )
    const {result, sent} = await runCommand(found.preset!.command, 'kashflow', {'<net|gross>': 'gross'})
    expect(result.code, result.stderr).toBe(6) // the credit note set aside
    expect(sent).toEqual(expected('kashflow', 'template.expected.json'))
  })

  it('leaves to decide a date the preset does not read and the sample reads two ways', async () => {
    const dir = tempDir('bk-init-us-dates-')
    const file = join(dir, 'receipts.csv')
    writeFileSync(
      file,
      'Supplier Code,Receipt Number,Receipt Date,Supplier Reference,Line Quantity,Line Description,Line Charge Type/Purchase Code,Line Rate,Line VAT Amount\n' +
        'NORTH01,123,3/2/26,INV-1,1,Lamp,7500,45.00,9.00\n',
    )
    const found = await mapsInit(file)
    expect(found.preset?.name).toBe('kashflow')
    expect(found.preset!.command).toContain(' --date-format <DD/MM/YY|MM/DD/YY>')
    expect(found.decide).toContain('the date format: DD/MM/YY or MM/DD/YY (each reads "3/2/26" differently)')
  })

  it('adds the number format the amounts read in (a decimal comma against plain 1234.56)', async () => {
    const dir = tempDir('bk-init-comma-')
    const file = join(dir, 'bills.iif')
    const plain = readFileSync(join(EXPORTS, 'quickbooks-desktop', 'bills.iif'), 'latin1')
    writeFileSync(file, plain.replace(/\t(-?\d+)\.(\d\d)\t/g, '\t$1,$2\t'), 'latin1')
    const found = await mapsInit(file)
    expect(found.preset?.name).toBe('quickbooks-desktop')
    expect(found.preset!.command).toContain(' --number-format 1.234,56')
    expect(found.notes).toContain(
      `the preset's number format (1234.56) does not read "12,53": the amounts read as 1.234,56, passed as --number-format`,
    )
    const {result, sent} = await runCommand(found.preset!.command, 'quickbooks-desktop', {'<CODE>': 'USD'})
    expect(result.code, result.stderr).toBe(6)
    expect(sent).toEqual(expected('quickbooks-desktop', 'bills.expected.json'))
  })
})

describe('bills maps init: quotes in a starter map', () => {
  it('says quotes: false for a file that reads only with a " as text, and the map imports it', async () => {
    const dir = tempDir('bk-init-quotes-')
    const file = join(dir, 'purchases.csv')
    writeFileSync(
      file,
      'Ref,Supplier,Posted,GL,Amount,Memo\n' +
        'P-1,ven_demo_office,2026-02-03,ldg_demo_expenses,12.50,12" ruler\n' +
        'P-2,ven_demo_office,2026-02-04,ldg_demo_expenses,3.00,Tape\n',
    )
    const found = await mapsInit(file)
    expect(found.map).toMatch(/^quotes: false {2}# a " inside a cell: the file quotes nothing, so a " is text$/m)
    expect(found.quotes).toBe(false)
    const map = join(dir, 'map.yaml')
    writeFileSync(map, found.map!)
    const result = await runBk(['bills', 'import', file, '--map', map, '--currency', 'USD'], {
      env: recorded.env(),
      cwd: dir,
    })
    expect(result.code, result.stderr).toBe(0)
    const sent = recorded.billPosts().flatMap((r) => JSON.parse(r.body) as Array<{lines: Array<{description: string}>}>)
    expect(sent.map((b) => b.lines[0]!.description)).toEqual(['12" ruler', 'Tape'])
  })

  it('keeps quotes on for a file whose sample holds no " at all', async () => {
    const dir = tempDir('bk-init-quotes-')
    const file = join(dir, 'purchases.tsv')
    writeFileSync(file, 'Ref\tSupplier\tPosted\tGL\tAmount\nP-1\tAcme\t2026-02-03\tOffice\t12.50\n')
    const found = await mapsInit(file)
    expect(found.quotes).toBe(true)
    expect(found.map).not.toMatch(/^quotes:/m)
  })
})
