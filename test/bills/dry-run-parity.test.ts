/**
 * `--dry-run` and the emulator apply one list of rules (src/shared/bill-rules.ts): every bills CSV of the
 * repo goes through both, and no bill is accepted by one and refused by the other.
 *
 * - Through bk: `bk bills import FILE --dry-run` and then a real `bk bills import FILE` against
 *   the emulator. The file is accepted by dry-run iff the emulator created every bill, and the
 *   bills created are exactly those dry-run found valid (or, through a map, which sends nothing
 *   unless every row reads, none when dry-run refused a row).
 * - Straight to the emulator: bk never sends a bill it refuses, so the emulator's half of a rule
 *   is tried with the body a client that checks nothing would send for the same rows (bk's own
 *   columns only: values as written, dates in UTC as bk converts them). The emulator must refuse
 *   exactly the bills dry-run refuses.
 *
 * The fixtures name only records of the emulator's seed (vendors, ledgers, tag fields), the one
 * thing dry-run cannot check offline.
 */
import {copyFileSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {basename, join, relative} from 'node:path'

import {parse} from 'csv-parse/sync'
import {stringify} from 'csv-stringify/sync'
import fc from 'fast-check'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {ROOT, runBk, tempDir, type BkResult} from '../helpers/bk.js'
import {envFor, start, tokenFor, type RunningEmulator} from '../helpers/emulator.js'
import {parseIsoDatetime, toUtcText} from '../../src/shared/datetime.js'
import {parseJsonTree} from '../../src/shared/exact-json.js'
import {Decimal, DECIMAL_TEXT} from '../../src/shared/money.js'

const BIZ = 'biz_demo_acme'

const lookups = (preset: string) => [
  ...['--lookup', `vendor_id=examples/exports/${preset}/vendors.csv`],
  ...['--lookup', `line_ledger_id=examples/exports/${preset}/ledgers.csv`],
]
const XERO = [
  '--map',
  'xero',
  '--date-format',
  'DD/MM/YYYY',
  '--amounts',
  'net',
  '--currency',
  'GBP',
  ...lookups('xero'),
]
const QBO = [
  ...['--map', 'quickbooks-online', '--date-format', 'MM/DD/YYYY', '--number-format', '1,234.56', '--currency', 'USD'],
  ...lookups('quickbooks-online'),
]
const GNUCASH = [
  ...['--map', 'gnucash', '--date-format', 'DD.MM.YYYY', '--number-format', '1.234,56', '--currency', 'EUR'],
  ...lookups('gnucash'),
]
const SAGE = [
  ...['--map', 'sage50', '--date-format', 'DD/MM/YYYY', '--amounts', 'gross', '--currency', 'GBP'],
  ...lookups('sage50'),
]

/** Every bills CSV of the repo, with the arguments its README gives (none: bk's own columns). */
const CASES: Array<{file: string; args: string[]; name?: string}> = [
  {file: 'examples/bills.csv', args: []},
  {file: 'examples/exports/xero/bills.csv', args: XERO},
  {file: 'examples/exports/quickbooks-online/bills.csv', args: QBO},
  {file: 'examples/exports/gnucash/bills.csv', args: GNUCASH},
  {file: 'examples/exports/sage50/bills.csv', args: SAGE},
  ...['myob', 'odoo', 'datev'].map((pkg) => ({
    file: `examples/exports/${pkg}/bills.csv`,
    args: ['--map', `examples/exports/${pkg}/map.yaml`, ...lookups(pkg)],
  })),
  // Issue 29's presets, with the flags of test/bills/preset-more.test.ts.
  ...[
    [
      'myob/item-purchases.txt',
      '--date-format',
      'DD/MM/YYYY',
      '--number-format',
      '1,234.56',
      '--amounts',
      'net',
      '--currency',
      'AUD',
    ],
    ['myob/service-purchases.txt', '--date-format', 'DD/MM/YYYY', '--number-format', '1,234.56', '--amounts', 'gross'],
    ['odoo/list-export.csv'],
    ['odoo/import-compatible.csv'],
    ['kashflow/template.csv', '--amounts', 'gross', '--currency', 'GBP'],
    ['kashflow/hyphenated.csv', '--amounts', 'net', '--currency', 'GBP'],
    ['sage-accounting/uk-vat-registered.csv', '--date-format', 'DD-MM-YYYY', '--amounts', 'net', '--currency', 'GBP'],
    ['sage-accounting/uk-not-vat-registered.csv', '--date-format', 'DD-MM-YYYY', '--currency', 'GBP'],
    ['sage-accounting/us-expenses.csv', '--date-format', 'MM-DD-YYYY', '--amounts', 'gross', '--currency', 'USD'],
    ['datev/format-13.csv'],
    ['datev/belegdatum-ttmmjjjj.csv'],
    ['datev/format-9.csv'],
    ['datev/creditor-konto.csv', '--currency', 'EUR'],
  ].map(([path, ...flags]) => {
    const preset = path!.split('/')[0]!
    return {file: `examples/exports/${path}`, args: ['--map', preset, ...flags, ...lookups(preset)]}
  }),
  // Lines not one row each (test/bills/preset-packed-lines.test.ts): the flags each README gives.
  ...[
    ['manager-io/batch-update.tsv', '--date-format', 'YYYY-MM-DD', '--number-format', '1234.56', '--currency', 'GBP'],
    ['manager-io/batch-create.tsv', '--date-format', 'DD/MM/YYYY', '--number-format', '1.234,56', '--currency', 'EUR'],
    ['netsuite/bills.csv', '--lines-file', 'examples/exports/netsuite/expenses.csv', '--date-format', 'MM/DD/YYYY'],
    [
      'netsuite/account-numbers.csv',
      ...['--lines-file', 'examples/exports/netsuite/account-numbers-expenses.csv', '--delimiter', ';'],
      ...['--date-format', 'DD/MM/YYYY', '--number-format', '1.234,56'],
    ],
    ['quickbooks-desktop/bills.iif', '--currency', 'USD'],
    ['quickbooks-desktop/export.iif', '--currency', 'USD', '--date-format', 'M/D/YYYY'],
  ].map(([path, ...flags]) => {
    const pkg = path!.split('/')[0]!
    const more = pkg === 'netsuite' && !flags.includes('--number-format') ? ['--number-format', '1,234.56'] : []
    return {file: `examples/exports/${path}`, args: ['--map', pkg, ...flags, ...more, ...lookups(pkg)]}
  }),
  {
    file: 'test/fixtures/exports/xero-ambiguous-date.csv',
    args: XERO.filter((a, i, all) => a !== '--date-format' && all[i - 1] !== '--date-format'),
  },
  {file: 'test/fixtures/exports/xero-impossible-date.csv', args: XERO},
  {file: 'test/fixtures/exports/qbo-wrong-number-format.csv', args: QBO},
  {file: 'test/fixtures/exports/xero-vendor-missing.csv', args: XERO},
  {file: 'test/fixtures/exports/sage50-credit-note.csv', args: [...SAGE, '--credits', 'refuse']},
  {file: 'test/fixtures/exports/xero-credit-note.csv', args: [...XERO, '--credits', 'refuse']},
  {file: 'examples/exports/xero/us-template.csv', args: [...XERO, '--date-format', 'MM/DD/YYYY', '--currency', 'USD']},
  {file: 'examples/exports/xero/xero-export.csv', args: [...XERO, '--amounts', 'gross']},
  {file: 'examples/exports/quickbooks-online/us-template.csv', args: QBO},
  {file: 'examples/exports/quickbooks-online/transaction-pro.csv', args: [...QBO, '--date-format', 'DD/MM/YYYY']},
  {
    file: 'examples/exports/gnucash/field-names.csv',
    args: [...GNUCASH, '--date-format', 'DD/MM/YYYY', '--number-format', '1234.56', '--delimiter', ','],
  },
  {
    file: 'examples/exports/gnucash/us-repeated.csv',
    args: [...GNUCASH, '--date-format', 'MM/DD/YYYY', '--number-format', '1234.56', '--delimiter', ','],
  },
  {file: 'examples/exports/sage50/current-template.csv', args: [...SAGE, '--due-days', '30']},
  {
    file: 'examples/exports/sage50/short-year.csv',
    args: [...SAGE.filter((a, i, all) => a !== '--date-format' && all[i - 1] !== '--date-format'), '--due-days', '30'],
  },
  {file: 'examples/exports/sage50/no-header.csv', args: SAGE},
  {file: 'test/fixtures/exports/gnucash-continuation-conflict.csv', args: GNUCASH},
  {file: 'test/fixtures/exports/sage50-cp1252-as-utf8.csv', args: [...SAGE, '--encoding', 'utf-8']},
  {file: 'test/fixtures/exports/gnucash-no-header.csv', args: []},
  {file: 'test/fixtures/exports/sage50-sales-row.csv', args: SAGE},
  // The two broken maps, read with the Xero example.
  {
    name: 'examples/exports/xero/bills.csv with dropped-quantity.yaml',
    file: 'examples/exports/xero/bills.csv',
    args: ['--map', 'test/fixtures/exports/dropped-quantity.yaml', ...XERO.slice(2)],
  },
  {
    name: 'examples/exports/xero/bills.csv with star-header-unquoted.yaml',
    file: 'examples/exports/xero/bills.csv',
    args: ['--map', 'test/fixtures/exports/star-header-unquoted.yaml', ...XERO.slice(2)],
  },
  // One file per rule of src/shared/bill-rules.ts (test/fixtures/bills/README.md).
  ...readdirSync(join(ROOT, 'test/fixtures/bills'))
    .filter((f) => f.endsWith('.csv'))
    .sort()
    .map((f) => ({file: `test/fixtures/bills/${f}`, args: []})),
]

/** The bills CSVs of the repo (lookup files and NetSuite's lines files are not bills). */
function billFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), {recursive: true, encoding: 'utf8'})
    .filter((f) => f.endsWith('.csv') && !/(^|\/)(vendors|ledgers|([\w-]+-)?expenses)\.csv$/.test(f))
    .map((f) => relative(ROOT, join(ROOT, dir, f)))
}

