/**
 * bk transactions get and bk rules receipts set against the
 * emulator: success, 404, 403 (scope and other business), 422, and bad local input that never
 * reaches the network (proved with a recorder that counts requests).
 */
import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'

import {DEMO_RECORD_IDS} from '../../src/emulator/seed-records.js'
import {parseJsonOutput, runBk} from '../helpers/bk.js'
import {envFor, start, tokenFor, type RunningEmulator} from '../helpers/emulator.js'
import {recorderEnv, startRecorder, type Recorder} from './recorder.js'

// Several bk runs per test on two shared cores: allow for a loaded machine.
vi.setConfig({testTimeout: 90_000})

let emulator: RunningEmulator
let recorder: Recorder
let biz: string
let otherBusinessEnv: Record<string, string | undefined>
let missingBusinessEnv: Record<string, string | undefined>
beforeAll(async () => {
  emulator = await start()
  recorder = await startRecorder()
  biz = emulator.businessIds[0] as string
  // A token limited to the second business, used against the first.
  otherBusinessEnv = {BK_BASE_URL: emulator.baseUrl, BK_ACCESS_TOKEN: await tokenFor(emulator, {business_id: emulator.businessIds[1] as string}), BK_BUSINESS_ID: biz}
  missingBusinessEnv = {BK_BASE_URL: emulator.baseUrl, BK_ACCESS_TOKEN: await tokenFor(emulator), BK_BUSINESS_ID: 'biz_missing'}
})
afterAll(async () => {
  await emulator.close()
  await recorder.close()
})

const scoped = (scope: string) => ({...envFor(emulator), BK_SCOPES: scope})

async function expectLocalRefusal(args: string[], mention: string): Promise<void> {
  const before = recorder.requests.length
  const result = await runBk(args, {env: recorderEnv(recorder)})
  expect(result.code, result.stderr).toBe(2)
  expect(result.stderr + result.stdout).toContain(mention)
  expect(recorder.requests.slice(before)).toEqual([])
}

describe('bk transactions get', () => {
  const id = DEMO_RECORD_IDS.transaction

  it('shows a readable view with amounts as sent, and the whole object with --json', async () => {
    const view = await runBk(['transactions', 'get', DEMO_RECORD_IDS.expenseTransaction], {env: envFor(emulator)})
    expect(view.code, view.stderr).toBe(0)
    expect(view.stdout).toContain(`Transaction ${DEMO_RECORD_IDS.expenseTransaction}`)
    expect(view.stdout).toMatch(/Amount\s+-120\.5\n/)
    expect(view.stdout).toMatch(/Office supplies\s+100\.00/)
    expect(view.stdout).toMatch(/Sales tax\s+20\.50/)
    expect(view.stdout).toMatch(/Status\s+confirmed \(posted, not reviewed\)/)
    expect(view.stdout).toContain('Line items')

    const json = await runBk(['transactions', 'get', id, '--json'], {env: envFor(emulator)})
    expect(json.code).toBe(0)
    expect(parseJsonOutput(json)).toEqual(JSON.parse(JSON.stringify(emulator.state.transactions.get(biz, id))))
  })

  it('embeds the invoices of its payments with --include invoice_payments.invoice', async () => {
    const json = await runBk(['transactions', 'get', id, '--include', 'invoice_payments.invoice', '--json'], {env: envFor(emulator)})
    const txn = parseJsonOutput<{invoice_payments: Array<{invoice_id: string; invoice: {id: string; number: string}}>}>(json)
    expect(txn.invoice_payments).toHaveLength(2)
    for (const p of txn.invoice_payments) expect(p.invoice.id).toBe(p.invoice_id)
    const view = await runBk(['transactions', 'get', id, '--include', 'invoice_payments.invoice'], {env: envFor(emulator)})
    expect(view.stdout).toContain('Invoice payments')
    for (const p of txn.invoice_payments) expect(view.stdout).toContain(p.invoice.number)
  })

  it('exits 4, 3, 3 and 5 for an unknown id, a missing scope, another business and a malformed id', async () => {
    const missing = await runBk(['transactions', 'get', 'txn_missing'], {env: envFor(emulator)})
    expect(missing.code).toBe(4)
    expect(missing.stderr).toContain('txn_missing')
    expect((await runBk(['transactions', 'get', id], {env: missingBusinessEnv})).code).toBe(4)
    const scope = await runBk(['transactions', 'get', id], {env: scoped('invoice:read')})
    expect(scope.code).toBe(3)
    expect(scope.stderr).toContain('transaction:read')
    expect((await runBk(['transactions', 'get', id], {env: otherBusinessEnv})).code).toBe(3)
    const malformed = await runBk(['transactions', 'get', 'txn_bad id', '--json'], {env: envFor(emulator)})
    expect(malformed.code).toBe(5)
    expect(JSON.parse(malformed.stdout)).toMatchObject({code: 'rejected', details: {status: 422, body: {data: {field: 'transaction_id'}}}})
  })

  it('refuses another kind of id and an unknown include before sending anything', async () => {
    await expectLocalRefusal(['transactions', 'get', 'inv_123'], '"inv_123"')
    await expectLocalRefusal(['transactions', 'get', id, '--include', 'refunds'], '--include')
  })
})

