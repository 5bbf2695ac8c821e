/**
 * Issue 29: `bk bills maps init` names the preset of every example export under
 * examples/exports/ (found, not listed: presets and examples added later are covered too); and
 * for each example with a header row and a README command, with its header renamed to a layout
 * bk has never seen, it writes a starter map that, after the edits it asks for (each DECIDE
 * resolved, the targets the test knows filled in), imports the file to exactly its expected bodies.
 */
import {copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'

import {parse} from 'csv-parse/sync'
import {stringify} from 'csv-stringify/sync'
import {describe, expect, it} from 'vitest'
import {parseDocument, parse as parseYaml} from 'yaml'

import {ROOT, runBk, tempDir} from '../helpers/bk.js'
import {recordedEmulator} from '../helpers/recorded-emulator.js'
import {exampleExports, flagValue, type ExampleExport} from './example-exports.js'

const BIZ = 'biz_demo_acme'
const EXAMPLES = exampleExports()

interface Findings {
  encoding: string
  delimiter: string
  header: boolean
  skip_lines: number
  preset: {name: string; command: string} | null
  nearest: {name: string; shared: number; unknown: string[]; absent: string[]} | null
  decide: string[]
  map: string | null
}

async function mapsInit(file: string, extra: string[] = []): Promise<Findings> {
  const r = await runBk(['bills', 'maps', 'init', file, '--json', ...extra])
  expect(r.code, r.stderr).toBe(0)
  return JSON.parse(r.stdout) as Findings
}

/** The findings on an example as it ships, read once for the tests that each start from them. */
const shipped = new Map<string, Promise<Findings>>()
function asShipped(path: string): Promise<Findings> {
  if (!shipped.has(path)) shipped.set(path, mapsInit(path))
  return shipped.get(path)!
}

/**
 * The examples whose findings are also read as text: the text and --json are one set of findings
 * printed two ways, so the first file of each package with a preset, and the first without,
 * show that both agree.
 */
const kindOf = (e: ExampleExport) => `${e.folder} ${e.preset === undefined}`
const readAsText = new Set(EXAMPLES.filter((e, i) => EXAMPLES.findIndex((o) => kindOf(o) === kindOf(e)) === i))

describe.each(EXAMPLES)('bills maps init $folder/$file', (example) => {
  it('names the preset the file matches (or, without one, the nearest and a starter map)', async () => {
    const found = await asShipped(example.path)
    // A map language example is its package's export too: naming the package's preset is right.
    if (example.preset ?? (found.preset?.name === example.folder ? example.folder : undefined)) {
      const preset = example.preset ?? example.folder
      expect(found.preset?.name).toBe(preset)
      expect(found.preset!.command).toContain(`--map ${preset}`)
      expect(found.map).toBeNull()
      if (!readAsText.has(example)) return
      const text = await runBk(['bills', 'maps', 'init', example.path])
      expect(text.stdout).toContain(`matches the preset ${preset}`)
      return
    }
    expect(found.preset).toBeNull()
    expect(found.map).toMatch(/^columns:$/m)
    if (!readAsText.has(example)) return
    const text = await runBk(['bills', 'maps', 'init', example.path])
    expect(text.stderr).toContain(
      found.nearest ? `the nearest is ${found.nearest.name}` : 'none shares a header with it',
    )
    // The starter map holds every column of the file once, in the file's order.
    expect(text.stdout).toBe(found.map)
  })
})

const recorded = recordedEmulator(BIZ)

/**
 * An IIF file (record_types:) has a header row per record type, each starting with the type
 * (!TRNS, !SPL) the layout is read by: those markers are the format and are kept; the column
 * names after them are renamed, and the starter map says record_types: and quotes: false.
 */
const renamable = EXAMPLES.filter((e) => e.flags !== undefined)

describe.each(renamable)('bills maps init on $folder/$file with its header renamed', (example) => {
  it('writes a map that, once its DECIDE lines are resolved and its targets filled, imports the file exactly', async () => {
    const original = await asShipped(example.path)
    if (!original.header) return // a file without a header row has no header to rename
    const dir = tempDir('bk-maps-init-')
    const {file, names} = renameHeader(example, original, dir)
    const starter = await mapsInit(file)
    expect(starter.preset).toBeNull()
    // An IIF file is read by its record types, and quotes nothing (a memo may hold a bare ").
    if (ownMap(example).record_types) {
      expect(starter.map).toMatch(/^quotes: false\b/m)
      expect(starter.map).toMatch(/^record_types:\n {2}bill: TRNS\n {2}line: SPL\n {2}end: ENDTRNS\n/m)
    }
    const out = join(dir, 'starter.yaml')
    const written = await runBk(['bills', 'maps', 'init', file, '--out', out])
    expect(written.code, written.stderr).toBe(0)
    expect(readFileSync(out, 'utf8')).toBe(starter.map)
    // The starter map is refused while a DECIDE is left in it.
    const undecided = /"DECIDE:/.test(starter.map!)
    const map = finishMap(starter.map!, example, names)
    writeFileSync(join(dir, 'map.yaml'), map)
    // A lines file gets its side files (rejects) beside it: a copy, so the example stays as it is.
    const flags = example.flags!.map((f, i, all) => {
      if (all[i - 1] !== '--lines-file') return f
      const copy = join(dir, basename(f))
      copyFileSync(f, copy)
      return copy
    })
    if (undecided) {
      const refused = await runBk(['bills', 'import', file, '--map', out, ...flags, '--dry-run'], {env: recorded.env()})
      expect(refused.code).toBe(2)
      expect(refused.stderr).toContain('DECIDE')
    }
    const result = await runBk(['bills', 'import', file, '--map', join(dir, 'map.yaml'), ...flags, '--json'], {
      env: recorded.env(),
      cwd: dir,
    })
    expect([0, 6], `${result.stdout}\n${map}`).toContain(result.code)
    const sent = recorded.billPosts().flatMap((r) => JSON.parse(r.body) as unknown[])
    expect(sent).toEqual(JSON.parse(readFileSync(example.expected, 'utf8')))
  })
})

/** The example with each header replaced by a name bk has never seen (`Q1`, `Q2`, …), in UTF-8. */
function renameHeader(example: ExampleExport, found: Findings, dir: string) {
  const text = new TextDecoder(found.encoding).decode(readFileSync(example.path))
  const eol = text.includes('\r\n') ? '\r\n' : '\n'
  const lines = text.split(/\r?\n/)
  const cells = (line: string) => (parse(line, {delimiter: found.delimiter, bom: true, quote: false}) as string[][])[0]!
  const names = new Map<string, string>()
  const types = ownMap(example).record_types as {bill: string; line: string} | undefined
  if (types) {
    // Each record type's header row keeps its marker (!TRNS); its columns are named TYPE.COLUMN.
    lines.forEach((line, i) => {
      const [marker, ...header] = cells(line || ' ')
      const type = marker!.slice(1)
      if (marker !== `!${types.bill}` && marker !== `!${types.line}`) return
      const renamed = header.map((h) => {
        names.set(`${type}.${h}`, `${type}.Q${names.size + 1}`)
        return names.get(`${type}.${h}`)!.slice(type.length + 1)
      })
      lines[i] = [marker, ...renamed].join(found.delimiter)
    })
  } else {
    let seen = -1
    const at = lines.findIndex((l) => l.trim() !== '' && ++seen === found.skip_lines)
    const header = (parse(lines[at]!, {delimiter: found.delimiter, bom: true}) as string[][])[0]!
    for (const [i, h] of header.entries()) names.set(h, `Q${i + 1}`)
    lines[at] = stringify([[...names.values()]], {delimiter: found.delimiter}).trimEnd()
  }
  const file = join(dir, example.file)
  writeFileSync(file, lines.join(eol))
  return {file, names}
}

/** A header as bk compares it (columns.ts headerKey). */
const hk = (name: string) =>
  name
    .replace(/^\uFEFF/, '')
    .trim()
    .replace(/^\*\s*/, '')
    .replace(/\s*[.:]$/, '')
    .replace(/\s+/g, ' ')
    .toLowerCase()

type MapDoc = Record<string, unknown> & {
  columns?: Record<string, string | null>
  aliases?: Record<string, string[]>
  ignore?: string[] | 'all-others'
  when_column?: Record<string, Record<string, string | null>>
  compute?: Record<string, string>
  lookups?: Record<string, {key: string[]}>
}

/** Keys of the example's own map the test carries over, column names renamed. */
const CARRIED = [
  'compute',
  'lookups',
  'continuation',
  'skip',
  'rows',
  'credit',
  'credits',
  'fill_down',
  'defaults',
  'key',
  'unit_prices',
  'amounts',
  'case_insensitive_lookups',
  'year_from',
  'due_days',
  'negative',
  'currency_symbols',
  'negative_parentheses',
  'packed_lines',
  'lines_file',
]

/**
 * The edits the starter map asks for: each DECIDE resolved (from the README's flags, else the
 * example's own map), each column's target as the example's map gives it, and the example's map
 * language (expressions, keyed lookups, credit and continuation columns) with the new names.
 */
function finishMap(starter: string, example: ExampleExport, names: Map<string, string>): string {
  const own = ownMap(example)
  const byKey = new Map([...names].map(([h, n]) => [hk(h), n]))
  const rename = (name: string) => byKey.get(hk(name)) ?? name
  const doc = parseDocument(starter)
  const flags = example.flags!
  for (const [key, flag] of [
    ['date_format', '--date-format'],
    ['number_format', '--number-format'],
    ['amounts', '--amounts'],
  ] as const) {
    const value = doc.get(key)
    const truth = flagValue(flags, flag) ?? (own[key] as string | undefined)
    if (typeof value === 'string' && value.startsWith('DECIDE')) {
      expect(truth, `${key} is to decide, and the example says nothing`).toBeDefined()
      doc.set(key, truth)
    } else if (value === undefined && truth !== undefined && key !== 'amounts') doc.set(key, truth)
  }
  if (own.year_from) doc.set('skip_lines', own.skip_lines)
  const targets = targetsOf(own, [...names.keys()])
  for (const [header, renamed] of names) doc.setIn(['columns', renamed], targets.get(header) ?? null)
  // A lines file keeps its header: its columns (lines.Amount …) as the example's map names them.
  for (const [k, v] of Object.entries(own.columns ?? {}))
    if (own.lines_file && k.startsWith('lines.')) doc.setIn(['columns', k], v)
  // Every column of the bills file is listed above: all-others drops only the lines file's others.
  if (own.lines_file && own.ignore === 'all-others') doc.set('ignore', 'all-others')
  // A credit marker the example's map names for a column this layout lacks (the map's credit
  // values stay valid for its other layouts): carried over as it is.
  const present = new Set([...names.keys()].map(hk))
  for (const [k, v] of Object.entries(own.columns ?? {}))
    if (v === 'credit_marker' && !present.has(hk(k))) doc.setIn(['columns', k], v)
  for (const key of CARRIED) {
    if (own[key] === undefined) continue
    let value = structuredClone(own[key])
    if (key === 'compute')
      value = Object.fromEntries(
        Object.entries(value as Record<string, string>).map(([t, e]) => [
          t,
          e.replace(/\[([^\]]+)\]/g, (_m, n: string) => `[${rename(n)}]`),
        ]),
      )
    if (key === 'lookups')
      value = Object.fromEntries(
        Object.entries(value as Record<string, {key: string[]}>).map(([f, l]) => [f, {key: l.key.map(rename)}]),
      )
    if (key === 'packed_lines') {
      const packed = value as {columns?: string[]}
      if (packed.columns) packed.columns = packed.columns.map(rename)
    }
    if (key === 'lines_file') {
      const join = value as {key: string; line_key?: string}
      join.line_key ??= join.key
      join.key = rename(join.key)
    }
    if (['continuation', 'skip', 'rows', 'credit'].includes(key) && (value as {column?: string}).column)
      (value as {column: string}).column = rename((value as {column: string}).column)
    doc.set(key, value)
  }
  const text = doc.toString()
  expect(text).not.toMatch(/"DECIDE:/)
  return text
}

function ownMap(example: ExampleExport): MapDoc {
  const path = /^[a-z0-9-]+$/.test(example.map) ? join(ROOT, 'maps', `${example.map}.yaml`) : example.map
  return parseYaml(readFileSync(path, 'utf8')) as MapDoc
}

/** Each header's target in the example's own map: named, an alias, a layout rule, or dropped. */
function targetsOf(own: MapDoc, header: string[]): Map<string, string | null> {
  const byKey = new Map<string, string | null>()
  for (const [k, v] of Object.entries(own.columns ?? {})) byKey.set(hk(String(k)), v === '' ? null : v)
  if (Array.isArray(own.ignore)) for (const k of own.ignore) byKey.set(hk(k), null)
  for (const [name, alts] of Object.entries(own.aliases ?? {}))
    for (const a of alts) byKey.set(hk(a), byKey.get(hk(name)) ?? null)
  const present = new Set(header.map(hk))
  for (const [trigger, meanings] of Object.entries(own.when_column ?? {}))
    if (present.has(hk(trigger))) for (const [k, v] of Object.entries(meanings)) byKey.set(hk(k), v)
  const out = new Map<string, string | null>()
  for (const h of header) {
    const target = byKey.get(hk(h))
    // Not named by the map: read by an expression or a lookup key, or dropped by ignore: all-others.
    out.set(h, target === undefined ? null : target)
  }
  return out
}

describe('bills maps init, decisions and --out', () => {
  it('leaves a date that reads two ways to decide, refused by the import until decided; never overwrites', async () => {
    const dir = tempDir('bk-maps-decide-')
    const file = join(dir, 'purchases.csv')
    writeFileSync(
      file,
      'Ref,Supplier,Posted,GL,Amount\n7,Acme,03/04/2025,Office,1.250\n8,Acme,05/04/2025,Office,2.500\n',
    )
    const found = await mapsInit(file)
    expect(found.decide).toEqual([
      'the number format: 1234.56 or 1.234,56 (each reads "1.250", "2.500" differently)',
      'the date format: DD/MM/YYYY or MM/DD/YYYY (each reads "03/04/2025", "05/04/2025" differently)',
    ])
    const out = join(dir, 'map.yaml')
    const first = await runBk(['bills', 'maps', 'init', file, '--out', out])
    expect(first.code, first.stderr).toBe(0)
    const map = readFileSync(out, 'utf8')
    expect(map).toContain('date_format: "DECIDE: DD/MM/YYYY or MM/DD/YYYY"')
    expect(map).toContain('number_format: "DECIDE: 1234.56 or 1.234,56"')
    const refused = await runBk(['bills', 'import', file, '--map', out, '--dry-run'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('"DECIDE: ')
    // --out never replaces a file without --force.
    writeFileSync(out, 'mine\n')
    const again = await runBk(['bills', 'maps', 'init', file, '--out', out])
    expect(again.code).toBe(2)
    expect(again.stderr).toContain(out)
    expect(readFileSync(out, 'utf8')).toBe('mine\n')
    const forced = await runBk(['bills', 'maps', 'init', file, '--out', out, '--force'])
    expect(forced.code, forced.stderr).toBe(0)
    expect(readFileSync(out, 'utf8')).toBe(map)
  })

  it('proposes a date format only when one reading fits every date', async () => {
    const dir = tempDir('bk-maps-decide-')
    const file = join(dir, 'purchases.csv')
    writeFileSync(
      file,
      'Ref,Supplier,Posted,GL,Amount\n7,Acme,03/04/2025,Office,1.25\n8,Acme,13/04/2025,Office,-2.50\n',
    )
    const found = await mapsInit(file)
    expect(found.decide).toEqual([])
    expect(found.map).toContain('date_format: "DD/MM/YYYY"')
    expect(found.map).toContain('  negative_total: true')
  })
})

describe('bills maps init on an IIF file no preset reads', () => {
  it("reads IIF's fields as the preset does: a TRNS row's AMOUNT is the bill's total, never a line's", async () => {
    // QuickBooks Desktop's example with the lines' account column named otherwise: no preset reads it.
    const dir = tempDir('bk-maps-iif-')
    const file = join(dir, 'bills.iif')
    const iif = readFileSync(join(ROOT, 'examples/exports/quickbooks-desktop/bills.iif'), 'latin1')
    writeFileSync(
      file,
      iif.replace('!SPL\tSPLID\tTRNSTYPE\tDATE\tACCNT', '!SPL\tSPLID\tTRNSTYPE\tDATE\tACCOUNT'),
      'latin1',
    )
    const found = (await mapsInit(file)) as Findings & {columns: Array<{column: string; target: string | null}>}
    expect(found.preset).toBeNull()
    expect(found.nearest?.name).toBe('quickbooks-desktop')
    const targets = Object.fromEntries(found.columns.map((c) => [c.column, c.target]))
    expect(targets).toMatchObject({
      'TRNS.NAME': 'vendor_id',
      'TRNS.DOCNUM': 'number',
      'TRNS.DATE': 'issued_at',
      'TRNS.DUEDATE': 'due_at',
      'TRNS.MEMO': 'description',
      'TRNS.AMOUNT': null,
      'SPL.ACCOUNT': 'line_ledger_id',
      'SPL.AMOUNT': 'line_amount',
      'SPL.MEMO': 'line_description',
      'SPL.DATE': null,
    })
    // Its date format decided as the preset reads it, the map shows the bills the preset would.
    writeFileSync(join(dir, 'map.yaml'), found.map!.replace(/^date_format: .*$/m, 'date_format: M/D/YY'))
    const lookups = ['vendors', 'ledgers'].map((f) => {
      copyFileSync(join(ROOT, `examples/exports/quickbooks-desktop/${f}.csv`), join(dir, `${f}.csv`))
      return join(dir, `${f}.csv`)
    })
    const flags = [
      '--lookup',
      `vendor_id=${lookups[0]}`,
      '--lookup',
      `line_ledger_id=${lookups[1]}`,
      '--currency',
      'USD',
    ]
    const show = async (map: string[]) => {
      const r = await runBk(['bills', 'import', file, ...map, ...flags, '--dry-run', '--show', '50'], {
        env: {BK_BUSINESS_ID: BIZ},
      })
      expect(r.code, r.stderr).toBe(0)
      return JSON.parse(r.stdout) as unknown[]
    }
    const original = join(dir, 'original.iif')
    writeFileSync(original, iif, 'latin1')
    const byPreset = await runBk(
      ['bills', 'import', original, '--map', 'quickbooks-desktop', ...flags, '--dry-run', '--show', '50'],
      {env: {BK_BUSINESS_ID: BIZ}},
    )
    expect(byPreset.code, byPreset.stderr).toBe(0)
    expect(await show(['--map', join(dir, 'map.yaml')])).toEqual(JSON.parse(byPreset.stdout))
    // The sample is plain ASCII; next month's file, as QuickBooks Desktop writes it, has a memo in
    // Windows' code page, which the map reads as the preset does.
    writeFileSync(
      file,
      readFileSync(file, 'latin1').replace('February office supplies', 'Caf\u00e9 supplies'),
      'latin1',
    )
    const [first] = (await show(['--map', join(dir, 'map.yaml')])) as Array<{description: string}>
    expect(first!.description).toBe('Caf\u00e9 supplies')
  })
})

describe('bills maps init on a file a preset reads', () => {
  it('refuses --out with the import command instead of writing nothing without a word', async () => {
    const dir = tempDir('bk-maps-out-')
    const out = join(dir, 'map.yaml')
    const r = await runBk(['bills', 'maps', 'init', join(ROOT, 'examples/exports/xero/bills.csv'), '--out', out])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`matches the preset xero: no starter map written to ${out}`)
    expect(r.stderr).toContain('--map xero')
    expect(r.stderr).toContain('bk bills maps show xero > map.yaml')
    expect(existsSync(out)).toBe(false)
  })
})

describe('bills maps init when two presets read one file', () => {
  it('names the one reading more columns and says the other reads it too, and how they differ', async () => {
    // bk as installed, with a second preset beside xero's: xero's map with Description dropped.
    const install = tempDir('bk-two-presets-')
    for (const part of ['bin', 'dist', 'package.json', 'oclif.manifest.json'])
      cpSync(join(ROOT, part), join(install, part), {recursive: true})
    mkdirSync(join(install, 'maps'))
    const xero = readFileSync(join(ROOT, 'maps', 'xero.yaml'), 'utf8')
    writeFileSync(join(install, 'maps', 'xero.yaml'), xero)
    const twin = xero.replace(/^ {2}Description: line_description$/m, '  Description: ~')
    expect(twin).not.toBe(xero)
    writeFileSync(join(install, 'maps', 'aaa-twin.yaml'), twin)
    const file = join(ROOT, 'examples/exports/xero/bills.csv')
    const r = await runBk(['bills', 'maps', 'init', file], {entry: join(install, 'bin', 'run.js')})
    expect(r.code, r.stderr).toBe(0)
    // Not the first in name order: the one that reads the most of the file's columns.
    expect(r.stdout).toContain(`${file} matches the preset xero.`)
    expect(r.stdout).toContain(
      'Note: the preset aaa-twin reads this file too; xero is named as it reads 10 of its columns (aaa-twin 9). They read apart: Description: line_description in xero, dropped in aaa-twin. To use aaa-twin: --map aaa-twin',
    )
  })
})

describe("bills maps init on a file in bk's own format", () => {
  const ownFormat = async (file: string) => {
    const r = await runBk(['bills', 'maps', 'init', file])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).not.toContain('preset')
    expect(r.stdout).toContain(`${file} is in bk's own format (its header names bk's columns): it imports as it is`)
    const command = /Import it with:\n {2}(.*)\n/.exec(r.stdout)?.[1]
    expect(command).toBe(`bk bills import ${file}`)
    // The command printed imports the file.
    const result = await runBk([...command!.split(' ').slice(1), '--dry-run'])
    expect(result.code, result.stderr).toBe(0)
  }

  it('says so of the shipped examples/bills.csv, with the command that imports it', async () => {
    await ownFormat(join(ROOT, 'examples/bills.csv'))
  })

  it('says so of a file of the required columns only', async () => {
    const file = join(tempDir('bk-maps-own-'), 'bills.csv')
    writeFileSync(file, 'number,vendor_id,line_amount,line_ledger_id\nB-1,ven_acme,12.50,ldg_office\n')
    await ownFormat(file)
    const out = join(dirname(file), 'map.yaml')
    const refused = await runBk(['bills', 'maps', 'init', file, '--out', out])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(`${file} is in bk's own format: no starter map written to ${out}`)
    expect(existsSync(out)).toBe(false)
  })

  it("names no preset whose own columns feed none of bk's required ones", async () => {
    // Memo is quickbooks-online's; the required columns are read only as bk's own names.
    const file = join(tempDir('bk-maps-own-'), 'bills.csv')
    writeFileSync(file, 'number,vendor_id,line_amount,line_ledger_id,Memo\nB-1,ven_acme,12.50,ldg_office,Chairs\n')
    const found = await mapsInit(file)
    expect(found.preset).toBeNull()
    expect(found.map).not.toBeNull()
  })
})