let emulator: RunningEmulator
beforeEach(async () => {
  emulator = await start()
})
afterEach(() => emulator.close())

/** The bills a command's --json document holds under `shown` (dry-run's valid bills). */
function shownKeys(result: BkResult): string[] {
  const doc = JSON.parse(result.stdout) as {shown?: Bill[]; details?: {shown?: Bill[]}}
  return (doc.shown ?? doc.details?.shown ?? []).map(keyOf).sort()
}
interface Bill {
  number?: string | null
  vendor_id?: string | null
}
const keyOf = (b: Bill) => `${b.vendor_id} ${b.number}`
const createdKeys = () =>
  emulator.state.bills
    .all(BIZ)
    .filter((b) => !emulator.state.seeded.bills.has(b.id))
    .map(keyOf)
    .sort()

describe('bk bills import --dry-run and the emulator', () => {
  it('every bills CSV of the repo is in the table below', () => {
    const listed = new Set(CASES.map((c) => c.file))
    for (const file of [...billFiles('examples'), ...billFiles('test/fixtures')]) expect(listed).toContain(file)
  })

  it.each(CASES.map((c) => [c.name ?? c.file, c] as const))(
    '%s: dry-run accepts iff the emulator creates every bill',
    async (_, c) => {
      // Copies, so that the import's journal and side files are not written beside the repo's
      // files: the bills file and its lines file (whose side files go beside it).
      const dir = tempDir('bk-parity-')
      const file = join(dir, basename(c.file))
      copyFileSync(join(ROOT, c.file), file)
      const args = c.args.map((arg, i) => {
        if (c.args[i - 1] !== '--lines-file') return arg
        copyFileSync(join(ROOT, arg), join(dir, basename(arg)))
        return join(dir, basename(arg))
      })
      const env = envFor(emulator, BIZ)
      const dry = await runBk(['bills', 'import', file, ...args, '--dry-run', '--json', '--show', '1000'], {env})
      expect([0, 2], dry.stderr).toContain(dry.code)
      const valid = dry.code === 0 || dry.stdout.includes('"shown"') ? shownKeys(dry) : []
      const real = await runBk(['bills', 'import', file, ...args, '--json'], {env})
      const created = createdKeys()
      // Credit notes a preset sets aside are not sent, and not a fault of the file: the run is partial.
      const setAside = dry.code === 0 ? (JSON.parse(dry.stdout) as {skipped: number}).skipped : 0
      const finished =
        real.code === 0 || (real.code === 6 && (JSON.parse(real.stdout) as {failed: number}).failed === setAside)
      const sentAll = finished && created.length === valid.length
      expect({dryRunAccepts: dry.code === 0, stderr: dry.stderr}).toEqual({dryRunAccepts: sentAll, stderr: dry.stderr})
      // Never a bill dry-run refused; through a map nothing unless dry-run accepted the whole file.
      for (const key of created) expect(valid).toContain(key)
      if (!c.args.includes('--map') || dry.code === 0) expect(created).toEqual(valid)
      else expect(created).toEqual([])
    },
  )

  const own = CASES.filter((c) => c.args.length === 0 && !c.file.includes('no-header'))
  it.each(own.map((c) => [c.file, c] as const))(
    '%s: the emulator refuses, as sent by a client that checks nothing, exactly the bills dry-run refuses',
    async (_, c) => {
      const dry = await runBk(['bills', 'import', c.file, '--dry-run', '--json', '--show', '1000'], {
        env: envFor(emulator, BIZ),
      })
      const valid = shownKeys(dry)
      const bodies = uncheckedBodies(readFileSync(join(ROOT, c.file), 'utf8'))
      const answer = await postUnchecked(bodies)
      expect(answer.data.map(keyOf).sort(), JSON.stringify(answer.errors)).toEqual(valid)
      expect(answer.data.length + answer.errors.length).toBe(bodies.length)
    },
  )
})

