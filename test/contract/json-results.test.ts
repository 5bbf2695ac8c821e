/**
 * The shape of each command's --json result as a contract: the keys and value types (not the
 * values) of what each command prints, run against the emulator. A change to any result's shape
 * is a visible diff of json-results.snapshot.json (update with `npx vitest run -u`).
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, expect, it} from 'vitest'

import {DEMO_RECORD_IDS} from '../../src/emulator/seed-records.js'
import {parseJsonOutput, ROOT, runBk, tempDir} from '../helpers/bk.js'
import {addProfileArgs, envFor, start, type RunningEmulator} from '../helpers/emulator.js'

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

/** Keys and types, recursively; arrays by the union of their items' shapes. */
function shape(value: unknown): unknown {
  if (value === null) return 'null'
  if (Array.isArray(value)) {
    const items = value.map(shape)
    const merged = items.reduce<Record<string, unknown> | string | undefined>(
      (acc, item) => mergeShapes(acc, item as Record<string, unknown> | string),
      undefined,
    )
    return merged === undefined ? [] : [merged]
  }
  if (typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as object)
        .sort()
        .map((k) => [k, shape((value as Record<string, unknown>)[k])]),
    )
  }
  return typeof value
}

function mergeShapes(
  a: Record<string, unknown> | string | undefined,
  b: Record<string, unknown> | string,
): Record<string, unknown> | string {
  if (a === undefined) return b
  if (typeof a === 'string' || typeof b === 'string')
    return a === b
      ? a
      : [...new Set([a, b].flatMap((x) => (typeof x === 'string' ? x.split('|') : ['object'])))].sort().join('|')
  const out: Record<string, unknown> = {...a}
  for (const [k, v] of Object.entries(b))
    out[k] = k in out && JSON.stringify(out[k]) !== JSON.stringify(v) ? mergeShapes(out[k] as never, v as never) : v
  return out
}

