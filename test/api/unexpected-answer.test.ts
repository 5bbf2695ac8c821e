/**
 * Schema mismatches in bk's words, through the real binary: an answer of the service that does
 * not have the shape bk knows says what was expected and found, with a hint; a fixtures file
 * missing a field says it is required, whatever the field's type.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runBk, tempDir} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

describe('an answer of an unexpected shape', () => {
  it('says what was expected and found, with a hint, exit 1', async () => {
    const business = emulator.businessIds[0]!
    // The service sends an amount as text where the spec gives a number.
    const invoice = emulator.state.invoices.all(business)[0] as unknown as {total_amount: unknown}
    invoice.total_amount = '12.50'
    const result = await runBk(['invoices', 'list', '--json'], {env: envFor(emulator)})
    expect(result.code, result.stderr).toBe(1)
    const body = JSON.parse(result.stdout) as {error: string; code: string; hint: string}
    expect(body.error).toBe(
      'Unexpected response from GET /v0/business/' +
        `${business}/invoice: field data.0.total_amount: expected a number, found the text "12.50"`,
    )
    expect(body.code).toBe('unexpected_response')
    expect(body.hint).toContain('--debug')
    expect(body.hint).toContain('base URL')
  })
})

describe('a fixtures file', () => {
  it('says "is required" of any missing field, and what was expected of a wrong one', async () => {
    const file = join(tempDir('bk-fixture-words-'), 'f.yaml')
    writeFileSync(
      file,
      [
        'businesses:',
        '  - id: biz_words',
        '    customers: [{id: cus_1, name: C}]',
        '    ledgers: [{id: ldg_1, name: L}]',
        '    invoices:',
        '      - {customer_id: cus_1, lines: [{ledger_id: ldg_1, amount: 5}]}',
        '      - {number: N-2, customer_id: cus_1, due_at: 5, lines: [{ledger_id: ldg_1, amount: "5"}]}',
      ].join('\n') + '\n',
    )
    const result = await runBk(['emulator', 'start', '--port', '0', '--fixtures', file])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('businesses[0].invoices[0].number: is required')
    expect(result.stderr).toContain('businesses[0].invoices[0].due_at: is required')
    expect(result.stderr).toContain('businesses[0].invoices[1].due_at: expected text or a date, found the number 5')
    expect(result.stderr).toContain('businesses[0].invoices[1].lines[0].amount: expected a number, found the text "5"')
    expect(result.stderr).not.toContain('Invalid input')
  })
})