describe('bk rules receipts set', () => {
  it('sets the threshold and the switch, printing the resulting rule', async () => {
    const set = await runBk(['rules', 'receipts', 'set', '--threshold', '25.00'], {env: envFor(emulator)})
    expect(set.code, set.stderr).toBe(0)
    expect(set.stdout).toBe(`Receipt requests for ${biz}: enabled, for spend of 25 or more.\n`)
    expect(emulator.state.receiptConfigs.get(biz)).toEqual({is_enabled: true, threshold_amount: 25})
    const off = await runBk(['rules', 'receipts', 'set', '--no-enabled', '--json'], {env: envFor(emulator)})
    expect(parseJsonOutput(off)).toEqual({business_id: biz, is_enabled: false, threshold_amount: 25})
    const on = await runBk(['rules', 'receipts', 'set', '--enabled', '--threshold', '0'], {env: envFor(emulator)})
    expect(on.stdout).toContain('enabled, for every spend')
    expect(emulator.state.receiptConfigs.get(biz)).toEqual({is_enabled: true, threshold_amount: 0})
  })

  it('starts a business with no override from the defaults', async () => {
    const other = emulator.businessIds[1] as string
    const result = await runBk(['rules', 'receipts', 'set', '--no-enabled', '--json', '--business', other], {env: envFor(emulator, null)})
    expect(parseJsonOutput(result)).toEqual({business_id: other, is_enabled: false, threshold_amount: 0})
  })

  it('exits 4, 3, 3 and 5 for an unknown business, a missing scope, another business and a refused amount', async () => {
    const before = emulator.state.receiptConfigs.get(biz)
    expect((await runBk(['rules', 'receipts', 'set', '--enabled'], {env: missingBusinessEnv})).code).toBe(4)
    const scope = await runBk(['rules', 'receipts', 'set', '--enabled'], {env: scoped('invoice:read')})
    expect(scope.code).toBe(3)
    expect(scope.stderr).toContain('business:update')
    expect((await runBk(['rules', 'receipts', 'set', '--enabled'], {env: otherBusinessEnv})).code).toBe(3)
    // More digits than the service keeps: valid locally, refused by the service.
    const precise = await runBk(['rules', 'receipts', 'set', '--threshold', '12345678901234567.5'], {env: envFor(emulator)})
    expect(precise.code).toBe(5)
    expect(precise.stderr).toContain('threshold_amount')
    expect(emulator.state.receiptConfigs.get(biz)).toEqual(before)
  })

  it('refuses no change and a threshold that is not a decimal >= 0, before sending anything', async () => {
    await expectLocalRefusal(['rules', 'receipts', 'set'], '--enabled, --no-enabled or --threshold')
    await expectLocalRefusal(['rules', 'receipts', 'set', '--threshold', '-1'], 'must be 0 or more')
    await expectLocalRefusal(['rules', 'receipts', 'set', '--threshold', '1,50'], '"1,50"')
    await expectLocalRefusal(['rules', 'receipts', 'set', '--threshold', '1e3'], 'exponents')
    await expectLocalRefusal(['rules', 'receipts', 'set', '--enabled', '--threshold', 'ten'], '"ten"')
  })
})
