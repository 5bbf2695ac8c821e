/**
 * Issue 29: `bk bills lookups init` writes the lookup files a map needs, every value with an empty
 * id; the dry run then names exactly the values still without an id, none once they are filled;
 * and a second run on a later export adds its new values and keeps every filled id.
 */
import {readFileSync, statSync, writeFileSync} from 'node:fs'
import {basename, join} from 'node:path'

import {parse} from 'csv-parse/sync'
import {stringify} from 'csv-stringify/sync'
import {describe, expect, it} from 'vitest'
import {parse as parseYaml} from 'yaml'

import {ROOT, runBk, runShellLine, tempDir} from '../helpers/bk.js'
import {exampleExports, flagValue} from './example-exports.js'

interface Written {
  field: string
  file: string
  columns: string[]
  values: number
  added: number
  filled: number
}

const readCsv = (file: string) => parse(readFileSync(file, 'utf8'), {bom: true}) as string[][]

/** Examples whose README imports them with lookup files. */
const EXAMPLES = exampleExports().filter((e) => e.flags?.includes('--lookup'))

describe.each(EXAMPLES)('bills lookups init $folder/$file', (example) => {
  it('writes every value with an empty id; the dry run names only those still missing', async () => {
    const dir = tempDir('bk-lookups-init-')
    const flags = example.flags!
    const shape = ['--delimiter', '--encoding', '--lines-file'].flatMap((f) =>
      flagValue(flags, f) ? [f, flagValue(flags, f)!] : [],
    )
    const lookupsInit = () =>
      runBk(['bills', 'lookups', 'init', example.path, '--map', example.map, '--dir', dir, '--json', ...shape])
    const init = await lookupsInit()
    expect(init.code, init.stderr).toBe(0)
    const written = JSON.parse(init.stdout) as Written[]
    // One file per field the README looks up, each value once with an empty id.
    const given = new Map<string, string>()
    flags.forEach((f, i) => {
      if (f !== '--lookup') return
      const [field, file] = flags[i + 1]!.split('=') as [string, string]
      given.set(field, file)
    })
    expect(written.map((w) => w.field).sort()).toEqual([...given.keys()].sort())
    for (const w of written) {
      const rows = readCsv(w.file)
      expect(rows[0]).toEqual([...w.columns, w.field])
      expect(rows.length - 1).toBe(w.values)
      expect(rows.slice(1).every((r) => r[r.length - 1] === '')).toBe(true)
      expect(w).toMatchObject({added: w.values, filled: 0})
    }
    const ours = written.flatMap((w) => ['--lookup', `${w.field}=${w.file}`])
    const dryRun = (...extra: string[]) =>
      runBk([
        'bills',
        'import',
        example.path,
        '--map',
        example.map,
        ...withoutLookups(flags),
        ...ours,
        '--dry-run',
        ...extra,
      ])
    // The id of a row's values in the example's own lookup file for `field`.
    const caseless = caselessFields(example.map)
    const idOf = (field: string) => {
      const key = (r: string[]) => norm(r.slice(0, -1), caseless.includes(field))
      const known = new Map(
        readCsv(given.get(field)!)
          .slice(1)
          .map((r) => [key(r), r[r.length - 1]!]),
      )
      return (r: string[]) => known.get(key(r))
    }
    // Fill every id from the example's own lookup files but one: the dry run names that one only.
    const left = written[0]!
    let leftValue = ''
    for (const w of written) {
      const idIn = idOf(w.field)
      const rows = readCsv(w.file)
      rows.slice(1).forEach((r, i) => {
        const id = idIn(r)
        expect(id, `${w.file}: ${r.join(',')} is not in the example's ${given.get(w.field)}`).toBeDefined()
        if (w === left && i === 0) leftValue = r.slice(0, -1).join(', ')
        else r[r.length - 1] = id!
      })
      writeFileSync(w.file, stringify(rows))
    }
    const dry = await dryRun('--json')
    expect(dry.code).toBe(2)
    expect(missingOf(dry), dry.stdout).toEqual([{field: left.field, values: [leftValue]}])
    const text = await dryRun()
    expect(text.stderr).toContain(
      `${left.field}: 1 value missing from lookups: ${JSON.stringify(leftValue)} (fill in each id in ${left.file})`,
    )
    // Filled: the dry run names no missing value.
    const rows = readCsv(left.file)
    rows[1]![rows[1]!.length - 1] = idOf(left.field)(rows[1]!)!
    writeFileSync(left.file, stringify(rows))
    const clean = await dryRun()
    expect(clean.stderr).not.toContain('missing from lookups')
    expect(clean.code, clean.stderr).toBe(0)
    // A second run keeps every filled id: nothing added, every file as the user left it.
    const filled = written.map((w) => readFileSync(w.file, 'utf8'))
    const again = await lookupsInit()
    expect(again.code, again.stderr).toBe(0)
    for (const w of JSON.parse(again.stdout) as Written[]) expect(w).toMatchObject({added: 0, filled: w.values})
    expect(written.map((w) => readFileSync(w.file, 'utf8'))).toEqual(filled)
  })
})

