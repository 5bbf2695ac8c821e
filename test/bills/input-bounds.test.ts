/**
 * The map and lookup files of `bills import`: YAML aliases in a map and a key twice are exit 2
 * naming the place, a lookup's errors name the line the row is on (past empty lines and quoted
 * line breaks), and a lookup over its size limit is refused before it is read.
 */
import {truncateSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {runBk, tempDir} from '../helpers/bk.js'

const CSV =
  'number,vendor_id,issued_at,due_at,currency,line_amount,line_ledger_id\nB-1,Acme,2026-01-02,2026-02-02,EUR,10.00,ldg_1\n'

function files(map: string, lookup?: string): {dir: string; csv: string; map: string; lookup: string} {
  const dir = tempDir()
  writeFileSync(join(dir, 'bills.csv'), CSV)
  writeFileSync(join(dir, 'map.yaml'), map)
  if (lookup !== undefined) writeFileSync(join(dir, 'vendors.csv'), lookup)
  return {dir, csv: join(dir, 'bills.csv'), map: join(dir, 'map.yaml'), lookup: join(dir, 'vendors.csv')}
}

describe('bills import: bounded map and lookup files', () => {
  it('refuses YAML aliases in a map with exit 2', async () => {
    const f = files('columns: &c\n  number: number\ndefaults: *c\n')
    const result = await runBk(['bills', 'import', f.csv, '--map', f.map, '--dry-run'])
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain(`${f.map}: YAML aliases (*name) are not allowed in it`)
  })

  it('names a map key given twice, with its line', async () => {
    const f = files('columns:\n  number: number\n  number: vendor_id\n')
    const result = await runBk(['bills', 'import', f.csv, '--map', f.map, '--dry-run'])
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain(`${f.map}:3:3: the key "number" appears twice in one mapping`)
  })

  it('names the line of a bad lookup row past empty lines and quoted line breaks', async () => {
    const lookup = 'name,id\n\n"Acme\nCorp",ven_1\n\nBeta\n'
    const f = files('columns:\n  number: number\n', lookup)
    const result = await runBk(['bills', 'import', f.csv, '--lookup', `vendor_id=${f.lookup}`, '--dry-run'])
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain(`${f.lookup}:6: expected two columns`)
  })

  it('refuses a lookup over its size limit before reading it', async () => {
    const f = files('columns:\n  number: number\n', '')
    truncateSync(f.lookup, 17 * 1024 * 1024)
    const result = await runBk(['bills', 'import', f.csv, '--lookup', `vendor_id=${f.lookup}`, '--dry-run'])
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain(`is larger than bk's limit of 16 MB`)
  })
})

describe('bills import: a day 0', () => {
  it('says there is no day 0, not how many days the month has', async () => {
    const dir = tempDir()
    const csv = join(dir, 'bills.csv')
    writeFileSync(csv, CSV.replace('2026-01-02', '00/01/2026'))
    const map = join(dir, 'map.yaml')
    writeFileSync(map, 'columns:\n  number: number\ndate_format: DD/MM/YYYY\n')
    const result = await runBk(['bills', 'import', csv, '--map', map, '--dry-run'])
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain('is not a real date (DD/MM/YYYY): there is no day 0')
  })

  it('takes __proto__, constructor and prototype as column names like any other, polluting nothing', async () => {
    const dir = tempDir()
    writeFileSync(
      join(dir, 'bills.csv'),
      '__proto__,constructor,prototype,Ledger,Amount\nN-1,ven_1,Hotel,ldg_1,10.00\n',
    )
    const map =
      'columns:\n  __proto__: number\n  constructor: vendor_id\n  prototype: line_description\n' +
      '  Ledger: line_ledger_id\n  Amount: line_amount\naliases:\n  __proto__: [Bill No]\n'
    writeFileSync(join(dir, 'map.yaml'), map)
    const result = await runBk(
      ['bills', 'import', 'bills.csv', '--map', 'map.yaml', '--dry-run', '--show', '5', '--currency', 'EUR'],
      {cwd: dir},
    )
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual([
      {
        number: 'N-1',
        vendor_id: 'ven_1',
        currency: 'EUR',
        lines: [{amount: 10, ledger_id: 'ldg_1', description: 'Hotel'}],
      },
    ])
  })
})
