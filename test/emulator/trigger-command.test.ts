/**
 * `bk emulator trigger` through the real binary against the emulator: the event lands in the
 * notification log (what webhooks replay reads) with the content given, filled in, or refused.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {parseJsonOutput, runBk} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

const last = () => emulator.state.notifications.at(-1)?.notification

describe('bk emulator trigger', () => {
  it('BUSINESS_ACTIVATED and BUSINESS_DEACTIVATED change the business as the spec says', async () => {
    const env = envFor(emulator)
    const activeOf = async (id: string) => {
      const list = await runBk(['businesses', 'list', '--json'], {env})
      expect(list.code, list.stderr).toBe(0)
      return parseJsonOutput<{data: Array<{id: string; active: boolean}>}>(list).data.find((b) => b.id === id)?.active
    }
    expect(await activeOf('biz_demo_initech')).toBe(false)
    const on = await runBk(['emulator', 'trigger', 'BUSINESS_ACTIVATED', '--business', 'biz_demo_initech'], {env})
    expect(on.code, on.stderr).toBe(0)
    expect(await activeOf('biz_demo_initech')).toBe(true)
    const off = await runBk(['emulator', 'trigger', 'BUSINESS_DEACTIVATED', '--business', 'biz_demo_initech'], {env})
    expect(off.code, off.stderr).toBe(0)
    expect(await activeOf('biz_demo_initech')).toBe(false)
  })

  it('refuses a business the emulator does not hold, emitting nothing and inventing nothing', async () => {
    const env = envFor(emulator)
    const count = emulator.state.notifications.length
    for (const [type, business] of [
      ['BUSINESS_ACTIVATED', 'biz_nope'],
      ['BUSINESS_DEACTIVATED', 'biz_nope'],
      ['RECEIPT_MATCHED', 'biz_nope2'],
    ] as const) {
      const res = await runBk(['emulator', 'trigger', type, '-b', business], {env})
      expect(res.code, `${type}: ${res.stderr}`).toBe(4)
      expect(res.stderr).toContain(`Business ${business} not found`)
      expect(res.stderr).toContain('bk businesses list')
    }
    expect(emulator.state.notifications).toHaveLength(count)
    expect(emulator.state.businesses.has('biz_nope')).toBe(false)
  })

  it('RECEIPT_MATCHED takes the document and transaction of the business given', async () => {
    const res = await runBk(['emulator', 'trigger', 'RECEIPT_MATCHED', '-b', 'biz_demo_globex', '--json'], {
      env: envFor(emulator),
    })
    expect(res.code, res.stderr).toBe(0)
    const {content} = parseJsonOutput<{content: {document_id: string; transaction_id: string}}>(res)
    const globex = emulator.state.documents.all('biz_demo_globex').map((d) => d.id)
    expect(globex).toContain(content.document_id)
    expect(emulator.state.transactions.all('biz_demo_globex').map((t) => t.id)).toContain(content.transaction_id)
  })

  it('BUSINESS_CREATED creates the business it announces, new or as given', async () => {
    const env = envFor(emulator)
    const ids = async () => {
      const list = await runBk(['businesses', 'list', '--json'], {env})
      expect(list.code, list.stderr).toBe(0)
      return parseJsonOutput<{data: Array<{id: string; external_id: string}>}>(list).data
    }
    const before = await ids()
    // The profile's default business is not the one created.
    const made = await runBk(['emulator', 'trigger', 'BUSINESS_CREATED', '--json'], {env})
    expect(made.code, made.stderr).toBe(0)
    const {content} = parseJsonOutput<{content: {business_id: string; business_external_id: string}}>(made)
    expect(before.map((b) => b.id)).not.toContain(content.business_id)
    expect(await ids()).toContainEqual(
      expect.objectContaining({id: content.business_id, external_id: content.business_external_id}),
    )
    const given = await runBk(
      [
        'emulator',
        'trigger',
        'BUSINESS_CREATED',
        '-f',
        'business_id=biz_triggered',
        '-f',
        'business_external_id=ext-t',
      ],
      {env},
    )
    expect(given.code, given.stderr).toBe(0)
    expect(await ids()).toContainEqual(expect.objectContaining({id: 'biz_triggered', external_id: 'ext-t'}))
    // A business that exists cannot be created again: refused, nothing emitted.
    const count = emulator.state.notifications.length
    const again = await runBk(['emulator', 'trigger', 'BUSINESS_CREATED', '-f', 'business_id=biz_triggered'], {env})
    expect(again.code).toBe(5)
    expect(again.stderr).toContain('biz_triggered already exists')
    expect(emulator.state.notifications).toHaveLength(count)
  })

  it('emits the event with the fields given, the business given, and the rest filled in', async () => {
    const result = await runBk(
      ['emulator', 'trigger', 'TASK_REQUEST', '--field', 'task_types=["request_statement"]', '--json'],
      {env: envFor(emulator)},
    )
    expect(result.code, result.stderr).toBe(0)
    const out = parseJsonOutput<{type: string; content: Record<string, unknown>}>(result)
    expect(out).toEqual({
      type: 'TASK_REQUEST',
      content: {business_id: emulator.businessIds[0], task_types: ['request_statement']},
    })
    expect(last()).toEqual(out)

    const other = emulator.businessIds[1] as string
    const business = await runBk(['emulator', 'trigger', 'BUSINESS_ACTIVATED', '--business', other], {
      env: envFor(emulator),
    })
    expect(business.code, business.stderr).toBe(0)
    expect(business.stdout).toMatch(/^BUSINESS_ACTIVATED emitted: /)
    expect(last()).toMatchObject({type: 'BUSINESS_ACTIVATED', content: {business_id: other}})

    // A type without a business_id gets none, whatever the default business.
    const receipt = await runBk(['emulator', 'trigger', 'RECEIPT_MATCHED'], {env: envFor(emulator)})
    expect(receipt.code, receipt.stderr).toBe(0)
    expect(Object.keys(last()?.content ?? {}).sort()).toEqual(['document_id', 'timestamp', 'transaction_id'])
  })

  it('refuses an unknown type and a field the type does not have, emitting nothing', async () => {
    const before = emulator.state.notifications.length
    const type = await runBk(['emulator', 'trigger', 'INVOICE_PAID'], {env: envFor(emulator)})
    expect(type.code).toBe(2)
    expect(type.stderr).toContain('RECEIPT_MATCHED')
    const field = await runBk(['emulator', 'trigger', 'TASK_REQUEST', '--field', 'colour=blue'], {
      env: envFor(emulator),
    })
    expect(field.code).toBe(5)
    expect(field.stderr).toContain('no field colour')
    expect(emulator.state.notifications).toHaveLength(before)
  })

  it('works only against the emulator: a service that is not on loopback is refused', async () => {
    const result = await runBk(['emulator', 'trigger', 'RECEIPT_MATCHED'], {
      env: {BK_BASE_URL: 'https://api.example.com', BK_ACCESS_TOKEN: 'tok_x'},
    })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('https://api.example.com is not a loopback address')
  })
})
