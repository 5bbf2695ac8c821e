/**
 * A currency written in an amount cell must agree with the bill's currency: `USD 5.00` on a JPY
 * bill was dropped and 5 JPY sent. A symbol that names several currencies (`$`, `¥`) passes only
 * where the map says which one it means. Checked offline (--dry-run).
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {runBk, tempDir} from '../helpers/bk.js'

const COLUMNS =
  'columns:\n  Bill: number\n  Vendor: vendor_id\n  Account: line_ledger_id\n  Amount: line_amount\n  Cur: currency\n'

async function dryRun(mapExtra: string, rows: string[], args: string[] = []) {
  const dir = tempDir('bk-currency-')
  writeFileSync(join(dir, 'map.yaml'), COLUMNS + mapExtra)
  writeFileSync(join(dir, 'bills.csv'), ['Bill,Vendor,Account,Amount,Cur', ...rows].join('\n') + '\n')
  return runBk(
    [
      'bills',
      'import',
      'bills.csv',
      '--map',
      join(dir, 'map.yaml'),
      '--dry-run',
      '--business',
      'biz_demo_acme',
      ...args,
    ],
    {cwd: dir},
  )
}

describe('a currency written in an amount cell', () => {
  it('refuses a code that contradicts the bill, naming row, field and value', async () => {
    const result = await dryRun('currency_symbols: true\n', [
      'B-1,ven_demo_travel,ldg_demo_travel,USD 5.00,JPY',
      'B-2,ven_demo_travel,ldg_demo_travel,USD 5.00,USD',
      'B-3,ven_demo_travel,ldg_demo_travel,€5.00,EUR',
      'B-4,ven_demo_travel,ldg_demo_travel,£5.00,EUR',
    ])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(
      'bills.csv:2: column "Amount" (line_amount): "USD 5.00" is written in USD, but the bill\'s currency is JPY',
    )
    expect(result.stderr).toContain('bills.csv:5: column "Amount" (line_amount): "£5.00" is written in GBP')
    expect(result.stderr).not.toMatch(/bills\.csv:[34]:/)
  })

  it('passes $ or ¥ only where the map says which currency it means', async () => {
    const rows = ['B-1,ven_demo_travel,ldg_demo_travel,$5.00,USD', 'B-2,ven_demo_travel,ldg_demo_travel,¥500,JPY']
    const unsaid = await dryRun('currency_symbols: true\n', rows)
    expect(unsaid.code).toBe(2)
    expect(unsaid.stderr).toContain(
      'bills.csv:2: column "Amount" (line_amount): "$5.00" has "$", which names several currencies',
    )
    expect(unsaid.stderr).toContain('currency_symbols: {"$": "USD"}')
    expect(unsaid.stderr).toContain(
      'bills.csv:3: column "Amount" (line_amount): "¥500" has "¥", which names several currencies',
    )
    const said = await dryRun('currency_symbols:\n  $: USD\n  ¥: JPY\n', rows)
    expect(said.code, said.stderr).toBe(0)
    // Said, and contradicted by the bill: refused.
    const wrong = await dryRun('currency_symbols:\n  $: CAD\n', ['B-1,ven_demo_travel,ldg_demo_travel,$5.00,USD'])
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain('"$5.00" is written in CAD, but the bill\'s currency is USD')
  })
})

describe('a file decoded in the wrong encoding', () => {
  it('is refused when its text holds control characters, naming the encoding and the right one', async () => {
    const dir = tempDir('bk-encoding-')
    const header =
      'number,vendor_id,description,issued_at,due_at,currency,line_description,line_amount,line_ledger_id\n'
    // Windows-1252 bytes: 0x80 is the euro sign, 0x93/0x94 curly quotes; Latin-1 reads them as C1 controls.
    const row = Buffer.concat([
      Buffer.from('E-1,ven_demo_travel,'),
      Buffer.from([0x93]),
      Buffer.from('Hotel'),
      Buffer.from([0x94]),
      Buffer.from(' 5 '),
      Buffer.from([0x80]),
      Buffer.from(',2026-03-01,2026-04-01T00:00:00Z,EUR,Room,5.00,ldg_demo_travel\n'),
    ])
    writeFileSync(join(dir, 'bills.csv'), Buffer.concat([Buffer.from(header), row]))
    const args = ['bills', 'import', 'bills.csv', '--dry-run', '--business', 'biz_demo_acme']
    const latin1 = await runBk([...args, '--encoding', 'latin1'], {cwd: dir})
    expect(latin1.code).toBe(2)
    expect(latin1.stderr).toContain('bills.csv:2: column description: ')
    expect(latin1.stderr).toContain('U+0093')
    expect(latin1.stderr).toContain('read as latin1')
    expect(latin1.stderr).toContain('--encoding windows-1252')
    const cp1252 = await runBk([...args, '--encoding', 'windows-1252', '--show', '1'], {cwd: dir})
    expect(cp1252.code, cp1252.stderr).toBe(0)
    expect(cp1252.stdout).toContain('\u201cHotel\u201d 5 \u20ac')
  })
})