/**
 * Generated rows: bk checks cells and writes the body's JSON text from them, the emulator checks
 * the parsed body, so each rule's edges are tried in both, a bill at a time: control characters
 * (and the tab and line break a text may hold), numbers a double cannot hold exactly, in amounts
 * and in metadata, duplicate keys, ids, currencies, dates, allocations. Unknown fields cannot come
 * from a cell: an unknown column is refused at the header (test/bills/validation.test.ts).
 */
const EDGES = {
  number: ['G-ok', 'G-bell\u0007', 'G-del\u007f', ' G-spaced '],
  vendor_id: ['ven_demo_office', 'ven_demo_office', 'ven_bad!', 'ven_', 'ldg_demo_expenses'],
  description: ['', 'Paper', 'tab\there', 'two\nlines', 'esc\u001b[2J', 'nul\u0000', ' padded '],
  issued_at: ['', '2026-01-02', '2026-01-02T09:30:00+01:00', '2026-01-02T09:30:00', '0026-01-02', '2026-02-30'],
  due_at: ['', '2026-02-02T17:00:00Z', '2199-12-31', '2200-01-01'],
  currency: ['', 'EUR', 'eur', 'XYZ', 'EURO'],
  line_description: ['', 'Toner', 'form\u000cfeed', 'cr\rin it', 'unit\u001fsep'],
  line_amount: [
    ...['12.50', '-3', '0', '-0', '0.0000001', '100000000000000000000', '1234567890123.45'],
    ...['1234567890.123456', '9007199254740993', '1e3', '12,50', '+7', '.5', ''],
  ],
  line_ledger_id: ['ldg_demo_expenses', 'ldg_demo_software', 'ldg_', 'ldg_x y'],
  'tag:department': ['', 'sales', 'engineering=6;sales=5', 'engineering=-1', 'sales=0.0000001', 'bell\u0007'],
  metadata: [
    ...['', '{"a":1}', '{"a":1,"a":2}', '{"n":9007199254740993}', '{"n":1e400}', '{"n":0.1}'],
    ...['{"x":{"y":[1,2.50,{"y":1,"y":2}]}}', '[1]', 'not json', '{"__proto__":{"a":1}}'],
  ],
  line_metadata: ['', '{"k":"v"}', '{"k":1,"k":1}', '{"big":123456789012345678}'],
}