describe('bills lookups init on a later export', () => {
  const example = EXAMPLES.find((e) => e.folder === 'xero' && e.file === 'bills.csv')!
  it('adds the new values and keeps every filled id as it was', async () => {
    const dir = tempDir('bk-lookups-later-')
    const lookupsInit = (file: string, ...extra: string[]) =>
      runBk(['bills', 'lookups', 'init', file, '--map', 'xero', '--dir', dir, ...extra])
    const first = await lookupsInit(example.path, '--json')
    expect(first.code, first.stderr).toBe(0)
    const vendors = join(dir, 'vendors.csv')
    const rows = readCsv(vendors)
    rows.slice(1).forEach((r, i) => (r[1] = `ven_filled_${i}`))
    writeFileSync(vendors, stringify(rows))
    const before = readFileSync(vendors, 'utf8')
    // The later export: the same bills, and one more from a vendor not seen before.
    const source = readCsv(example.path)
    const extra = [...source[1]!]
    extra[0] = 'Brand New Supplier Ltd'
    extra[1] = 'NEW-1'
    const later = join(dir, 'later.csv')
    writeFileSync(later, stringify([...source, extra]))
    const second = await lookupsInit(later, '--json')
    expect(second.code, second.stderr).toBe(0)
    const result = (JSON.parse(second.stdout) as Written[]).find((w) => w.field === 'vendor_id')!
    expect(result).toMatchObject({added: 1, filled: rows.length - 1, values: rows.length})
    const after = readFileSync(vendors, 'utf8')
    // Every row there before is there byte for byte, ids included; the new value follows, without an id.
    expect(after.startsWith(before)).toBe(true)
    expect(readCsv(vendors).at(-1)).toEqual(['Brand New Supplier Ltd', ''])
    // A third run on the same export changes nothing.
    await lookupsInit(later)
    expect(readFileSync(vendors, 'utf8')).toBe(after)
  })

  it('writes a value a spreadsheet would run as a formula as text, and matches it all the same', async () => {
    const dir = tempDir('bk-lookups-formula-')
    const [header, first] = readCsv(example.path) as [string[], string[]]
    const names = ['=HYPERLINK("http://x","y")', '-Acme Corp']
    const bills = names.map((name, i) => {
      const row = [...first]
      row[header.indexOf('*ContactName')] = name
      row[header.indexOf('*InvoiceNumber')] = `F-${i}`
      return row
    })
    const file = join(dir, 'formula.csv')
    writeFileSync(file, stringify([header, ...bills]))
    const lookupsInit = () => runBk(['bills', 'lookups', 'init', file, '--map', 'xero', '--dir', dir, '--json'])
    const init = await lookupsInit()
    expect(init.code, init.stderr).toBe(0)
    const vendors = join(dir, 'vendors.csv')
    expect(readCsv(vendors).slice(1)).toEqual(names.map((name) => [`'${name}`, '']))
    // The ids filled in, as in a spreadsheet: the import finds each vendor under its own name.
    const files = (JSON.parse(init.stdout) as Written[]).map((w) => w.file)
    for (const f of files) {
      const rows = readCsv(f)
      rows.slice(1).forEach((r, i) => (r[r.length - 1] = f === vendors ? `ven_formula_${i}` : 'ldg_demo_expenses'))
      writeFileSync(f, stringify(rows))
    }
    const lookups = (JSON.parse(init.stdout) as Written[]).flatMap((w) => ['--lookup', `${w.field}=${w.file}`])
    const dry = await runBk([
      'bills',
      'import',
      file,
      '--map',
      'xero',
      ...withoutLookups(example.flags!),
      ...lookups,
      '--dry-run',
    ])
    expect(dry.stderr).not.toContain('missing from lookups')
    expect(dry.code, dry.stderr).toBe(0)
    // Run again, it finds both values listed.
    const again = await lookupsInit()
    expect((JSON.parse(again.stdout) as Written[]).find((w) => w.field === 'vendor_id')).toMatchObject({added: 0})
  })
})

