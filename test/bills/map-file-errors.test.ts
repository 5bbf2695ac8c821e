import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {runBk, tempDir} from '../helpers/bk.js'

const MAP_HINT = 'Hint: docs/bills.md, "The --map file", says what each key of a map takes'

/** stderr of a dry run of a two-column file through a map of `yaml`. */
async function mapError(yaml: string): Promise<string> {
  const dir = tempDir('bk-map-errors-')
  writeFileSync(join(dir, 'map.yaml'), yaml)
  writeFileSync(join(dir, 'export.csv'), 'Number,Vendor\nN-1,ven_demo_office\n')
  const result = await runBk(['bills', 'import', 'export.csv', '--map', 'map.yaml', '--dry-run'], {cwd: dir})
  expect(result.code).toBe(2)
  return result.stderr
}

describe('a map with a mistake is refused in bk words, with the next step', () => {
  it('says what a column may map to when it maps to a number', async () => {
    const stderr = await mapError('columns:\n  Number: 5\n  Vendor: vendor_id\n')
    expect(stderr).toContain('map.yaml:2:11: "Number" maps to 5: expected one of bk\'s columns (business_id, number,')
    expect(stderr).not.toContain('Invalid input')
    expect(stderr).toContain(MAP_HINT)
  })

  it('refuses columns written as a list, not as a column named 0', async () => {
    const stderr = await mapError('columns: [number, vendor_id]\n')
    expect(stderr).toContain(
      'map.yaml:1:10: columns: expected "Header: column" pairs, one a line, such as "Bill No: number"',
    )
    expect(stderr).not.toContain('"0"')
  })

  it('names the key meant by a misspelled one, at the top and inside a mapping', async () => {
    const top = await mapError('colums:\n  Number: number\n')
    expect(top).toContain('map.yaml:1:1: unknown key "colums"; did you mean columns?')
    const nested = await mapError('columns:\n  Number: number\ncredit:\n  valuse: [CR]\n')
    expect(nested).toContain('map.yaml:4:3: unknown key "valuse" in credit; did you mean values?')
    // The keys of the mapping the key is in, not the map's.
    expect(nested).toContain('Hint: The keys of credit: column, values, bills, negative_total')
    // One under a name of the map's choosing: a lookup's.
    const lookup = await mapError('columns:\n  Number: number\nlookups:\n  vendor_id:\n    kee: [Vendor]\n')
    expect(lookup).toContain('map.yaml:5:5: unknown key "kee" in lookups.vendor_id; did you mean key?')
    expect(lookup).toContain('Hint: The keys of lookups.vendor_id: key (')
  })

  it('says what was expected and found, once', async () => {
    expect(await mapError('columns:\n  Number: number\ndue_days: 5000\n')).toContain(
      'map.yaml:3:11: due_days: expected 3650 or less, found the number 5000\n',
    )
    expect(await mapError('columns:\n  Number: number\nkey: []\n')).toContain(
      'map.yaml:3:6: key: expected at least one item, found an empty list',
    )
    // A key left out is named at the mapping that lacks it.
    expect(await mapError('columns:\n  Number: number\nlookups:\n  vendor_id: {}\n')).toContain(
      'map.yaml:4:14: lookups.vendor_id.key: is required',
    )
    const column = await mapError('columns:\n  Number: number\ncredit:\n  column: 3\n  values: [CR]\n')
    expect(column).toContain('map.yaml:4:11: credit.column: expected text, found the number 3')
  })

  it('gives a problem found after the schema the same next step', async () => {
    const stderr = await mapError('columns:\n  Number: number\n  Vendor: vendor_id\nNumber: 2\nNumber: 3\n')
    expect(stderr).toContain('the key "Number" appears twice in one mapping')
    expect(stderr).toContain(MAP_HINT)
  })
})