/** A --json document's figures: the document, or its `details` when the command ended in an error. */
function documentOf<T>(result: BkResult): T {
  const doc = JSON.parse(result.stdout) as T & {details?: T}
  return doc.details ?? doc
}

function generatedRows(seed: number): string {
  const columns = Object.keys(EDGES) as Array<keyof typeof EDGES>
  // Mostly the first value of each column (a valid one), so that most bills break one rule at most.
  const value = (list: string[]) => fc.oneof({weight: 24, arbitrary: fc.constant(list[0]!)}, fc.constantFrom(...list))
  const row = fc.tuple(...columns.map((c) => value(EDGES[c])))
  const rows = fc
    .sample(row, {numRuns: 100, seed})
    .map((r, i) => r.map((v, j) => (columns[j] === 'number' ? `${v}-${i}` : v)))
  return stringify([columns, ...rows])
}

describe('bk bills import --dry-run and the emulator on generated rows', () => {
  it.each([1, 2, 3, 4])(
    'seed %i: the emulator refuses exactly the bills dry-run refuses, and bk sends exactly those it accepts',
    async (seed) => {
      const file = join(tempDir('bk-parity-gen-'), 'generated.csv')
      const text = generatedRows(seed)
      writeFileSync(file, text)
      const env = envFor(emulator, BIZ)
      const dry = await runBk(['bills', 'import', file, '--dry-run', '--json', '--show', '1000'], {env})
      const valid = shownKeys(dry)
      const summary = documentOf<{valid: number; invalid: number}>(dry)
      // Both kinds, or the seed proves nothing.
      expect(summary.valid).toBeGreaterThan(10)
      expect(summary.invalid).toBeGreaterThan(10)
      const bodies = uncheckedBodies(text)
      const answer = await postUnchecked(bodies)
      expect(answer.data.map(keyOf).sort(), JSON.stringify(answer.errors)).toEqual(valid)
      // bk's own bodies, to an emulator of their own: what it sends of the same file is created, all of it.
      const other = await start()
      try {
        const seeded = other.state.bills.all(BIZ).length
        const real = await runBk(['bills', 'import', file, '--json'], {env: envFor(other, BIZ)})
        expect(documentOf<{created: number}>(real).created, real.stderr).toBe(valid.length)
        expect(other.state.bills.all(BIZ).length - seeded).toBe(valid.length)
      } finally {
        await other.close()
      }
    },
  )
})

