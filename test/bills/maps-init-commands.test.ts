/**
 * What `bk bills maps init` prints runs as printed: for every example export a preset reads, the
 * import command (its placeholders filled as the example's README fills them) passes the check
 * of the preset's `needs:` and reads every row; a lookups command reads the file as the import
 * does. A file in
 * UTF-16 is read as the import reads it, and a header row naming a column twice gets a map the
 * import accepts.
 */
import {cpSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {ROOT, runBk, runShellLine, tempDir} from '../helpers/bk.js'
import {exampleExports, flagValue, type ExampleExport} from './example-exports.js'

interface Findings {
  encoding: string
  preset: {name: string; command: string; lookups: string | null} | null
  map: string | null
}

async function mapsInit(file: string, cwd?: string): Promise<Findings> {
  const r = await runBk(['bills', 'maps', 'init', file, '--json'], cwd ? {cwd} : {})
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as Findings
}

/** A printed command as words: `'x'` unquoted, as the shell would. */
const words = (command: string) =>
  command
    .split(' ')
    .slice(1)
    .map((w) => w.replace(/^'(.*)'$/, '$1'))

/** A placeholder (`<CODE>`, `<net|gross>`) filled with the README's value for its flag, else its first choice. */
function filled(args: string[], example: ExampleExport, dir: string): string[] {
  return args.map((word, i) => {
    const placeholder = /^<(.*)>$/.exec(word)
    if (!placeholder) return word
    const readme = flagValue(example.flags ?? [], args[i - 1]!)
    if (args[i - 1] === '--lines-file') return join(dir, basename(readme!))
    if (readme) return readme
    return args[i - 1] === '--currency' ? 'EUR' : placeholder[1]!.split('|')[0]!
  })
}

const withPreset = exampleExports().filter((e) => e.preset !== undefined)

describe.each(withPreset)('bills maps init $folder/$file: the printed commands', (example) => {
  it("run once their placeholders are filled: the import gets every flag the preset's needs: names", async () => {
    // The example's folder (its lookup files, a lines file) copied: the commands run in it.
    const dir = tempDir('bk-maps-init-command-')
    cpSync(dirname(example.path), dir, {recursive: true})
    const found = await mapsInit(example.file, dir)
    expect(found.preset?.name).toBe(example.preset)
    const args = filled(words(found.preset!.command), example, dir)
    const result = await runBk([...args, '--dry-run'], {cwd: dir})
    expect(result.stderr).not.toContain('you did not give')
    expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(0)
  })
})

describe('bills maps init on a DATEV file, whose vendor and ledger ids the preset computes', () => {
  it('prints the lookups in the import command and a lookups command that reads the file as the import does', async () => {
    const dir = tempDir('bk-maps-init-datev-')
    // examples/exports/datev/bills.csv is UTF-8, where the preset reads Windows-1252: --encoding utf-8.
    cpSync(join(ROOT, 'examples/exports/datev/bills.csv'), join(dir, 'bills.csv'))
    const found = await mapsInit('bills.csv', dir)
    expect(found.preset?.command).toBe(
      'bk bills import bills.csv --map datev --encoding utf-8 --lookup vendor_id=vendors.csv --lookup line_ledger_id=ledgers.csv',
    )
    expect(found.preset?.lookups).toBe('bk bills lookups init bills.csv --map datev --encoding utf-8')
    const lookups = await runBk(words(found.preset!.lookups!), {cwd: dir})
    expect(lookups.code, lookups.stderr).toBe(0)
    expect(lookups.stdout).toContain(
      'Then: bk bills import bills.csv --map datev --encoding utf-8 --lookup vendor_id=vendors.csv --lookup line_ledger_id=ledgers.csv --dry-run',
    )
    expect(readFileSync(join(dir, 'vendors.csv'), 'utf8')).toBe(
      'vendor_id (computed),vendor_id\n70001,\n70002,\n70003,\n',
    )
  })
})

describe('bills maps init on a UTF-16 file', () => {
  const utf16 = (from: string, dir: string, encoding: 'utf-8' | 'windows-1252') => {
    const text = new TextDecoder(encoding).decode(readFileSync(from))
    const file = join(dir, basename(from))
    writeFileSync(file, Buffer.from(`\uFEFF${text}`, 'utf16le'))
    for (const f of readdirSync(dirname(from)).filter((n) => /^(vendors|ledgers)\.csv$/.test(n)))
      cpSync(join(dirname(from), f), join(dir, f))
    return file
  }

  it('reads it by its byte order mark, as the import does, and names the preset', async () => {
    const dir = tempDir('bk-maps-init-utf16-')
    const file = utf16(join(ROOT, 'examples/exports/quickbooks-online/bills.csv'), dir, 'utf-8')
    const found = await mapsInit(file)
    expect(found.encoding).toBe('utf-16le')
    expect(found.preset?.name).toBe('quickbooks-online')
    expect(found.preset!.command).not.toContain('--encoding')
  })

  it("is read by its mark whatever the preset's encoding: the printed command imports it", async () => {
    // sage50 reads Windows-1252: a UTF-16 file is still read as UTF-16, with no --encoding to pass.
    const dir = tempDir('bk-maps-init-utf16-')
    const file = utf16(join(ROOT, 'examples/exports/sage50/bills.csv'), dir, 'windows-1252')
    const found = await mapsInit(file)
    expect(found.preset?.name).toBe('sage50')
    expect(found.preset!.command).not.toContain('--encoding')
    const args = words(found.preset!.command).map((w) => (w === '<net|gross>' ? 'gross' : w === '<CODE>' ? 'GBP' : w))
    const result = await runBk([...args, '--dry-run', '--show', '1'], {cwd: dir})
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toContain('4 bills, 4 valid')
  })
})

describe('bills maps init on a header row naming a column twice', () => {
  it('writes a map reading the columns by position, says which header repeats, and the import accepts it', async () => {
    const dir = tempDir('bk-maps-init-repeated-')
    const file = join(dir, 'bills.csv')
    writeFileSync(file, 'Ref,Supplier,Account,Amount,Amount\nB-1,ven_acme,ldg_office,12.50,99.00\n')
    const out = join(dir, 'map.yaml')
    const r = await runBk(['bills', 'maps', 'init', file, '--out', out])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('The header row names "Amount" on columns 4, 5')
    const map = readFileSync(out, 'utf8')
    expect(map).toMatch(/^header: false\b/m)
    expect(map).toMatch(/^skip_lines: 1\b/m)
    expect(map).toMatch(/^ {2}4: line_amount +# "Amount"/m)
    const result = await runBk(['bills', 'import', file, '--map', out, '--currency', 'EUR', '--dry-run', '--show', '1'])
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual([
      {
        number: 'B-1',
        vendor_id: 'ven_acme',
        currency: 'EUR',
        lines: [{amount: 12.5, ledger_id: 'ldg_office'}],
      },
    ])
  })
})

describe('bills lookups init for a preset with needs:, after maps init', () => {
  it("prints maps init's import command, which runs once the lookups and placeholders are filled", async () => {
    const dir = tempDir('bk-lookups-then-')
    const example = join(ROOT, 'examples/exports/quickbooks-online')
    cpSync(join(example, 'bills.csv'), join(dir, 'qbo2.csv'))
    const found = await mapsInit('qbo2.csv', dir)
    expect(found.preset?.name).toBe('quickbooks-online')
    const lookups = await runBk(['bills', 'lookups', 'init', 'qbo2.csv', '--map', 'quickbooks-online'], {cwd: dir})
    expect(lookups.code, lookups.stderr).toBe(0)
    const then = /^Then: (.*)$/m.exec(lookups.stdout)?.[1]
    expect(then).toBe(`${found.preset!.command} --dry-run`)
    // The lookup files filled in: the example's own.
    for (const f of ['vendors.csv', 'ledgers.csv']) cpSync(join(example, f), join(dir, f))
    const args = words(then!).map((w) => (w === '<CODE>' ? 'USD' : w))
    const result = await runBk(args, {cwd: dir})
    expect(result.stderr).not.toContain('you did not give')
    expect(result.code, result.stderr).toBe(0)
  })
  it('quotes the paths in its Then: line for the shell: pasted into sh, the import reads the files named', async () => {
    const dir = tempDir('bk-lookups-then-quoted-')
    const example = join(ROOT, 'examples/exports/quickbooks-online')
    const file = "it's $HOME bills.csv"
    cpSync(join(example, 'bills.csv'), join(dir, file))
    const lookups = await runBk(
      ['bills', 'lookups', 'init', file, '--map', 'quickbooks-online', '--dir', 'my lookups'],
      {cwd: dir},
    )
    expect(lookups.code, lookups.stderr).toBe(0)
    const then = /^Then: (.*)$/m.exec(lookups.stdout)?.[1] ?? ''
    expect(then).toContain(`bk bills import 'it'\\''s $HOME bills.csv' --map quickbooks-online `)
    expect(then).toContain(`--lookup 'vendor_id=my lookups/vendors.csv'`)
    for (const f of ['vendors.csv', 'ledgers.csv']) cpSync(join(example, f), join(dir, 'my lookups', f))
    const result = await runShellLine(then.replace('<CODE>', 'USD'), {cwd: dir}, 'sh')
    expect(result.stderr).not.toContain('you did not give')
    expect(result.code, result.stderr).toBe(0)
  })

  it('takes an impossible date for a wrong row, not a reason to ask for --date-format', async () => {
    const dir = tempDir('bk-lookups-then-date-')
    const map =
      'columns: {Num: number, Vendor: vendor_id, Amount: line_amount, Ledger: line_ledger_id, Date: issued_at}\n'
    writeFileSync(join(dir, 'map.yaml'), `${map}date_format: DD/MM/YYYY\ndefaults: {currency: EUR}\n`)
    const rows = ['05/02/2026', '31/02/2026', '14/03/2026'].map((d, i) => `D-${i},Office,1.00,Exp,${d}`)
    writeFileSync(join(dir, 'bills.csv'), ['Num,Vendor,Amount,Ledger,Date', ...rows, ''].join('\n'))
    const lookups = await runBk(['bills', 'lookups', 'init', 'bills.csv', '--map', 'map.yaml'], {cwd: dir})
    expect(lookups.code, lookups.stderr).toBe(0)
    expect(/^Then: (.*)$/m.exec(lookups.stdout)?.[1]).toBe(
      'bk bills import bills.csv --map map.yaml --lookup vendor_id=vendors.csv --lookup line_ledger_id=ledgers.csv --dry-run',
    )
  })
})