describe('bills lookups init on either thread', () => {
  // A file of 4 MiB or more is parsed on the reading worker, stdin on the main thread (src/bills/reader.ts).
  it('writes the same lookup files from a file as from stdin, over many chunks of the worker', async () => {
    const example = EXAMPLES.find((e) => e.folder === 'xero' && e.file === 'bills.csv')!
    const dir = tempDir('bk-lookups-threads-')
    const [header, ...rows] = readCsv(example.path)
    const at = (column: string) => header!.indexOf(column)
    // About 6 MB, with long descriptions: the worker reads it, in some two hundred chunks of 32 KiB.
    const many = Array.from({length: 4000}, (_, i) => {
      const bill = Math.floor(i / 2)
      const row = [...rows[i % rows.length]!]
      row[at('*ContactName')] = bill % 97 === 3 ? `Smith, Jones & Café ${bill % 700}` : `Supplier ${bill % 700}`
      row[at('*InvoiceNumber')] = `INV-${bill}`
      // An account code a row: a record lost or read twice shows in the ledgers' file.
      row[at('*AccountCode')] = String(1000 + i)
      row[at('Description')] = `${row[at('Description')]} ${'é.'.repeat(700)}`
      return row
    })
    writeFileSync(join(dir, 'big.csv'), stringify([header!, ...many]))
    expect(statSync(join(dir, 'big.csv')).size).toBeGreaterThanOrEqual(4 * 1024 * 1024)
    const fromFile = await runShellLine('bk bills lookups init big.csv --map xero --dir file --json', {cwd: dir})
    const fromStdin = await runShellLine('bk bills lookups init - --map xero --dir stdin --json < big.csv', {cwd: dir})
    expect([fromFile.code, fromStdin.code], fromFile.stderr + fromStdin.stderr).toEqual([0, 0])
    const written = (stdout: string) =>
      (JSON.parse(stdout) as Written[]).map((w) => ({
        ...w,
        file: basename(w.file),
        text: readFileSync(join(dir, w.file), 'utf8'),
      }))
    const [file, stdin] = [written(fromFile.stdout), written(fromStdin.stdout)]
    expect(stdin).toEqual(file)
    expect(file.map((w) => [w.field, w.values])).toEqual([
      ['vendor_id', new Set(many.map((r) => r[at('*ContactName')])).size],
      ['line_ledger_id', new Set(many.map((r) => r[at('*AccountCode')])).size],
    ])
  })
})

/** The fields the map matches case-insensitively (case_insensitive_lookups:). */
function caselessFields(map: string): string[] {
  const path = /^[a-z0-9-]+$/.test(map) ? join(ROOT, 'maps', `${map}.yaml`) : map
  const doc = parseYaml(readFileSync(path, 'utf8')) as {case_insensitive_lookups?: string[]}
  return doc.case_insensitive_lookups ?? []
}

const norm = (parts: string[], caseless: boolean) => {
  const key = parts.map((p) => p.trim()).join('\u0000')
  return caseless ? key.toLowerCase() : key
}

function withoutLookups(flags: string[]): string[] {
  return flags.filter((f, i) => f !== '--lookup' && flags[i - 1] !== '--lookup')
}

function missingOf(result: {stdout: string}): Array<{field: string; values: string[]}> {
  // An error with --json: {error, code, hint, details}, the dry run's result in details.
  const out = JSON.parse(result.stdout) as {details?: {missing_lookups?: Array<{field: string; values: string[]}>}}
  return (out.details?.missing_lookups ?? []).map(({field, values}) => ({field, values}))
}