/**
 * The JSON text of each bill of a file in bk's own columns, as a client that checks nothing would
 * send it: values as written; only what a CSV cannot say as JSON is converted the way bk does
 * (a date to a UTC datetime, a decimal to a number literal). A value that is no JSON (a metadata
 * cell that does not parse, an amount that is no number) is sent as a string.
 */
/** Posts `bodies` as one batch to the emulator, as a client that checks nothing would: its answer. */
async function postUnchecked(
  bodies: string[],
): Promise<{data: Bill[]; errors: Array<{error: string; bill_number: string}>}> {
  const res = await fetch(`${emulator.baseUrl}/v0/business/${BIZ}/bills`, {
    method: 'POST',
    headers: {authorization: `Bearer ${await tokenFor(emulator)}`, 'content-type': 'application/json'},
    body: `[${bodies.join(',')}]`,
  })
  const answer = (await res.json()) as {data: Bill[]; errors: Array<{error: string; bill_number: string}>}
  expect(res.status, JSON.stringify(answer)).toBe(200)
  return answer
}

function uncheckedBodies(text: string): string[] {
  const rows = parse(text, {bom: true, relax_column_count: true}) as string[][]
  const header = rows[0]!.map((h) => h.trim().toLowerCase())
  const get = (row: string[], name: string) => row[header.indexOf(name)] ?? ''
  const bills: string[][][] = []
  let key: string | undefined
  for (const row of rows.slice(1)) {
    const k = `${get(row, 'vendor_id').trim()} ${get(row, 'number').trim()}`
    if (k === key) bills.at(-1)!.push(row)
    else bills.push([row])
    key = k
  }
  const json = (cell: string) => {
    try {
      parseJsonTree(cell.trim(), {nonFinite: false})
      return cell.trim()
    } catch {
      return JSON.stringify(cell)
    }
  }
  const number = (cell: string) =>
    DECIMAL_TEXT.test(cell.trim()) ? new Decimal(cell.trim()).toFixed() : JSON.stringify(cell)
  const date = (cell: string) => {
    const p = parseIsoDatetime(cell)
    return JSON.stringify(
      p.ok && (p.value.time === undefined || p.value.zone !== undefined) ? toUtcText(p.value) : cell,
    )
  }
  return bills.map((rows) => {
    const first = rows[0]!
    const fields: string[] = []
    const put = (name: string, value: string) => fields.push(`${JSON.stringify(name)}:${value}`)
    put('number', JSON.stringify(get(first, 'number').trim()))
    put('vendor_id', JSON.stringify(get(first, 'vendor_id').trim()))
    for (const name of ['business_id', 'currency'])
      if (get(first, name).trim()) put(name, JSON.stringify(get(first, name).trim()))
    if (get(first, 'description')) put('description', JSON.stringify(get(first, 'description')))
    for (const name of ['issued_at', 'due_at']) if (get(first, name).trim()) put(name, date(get(first, name).trim()))
    if (get(first, 'metadata').trim()) put('metadata_', json(get(first, 'metadata')))
    const tags = header.flatMap((h, i) => {
      const cell = (first[i] ?? '').trim()
      if (!h.startsWith('tag:') || cell === '') return []
      const value = cell.includes('=')
        ? `[${cell
            .split(';')
            .filter((p) => p.trim() !== '')
            .map((p) => {
              const eq = p.lastIndexOf('=')
              return `{"value":${JSON.stringify(p.slice(0, eq).trim())},"amount":${number(p.slice(eq + 1))}}`
            })
            .join(',')}]`
        : JSON.stringify(cell)
      return [`${JSON.stringify(h.slice(4))}:${value}`]
    })
    if (tags.length) put('tags', `{${tags.join(',')}}`)
    const lines = rows.map((row) => {
      const line = [
        `"amount":${number(get(row, 'line_amount'))}`,
        `"ledger_id":${JSON.stringify(get(row, 'line_ledger_id').trim())}`,
      ]
      if (get(row, 'line_description')) line.push(`"description":${JSON.stringify(get(row, 'line_description'))}`)
      if (get(row, 'line_metadata').trim()) line.push(`"metadata_":${json(get(row, 'line_metadata'))}`)
      return `{${line.join(',')}}`
    })
    put('lines', `[${lines.join(',')}]`)
    return `{${fields.join(',')}}`
  })
}
