/**
 * bk transactions get and bk rules receipts set against the
 * emulator: success, 404, 403 (scope and other business), 422, and bad local input that never
 * reaches the network (proved with a recorder that counts requests).
 */
import {describe, expect, it, vi} from 'vitest'

import {DEMO_RECORD_IDS} from '../../src/emulator/seed-records.js'
import {parseJsonOutput, runBk} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'
import {useCommandFixture} from './command-fixture.js'

// Several bk runs per test on two shared cores: allow for a loaded machine.
vi.setConfig({testTimeout: 240_000})

const fx = useCommandFixture()

/** A token request of the emulator's own client, for `fetch`. */
const tokenRequest = (emulator: RunningEmulator): RequestInit => ({
  method: 'POST',
  headers: {'content-type': 'application/x-www-form-urlencoded'},
  body: new URLSearchParams({client_id: emulator.clientId, client_secret: emulator.clientSecret}),
})

describe('bk transactions get', () => {
  const id = DEMO_RECORD_IDS.transaction

  it('shows a readable view with amounts as the tables write them, and the whole object with --json', async () => {
    const view = await runBk(['transactions', 'get', DEMO_RECORD_IDS.expenseTransaction], {env: envFor(fx.emulator)})
    expect(view.code, view.stderr).toBe(0)
    expect(view.stdout).toContain(`Transaction ${DEMO_RECORD_IDS.expenseTransaction}`)
    expect(view.stdout).toMatch(/Amount\s+-120\.50\n/)
    expect(view.stdout).toMatch(/Office supplies\s+100\.00/)
    expect(view.stdout).toMatch(/Sales tax\s+20\.50/)
    expect(view.stdout).toMatch(/Status\s+confirmed \(posted, not reviewed\)/)
    expect(view.stdout).toContain('Line items')

    const json = await runBk(['transactions', 'get', id, '--json'], {env: envFor(fx.emulator)})
    expect(json.code).toBe(0)
    expect(parseJsonOutput(json)).toEqual(JSON.parse(JSON.stringify(fx.emulator.state.transactions.get(fx.biz, id))))
  })

  it('embeds the invoices of its payments with --include invoice_payments.invoice', async () => {
    const json = await runBk(['transactions', 'get', id, '--include', 'invoice_payments.invoice', '--json'], {
      env: envFor(fx.emulator),
    })
    const txn = parseJsonOutput<{invoice_payments: Array<{invoice_id: string; invoice: {id: string; number: string}}>}>(
      json,
    )
    expect(txn.invoice_payments).toHaveLength(2)
    for (const p of txn.invoice_payments) expect(p.invoice.id).toBe(p.invoice_id)
    const view = await runBk(['transactions', 'get', id, '--include', 'invoice_payments.invoice'], {
      env: envFor(fx.emulator),
    })
    expect(view.stdout).toContain('Invoice payments')
    for (const p of txn.invoice_payments) expect(view.stdout).toContain(p.invoice.number)
  })

  it('exits 4, 3, 3 and 5 for an unknown id, a missing scope, another business and a malformed id', async () => {
    const missing = await runBk(['transactions', 'get', 'txn_missing'], {env: envFor(fx.emulator)})
    expect(missing.code).toBe(4)
    expect(missing.stderr).toContain('txn_missing')
    expect((await runBk(['transactions', 'get', id], {env: fx.missingBusinessEnv})).code).toBe(4)
    const scope = await runBk(['transactions', 'get', id], {env: fx.scoped('invoice:read')})
    expect(scope.code).toBe(3)
    expect(scope.stderr).toContain('transaction:read')
    expect((await runBk(['transactions', 'get', id], {env: fx.otherBusinessEnv})).code).toBe(3)
    const malformed = await runBk(['transactions', 'get', 'txn_bad id', '--json'], {env: envFor(fx.emulator)})
    expect(malformed.code).toBe(5)
    expect(JSON.parse(malformed.stdout)).toMatchObject({
      code: 'rejected',
      details: {status: 422, body: {data: {field: 'transaction_id'}}},
    })
  })

  it('refuses another kind of id and an unknown include before sending anything', async () => {
    await fx.expectLocalRefusal(['transactions', 'get', 'inv_123'], '"inv_123"')
    await fx.expectLocalRefusal(['transactions', 'get', id, '--include', 'refunds'], '--include')
  })
})

