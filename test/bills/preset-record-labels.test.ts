/**
 * Presets read the labels the package's own documentation gives its fields, beside the
 * spellings of its import templates (docs/exports-research.md, "Third pass"): NetSuite's vendor
 * bill record labels its due date "Due Date/Receive By" and its external ID "ExternalId". Through
 * the real binary, against the emulator: the bodies are the example's own.
 */
import {copyFileSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {ROOT, runBk, tempDir} from '../helpers/bk.js'
import {recordedEmulator} from '../helpers/recorded-emulator.js'

const recorded = recordedEmulator('biz_demo_acme')
const NETSUITE = join(ROOT, 'examples', 'exports', 'netsuite')

describe('netsuite: the vendor bill record labels', () => {
  it('reads "Due Date/Receive By" as the due date and "ExternalId" as the join key, in both files', async () => {
    const dir = tempDir('bk-netsuite-labels-')
    const relabel = (name: string) => {
      const text = readFileSync(join(NETSUITE, name), 'utf8').split('\n')
      text[0] = text[0]!.replace('External ID', 'ExternalId').replace('Due Date', 'Due Date/Receive By')
      writeFileSync(join(dir, name), text.join('\n'))
    }
    relabel('bills.csv')
    relabel('expenses.csv')
    for (const lookup of ['vendors.csv', 'ledgers.csv']) copyFileSync(join(NETSUITE, lookup), join(dir, lookup))
    const result = await runBk(
      [
        'bills',
        'import',
        join(dir, 'bills.csv'),
        '--lines-file',
        join(dir, 'expenses.csv'),
        '--map',
        'netsuite',
        '--date-format',
        'MM/DD/YYYY',
        '--number-format',
        '1,234.56',
        '--lookup',
        `vendor_id=${join(dir, 'vendors.csv')}`,
        '--lookup',
        `line_ledger_id=${join(dir, 'ledgers.csv')}`,
      ],
      {env: recorded.env(), cwd: dir},
    )
    expect([0, 6], result.stderr).toContain(result.code)
    const sent = recorded.billPosts().flatMap((r) => JSON.parse(r.body) as unknown[])
    expect(sent).toEqual(JSON.parse(readFileSync(join(NETSUITE, 'bills.expected.json'), 'utf8')))
  })
})
