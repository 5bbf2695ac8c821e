/**
 * The emulator as the user's own test double: fixtures from a file or a bills CSV, added at run
 * time, and kept across restarts with --state.
 */
import {readFileSync, truncateSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {runBk, tempDir} from '../helpers/bk.js'
import {startEmulatorProcess} from '../helpers/emulator-process.js'
import {call} from './support.js'

const BILLS = [
  'number,vendor_id,line_description,line_amount,line_ledger_id,tag:department,issued_at',
  'NW-1001,ven_000042,Paper,120.50,ldg_6100,operations,2026-03-01',
  'NW-1001,ven_000042,Toner,80.25,ldg_6100,operations,2026-03-01',
  'NW-1002,ven_cloud-7,Hosting,999.99,ldg_6200,engineering,2026-03-02',
  'NW-1003,ven_000042,Chairs,1500.00,ldg_1500,operations,2026-03-03',
].join('\n')

describe('bk emulator fixtures --from-csv, then an import against the emulator (a CI job)', () => {
  it('holds exactly the bills of a CSV with the company own ids', async () => {
    const dir = tempDir()
    const csv = join(dir, 'bills.csv')
    writeFileSync(csv, BILLS + '\n')
    const fixtures = join(dir, 'fixtures.yaml')
    const made = await runBk(['emulator', 'fixtures', '--from-csv', csv, '--business', 'biz_northwind', '-o', fixtures])
    expect(made.stderr).toContain('biz_northwind with 2 vendors, 3 ledgers and 1 tag field, from 3 bills')
    expect(made.code).toBe(0)
    const text = readFileSync(fixtures, 'utf8')
    for (const id of ['ven_000042', 'ven_cloud-7', 'ldg_6100', 'ldg_6200', 'ldg_1500', 'engineering', 'operations'])
      expect(text).toContain(id)

    const emulator = await startEmulatorProcess(['--seed', 'none', '--fixtures', fixtures])
    try {
      expect(emulator.info.businessIds).toEqual(['biz_northwind'])
      const imported = await runBk(['bills', 'import', csv, '--json'], {env: emulator.env('biz_northwind'), cwd: dir})
      expect(imported.stderr).not.toContain('does not exist')
      expect(imported.code).toBe(0)
      const held = await call(emulator.info.baseUrl, 'GET', '/_emulator/businesses/biz_northwind/bills')
      const bills = held.body.data as Array<{
        number: string
        vendor_id: string
        total_amount: number
        lines: Array<{ledger_id: string; amount: number}>
        tags: Record<string, unknown>
      }>
      expect(held.body.count).toBe(3)
      expect(
        bills.map((b) => [b.number, b.vendor_id, b.total_amount, b.lines.map((l) => [l.ledger_id, l.amount])]),
      ).toEqual([
        [
          'NW-1001',
          'ven_000042',
          200.75,
          [
            ['ldg_6100', 120.5],
            ['ldg_6100', 80.25],
          ],
        ],
        ['NW-1002', 'ven_cloud-7', 999.99, [['ldg_6200', 999.99]]],
        ['NW-1003', 'ven_000042', 1500, [['ldg_1500', 1500]]],
      ])
      expect(bills[1]!.tags).toEqual({department: [{amount: '999.99', value: 'engineering'}]})
    } finally {
      expect(await emulator.stop()).toBe(0)
    }
  })

  it('without the fixtures the same import is refused: the ids are the company own', async () => {
    const dir = tempDir()
    const csv = join(dir, 'bills.csv')
    writeFileSync(csv, BILLS + '\n')
    const emulator = await startEmulatorProcess(['--seed', 'empty'])
    try {
      const imported = await runBk(['bills', 'import', csv], {env: emulator.env(), cwd: dir})
      expect(imported.code).toBe(6)
    } finally {
      await emulator.stop()
    }
  })
})

describe('bk emulator start --fixtures', () => {
  it('loads the documented example, every kind of record with the ids it gives', async () => {
    const emulator = await startEmulatorProcess(['--seed', 'none', '--fixtures', 'examples/emulator-fixtures.yaml'])
    try {
      const counts = await call(emulator.info.baseUrl, 'GET', '/_emulator/counts?business_id=biz_northwind')
      expect(counts.body.data).toMatchObject({
        vendors: 3,
        ledgers: 3,
        customers: 1,
        externalAccounts: 1,
        tagValues: 3,
        invoices: 1,
        refunds: 1,
        transactions: 1,
        documents: 1,
        tasks: 2,
      })
      const invoices = await runBk(['invoices', 'list', '--json'], {env: emulator.env('biz_northwind')})
      expect(invoices.code).toBe(0)
      expect(JSON.parse(invoices.stdout).data).toMatchObject([{id: 'inv_2026_0001', total_amount: 1200.5}])
    } finally {
      await emulator.stop()
    }
  })

  it('names file:line:column for a wrong prefix, an unknown field and a reference to nothing', async () => {
    const dir = tempDir()
    const file = join(dir, 'f.yaml')
    writeFileSync(
      file,
      [
        'businesses:',
        '  - id: biz_x',
        '    vendors:',
        '      - {id: vendor_1, name: A}',
        '    ledgers:',
        '      - {id: ldg_1, nam: B}',
      ].join('\n') + '\n',
    )
    const first = await runBk(['emulator', 'start', '--port', '0', '--fixtures', file])
    expect(first.code).toBe(2)
    expect(first.stderr).toContain(`${file}:4:14: businesses[0].vendors[0].id: "vendor_1" is not an id of this kind`)
    expect(first.stderr).toContain(`${file}:6:9: businesses[0].ledgers[0].name: is required`)
    expect(first.stderr).toContain(`businesses[0].ledgers[0].nam: unknown field`)

    writeFileSync(
      file,
      [
        'businesses:',
        '  - id: biz_x',
        '    customers: [{id: cus_1, name: C}]',
        '    invoices:',
        '      - number: I-1',
        '        customer_id: cus_nobody',
        '        due_at: 2026-01-01T00:00:00Z',
        '        lines: [{ledger_id: ldg_1, amount: 1}]',
      ].join('\n') + '\n',
    )
    const second = await runBk(['emulator', 'start', '--port', '0', '--fixtures', file])
    expect(second.code).toBe(2)
    expect(second.stderr).toContain(`${file}:6:22: businesses[0].invoices[0].customer_id: cus_nobody does not exist`)
    expect(second.stderr).toContain(`${file}:8:29: businesses[0].invoices[0].lines[0].ledger_id: ldg_1 does not exist`)
  })

  it('reads JSON too, and adds the same at run time through POST /_emulator/fixtures, whole or not at all', async () => {
    const dir = tempDir()
    const file = join(dir, 'f.json')
    writeFileSync(file, JSON.stringify({businesses: [{id: 'biz_demo_acme', vendors: [{id: 'ven_json', name: 'J'}]}]}))
    const emulator = await startEmulatorProcess(['--seed', 'empty', '--fixtures', file])
    try {
      const base = emulator.info.baseUrl
      const before = (await call(base, 'GET', '/_emulator/counts')).body.data
      expect(before.vendors).toBe(4)
      const refused = await call(base, 'POST', '/_emulator/fixtures', {
        json: {
          businesses: [
            {
              id: 'biz_demo_acme',
              vendors: [
                {id: 'ven_new', name: 'N'},
                {id: 'ven_json', name: 'J'},
              ],
            },
          ],
        },
      })
      expect(refused.status).toBe(422)
      expect(refused.body.data.problems).toEqual([
        {path: 'businesses[0].vendors[1].id', message: 'ven_json already exists'},
      ])
      expect((await call(base, 'GET', '/_emulator/counts')).body.data.vendors).toBe(4)
      const added = await call(base, 'POST', '/_emulator/fixtures', {
        json: {businesses: [{name: 'Generated', vendors: [{name: 'V'}], ledgers: [{id: 'ldg_gen', name: 'L'}]}]},
      })
      expect(added.status).toBe(201)
      expect(added.body.data.businesses).toHaveLength(1)
      expect(added.body.data.vendors[0]).toMatch(/^ven_/)
      expect(added.body.data.ledgers).toEqual(['ldg_gen'])
    } finally {
      await emulator.stop()
    }
  })
})

describe('bk emulator start --state', () => {
  it('keeps data created before a restart, and refuses a torn state file without touching it', async () => {
    const dir = tempDir()
    const state = join(dir, 'emulator.state')
    const first = await startEmulatorProcess(['--seed', 'empty', '--state', state])
    expect(first.info.restored).toBe(false)
    const created = await call(first.info.baseUrl, 'POST', '/_emulator/businesses', {json: {name: 'Kept'}})
    expect(created.status).toBe(201)
    const csv = join(dir, 'bills.csv')
    writeFileSync(csv, 'number,vendor_id,line_amount,line_ledger_id\nK-1,ven_demo_office,10.00,ldg_demo_expenses\n')
    expect((await runBk(['bills', 'import', csv], {env: first.env(), cwd: dir})).code).toBe(0)
    // SIGKILL: the data must already be on disk when the answer left.
    first.child.kill('SIGKILL')
    await new Promise((resolve) => first.child.once('close', resolve))

    const second = await startEmulatorProcess(['--seed', 'empty', '--state', state])
    try {
      expect(second.info.restored).toBe(true)
      expect(second.info.businessIds).toEqual(['biz_demo_acme', created.body.data.id])
      const bills = await call(second.info.baseUrl, 'GET', '/_emulator/businesses/biz_demo_acme/bills')
      expect(bills.body.data.map((b: {number: string}) => b.number)).toEqual(['K-1'])
      // New ids go on after the old ones: nothing created later collides.
      const next = await call(second.info.baseUrl, 'POST', '/_emulator/businesses', {json: {}})
      expect(next.body.data.id > created.body.data.id).toBe(true)
    } finally {
      expect(await second.stop()).toBe(0)
    }

    const whole = readFileSync(state)
    truncateSync(state, whole.length - 100)
    const torn = await runBk(['emulator', 'start', '--port', '0', '--state', state])
    expect(torn.code).toBe(2)
    expect(torn.stderr).toContain(`${state} is a damaged emulator state file: it is cut short`)
    expect(readFileSync(state).length).toBe(whole.length - 100)
  })
})