describe('bk rules receipts set', () => {
  it('sets the threshold and the switch, printing the resulting rule', async () => {
    const set = await runBk(['rules', 'receipts', 'set', '--threshold', '25.00'], {env: envFor(fx.emulator)})
    expect(set.code, set.stderr).toBe(0)
    expect(set.stdout).toBe(`Receipt requests for ${fx.biz}: enabled, for spend of 25 or more.\n`)
    expect(fx.emulator.state.receiptConfigs.get(fx.biz)).toEqual({is_enabled: true, threshold_amount: 25})
    const off = await runBk(['rules', 'receipts', 'set', '--no-enabled', '--json'], {env: envFor(fx.emulator)})
    expect(parseJsonOutput(off)).toEqual({business_id: fx.biz, is_enabled: false, threshold_amount: 25})
    const on = await runBk(['rules', 'receipts', 'set', '--enabled', '--threshold', '0'], {env: envFor(fx.emulator)})
    expect(on.stdout).toContain('enabled, for every spend')
    expect(fx.emulator.state.receiptConfigs.get(fx.biz)).toEqual({is_enabled: true, threshold_amount: 0})
  })

  it('prints a threshold the service writes with an exponent as a plain decimal', async () => {
    // The emulator keeps 0.0000001 as a double, which JSON writes as 1e-7.
    const set = await runBk(['rules', 'receipts', 'set', '--threshold', '0.0000001'], {env: envFor(fx.emulator)})
    expect(set.code, set.stderr).toBe(0)
    expect(set.stdout).toBe(`Receipt requests for ${fx.biz}: enabled, for spend of 0.0000001 or more.\n`)
  })

  it('starts a business with no override from the defaults', async () => {
    const other = fx.emulator.businessIds[1] as string
    const result = await runBk(['rules', 'receipts', 'set', '--no-enabled', '--json', '--business', other], {
      env: envFor(fx.emulator, null),
    })
    expect(parseJsonOutput(result)).toEqual({business_id: other, is_enabled: false, threshold_amount: 0})
  })

  it('exits 4, 3, 3 and 5 for an unknown business, a missing scope, another business and a refused amount', async () => {
    const before = fx.emulator.state.receiptConfigs.get(fx.biz)
    expect((await runBk(['rules', 'receipts', 'set', '--enabled'], {env: fx.missingBusinessEnv})).code).toBe(4)
    const scope = await runBk(['rules', 'receipts', 'set', '--enabled'], {env: fx.scoped('invoice:read')})
    expect(scope.code).toBe(3)
    expect(scope.stderr).toContain('business:update')
    expect((await runBk(['rules', 'receipts', 'set', '--enabled'], {env: fx.otherBusinessEnv})).code).toBe(3)
    // More digits than the service keeps: valid locally, refused by the service.
    const precise = await runBk(['rules', 'receipts', 'set', '--threshold', '12345678901234567.5'], {
      env: envFor(fx.emulator),
    })
    expect(precise.code).toBe(5)
    expect(precise.stderr).toContain('threshold_amount')
    expect(fx.emulator.state.receiptConfigs.get(fx.biz)).toEqual(before)
  })

  it('refuses no change and a threshold that is not a decimal >= 0, before sending anything', async () => {
    await fx.expectLocalRefusal(['rules', 'receipts', 'set'], '--enabled, --no-enabled or --threshold')
    await fx.expectLocalRefusal(['rules', 'receipts', 'set', '--threshold', '-1'], 'must be 0 or more')
    await fx.expectLocalRefusal(['rules', 'receipts', 'set', '--threshold', '1,50'], '"1,50"')
    await fx.expectLocalRefusal(['rules', 'receipts', 'set', '--threshold', '1e3'], 'exponents')
    await fx.expectLocalRefusal(['rules', 'receipts', 'set', '--enabled', '--threshold', 'ten'], '"ten"')
    await fx.expectLocalRefusal(
      ['rules', 'receipts', 'set', '--enabled', '--no-enabled'],
      '--enabled and --no-enabled cannot be given together',
    )
  })

  it('sends the rule again when an answer is lost, since it sets the values given', async () => {
    // With this seed the token request passes and the first PATCH is carried out, then answered 500.
    const faulty = await start({faultRate: 0.5, faultSeed: 2, faultKinds: ['commit-5xx']})
    try {
      const result = await runBk(['rules', 'receipts', 'set', '--threshold', '11', '--debug'], {env: envFor(faulty)})
      expect(result.code, result.stderr).toBe(0)
      const answers = [...result.stderr.matchAll(/← (\d{3}) PATCH /g)].map((m) => m[1])
      expect(answers).toEqual(['500', '200'])
      expect(result.stderr).toContain(
        'The answer to the first attempt was lost (the service answered 500); the rule sets the values given, so bk sent it again.',
      )
      expect(result.stdout).toBe(`Receipt requests for ${fx.biz}: enabled, for spend of 11 or more.\n`)
      expect(faulty.state.receiptConfigs.get(fx.biz)).toEqual({is_enabled: true, threshold_amount: 11})
      expect(faulty.faults.counts['commit-5xx']).toBe(1)
    } finally {
      await faulty.close()
    }
  })

  it('says the outcome is unknown when every answer is lost, exit as for the last answer', async () => {
    // Every request is carried out, then answered 500, 502 and 504 in turn; the client sends the
    // PATCH four times in all (a 500 too, since it sets values), and every answer is lost.
    const faulty = await start({faultRate: 1, faultKinds: ['commit-5xx']})
    try {
      // The token request meets the first fault: issued, then answered 500.
      expect((await fetch(`${faulty.baseUrl}/v0/auth/token`, tokenRequest(faulty))).status).toBe(500)
      const [token] = [...faulty.state.tokens.keys()]
      const env = {BK_BASE_URL: faulty.baseUrl, BK_ACCESS_TOKEN: token, BK_BUSINESS_ID: fx.biz}
      const result = await runBk(['rules', 'receipts', 'set', '--threshold', '12', '--json'], {env})
      const error = parseJsonOutput<{code: string; error: string; hint: string}>(result)
      expect(error.code).toBe('outcome_unknown')
      expect(error.error).toBe(
        `Could not tell whether the service did update the receipt rules of ${fx.biz}: the answers to all 4 attempts were lost (the service answered 502; the service answered 504; the service answered 500)`,
      )
      expect(error.hint).toContain('running the same command again is safe')
      expect(result.code).toBe(7)
      expect(faulty.state.receiptConfigs.get(fx.biz)).toEqual({is_enabled: true, threshold_amount: 12})
    } finally {
      await faulty.close()
    }
  })
})