// About twenty bk runs one after another: a timeout with room for a loaded machine.
it("every command's --json result keeps its shape", async () => {
  const env = envFor(emulator)
  const configDir = tempDir()
  const dir = tempDir()
  const billsCsv = join(dir, 'bills.csv')
  writeFileSync(
    billsCsv,
    'number,vendor_id,line_amount,line_ledger_id\nJSON-1,ven_demo_office,10.00,ldg_demo_expenses\n',
  )
  // A layout no preset reads, for maps init's starter map.
  const otherCsv = join(dir, 'other.csv')
  writeFileSync(
    otherCsv,
    'Ref,Supplier,Posted,GL,Amount\n1,Northwind,03/02/2026,Office,-1.00\n1,Northwind,03/02/2026,Office,2.00\n',
  )
  const entries = join(dir, 'entries.yaml')
  writeFileSync(
    entries,
    'datetime: 2026-03-01T00:00:00Z\ndescription: shape\nlines:\n  - {ledger_id: ldg_demo_expenses, debit: 5.00}\n  - {ledger_id: ldg_demo_cash, credit: 5.00}\n',
  )
  // Partial success (exit 6): one shape for every command that can partly fail.
  const partialCsv = join(dir, 'partial.csv')
  writeFileSync(
    partialCsv,
    'number,vendor_id,line_amount,line_ledger_id\nP-1,ven_demo_office,10.00,ldg_demo_expenses\nP-2,ven_missing,10.00,ldg_demo_expenses\n',
  )
  const partialEntries = join(dir, 'partial.yaml')
  writeFileSync(
    partialEntries,
    'entries:\n  - datetime: 2026-03-01T00:00:00Z\n    description: ok\n    lines:\n      - {ledger_id: ldg_demo_expenses, debit: 5.00}\n      - {ledger_id: ldg_demo_cash, credit: 5.00}\n  - datetime: 2026-03-01T00:00:00Z\n    description: refused\n    lines:\n      - {ledger_id: ldg_missing, debit: 5.00}\n      - {ledger_id: ldg_demo_cash, credit: 5.00}\n',
  )
  const runs: Array<[string, string[], Record<string, string | undefined>?]> = [
    ['profiles add', addProfileArgs(emulator, 'p', '--insecure-storage')],
    ['profiles list', ['profiles', 'list']],
    ['profiles show', ['profiles', 'show', 'p']],
    ['auth status', ['auth', 'status'], env],
    // No credentials at all: the report's shape, whatever this machine's network and keyrings.
    ['doctor', ['doctor', '--business', 'biz_none'], {BK_CONFIG_DIR: tempDir()}],
    ['businesses list', ['businesses', 'list', '--page-size', '2'], env],
    ['bills import --dry-run', ['bills', 'import', billsCsv, '--dry-run'], env],
    ['bills import', ['bills', 'import', billsCsv], env],
    ['bills unconfirmed', ['bills', 'unconfirmed', billsCsv], env],
    ['bills record', ['bills', 'record'], env],
    ['bills import status', ['bills', 'import', 'status', billsCsv]],
    ['bills maps init (preset)', ['bills', 'maps', 'init', join(ROOT, 'examples/exports/xero/bills.csv')]],
    ['bills maps init (starter map)', ['bills', 'maps', 'init', otherCsv]],
    [
      'bills lookups init',
      ['bills', 'lookups', 'init', join(ROOT, 'examples/exports/xero/bills.csv'), '--map', 'xero', '--dir', tempDir()],
    ],
    ['journal-entries validate', ['journal-entries', 'validate', entries], env],
    ['journal-entries create', ['journal-entries', 'create', entries], env],
    [
      'transactions get',
      ['transactions', 'get', DEMO_RECORD_IDS.transaction, '--include', 'invoice_payments.invoice'],
      env,
    ],
    ['invoices list', ['invoices', 'list', '--limit', '5'], env],
    ['refunds list', ['refunds', 'list', '--limit', '5'], env],
    ['invoices list --summary', ['invoices', 'list', '--limit', '5', '--summary'], env],
    ['invoices list --fields', ['invoices', 'list', '--fields']],
    ['invoices aging', ['invoices', 'aging', '--as-of', '2026-06-30'], env],
    ['rules receipts set', ['rules', 'receipts', 'set', '--threshold', '25.00'], env],
    ['tasks delete', ['tasks', 'delete', DEMO_RECORD_IDS.openTask, '--yes'], env],
    [
      'documents unlink',
      ['documents', 'unlink', DEMO_RECORD_IDS.document, '--from', DEMO_RECORD_IDS.transaction, '--yes'],
      env,
    ],
    ['webhooks jwks', ['webhooks', 'jwks'], env],
    ['webhooks replay', ['webhooks', 'replay', '--limit', '1'], env],
    ['bills import (partial)', ['bills', 'import', partialCsv], env],
    ['journal-entries create (partial)', ['journal-entries', 'create', partialEntries], env],
    // Port 9 on loopback (discard) refuses: every re-post fails.
    ['webhooks replay (partial)', ['webhooks', 'replay', '--limit', '1', '--forward-to', 'http://127.0.0.1:9/'], env],
    ['emulator trigger', ['emulator', 'trigger', 'RECEIPT_MATCHED'], env],
    ['error', ['transactions', 'get', 'txn_missing'], env],
    ['auth logout', ['auth', 'logout', '-p', 'p']],
  ]
  // One notification, so that replay's items have a shape.
  await fetch(`${emulator.baseUrl}/_emulator/events`, {
    method: 'POST',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify({type: 'TASK_REQUEST'}),
  })
  const shapes: Record<string, unknown> = {}
  for (const [name, args, runEnv] of runs) {
    const res = await runBk([...args, '--json'], {env: runEnv ?? {}, configDir, input: emulator.clientSecret})
    const value = parseJsonOutput<Record<string, unknown>>(res)
    if (name.endsWith('(partial)')) {
      expect(res.code, `${name}: ${res.stderr}`).toBe(6)
      expect(value.partial, name).toMatchObject({reasons: [expect.any(String)]})
      expect(res.stderr, name).toContain((value.partial as {reasons: string[]}).reasons[0])
    }
    // What the kernel keyring holds depends on the machine, not on bk: its shape is not compared.
    if (name === 'auth status') value.volatile_secrets = []
    if (name === 'doctor') value.checks = (value.checks as Array<{id: string}>).filter((c) => c.id !== 'kernel-keyring')
    shapes[name] = shape(value)
  }
  // One key case in every document, the service's: bk's own keys are snake_case too.
  expect(camelCaseKeys(shapes)).toEqual([])
  await expect(JSON.stringify(shapes, null, 2) + '\n').toMatchFileSnapshot('./json-results.snapshot.json')
}, 240_000)

/** Every key with a capital letter, as `command: path.key`. */
function camelCaseKeys(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((item) => camelCaseKeys(item, path))
  if (value === null || typeof value !== 'object') return []
  return Object.entries(value).flatMap(([key, item]) => {
    const here = path ? `${path}.${key}` : `${key}:`
    return [...(/[A-Z]/.test(key) ? [here] : []), ...camelCaseKeys(item, here)]
  })
}
