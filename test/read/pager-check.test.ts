/**
 * Pager with item checks after the envelope: the next page is requested before the current
 * page's items are checked, and a bad item is an error naming its field path.
 */
import {describe, expect, it} from 'vitest'

import {Pager, type Page} from '../../src/api/pagination.js'
import {ResponseShapeError} from '../../src/api/errors.js'
import {invoice} from '../../src/api/schemas/index.js'

function pages(count: number, bad?: {page: number; item: number}): Array<Page<unknown>> {
  return Array.from({length: count}, (_, p) => ({
    data: [0, 1].map((i) => ({id: `inv_${p}_${i}`, total_amount: bad && bad.page === p && bad.item === i ? '12.50' : 12.5})),
    pagination: {next_page_token: p + 1 < count ? String(p + 1) : null, previous_page_token: p ? String(p - 1) : null},
  }))
}

describe('Pager checks items after the envelope', () => {
  it('asks for the next page before checking the items of the current one', async () => {
    const events: string[] = []
    const source = pages(3)
    // Records when the first item of each page is checked.
    const spied = invoice.refine((item) => {
      if (item.id.endsWith('_0')) events.push(`check ${item.id}`)
      return true
    })
    const pager = new Pager(async (token) => {
      events.push(`fetch ${token ?? 0}`)
      return source[Number(token ?? 0)] as Page<unknown>
    }, spied, 'GET /x', {prefetch: true})
    const ids: string[] = []
    for await (const item of pager) ids.push(item.id)
    expect(ids).toEqual(['inv_0_0', 'inv_0_1', 'inv_1_0', 'inv_1_1', 'inv_2_0', 'inv_2_1'])
    expect(events).toEqual(['fetch 0', 'fetch 1', 'check inv_0_0', 'fetch 2', 'check inv_1_0', 'check inv_2_0'])
  })

  it('names the field path of an item that does not match its schema', async () => {
    const source = pages(2, {page: 1, item: 1})
    const pager = new Pager(async (token) => source[Number(token ?? 0)] as Page<unknown>, invoice, 'GET /v0/business/biz_1/invoice')
    const seen: string[] = []
    const run = async () => {
      for await (const item of pager) seen.push(item.id)
    }
    await expect(run()).rejects.toThrow(ResponseShapeError)
    await expect(run()).rejects.toThrow('Unexpected response from GET /v0/business/biz_1/invoice: field data.1.total_amount')
    expect(seen.slice(0, 3)).toEqual(['inv_0_0', 'inv_0_1', 'inv_0_0'])
  })
})
