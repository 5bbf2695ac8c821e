/**
 * Properties of the emulator's cursor pagination (cursor.ts), over any sorted list, page size
 * and filter: walking either way gives every kept item once in order, and rows added between
 * pages never repeat or hide the rows already listed.
 */
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'

import {paginate} from '../../src/emulator/cursor.js'

const items = (ids: number[]) =>
  [...new Set(ids)].sort((a, b) => a - b).map((n) => ({id: `x_${String(n).padStart(6, '0')}`, n}))
const arbIds = fc.array(fc.integer({min: 0, max: 999_999}), {maxLength: 60})

describe('paginate', () => {
  it('forward then backward walks give every kept item once, in order', () => {
    fc.assert(
      fc.property(arbIds, fc.integer({min: 1, max: 7}), fc.integer({min: 1, max: 3}), (ids, pageSize, mod) => {
        const list = items(ids)
        const keep = (i: {n: number}) => i.n % mod === 0
        const expected = list.filter(keep).map((i) => i.id)
        const forward: string[] = []
        let page = paginate(list, {pageSize, keep, filters: {mod}})
        const pages = [page]
        forward.push(...page.data.map((i) => i.id))
        while (page.pagination.next_page_token) {
          page = paginate(list, {pageSize, keep, filters: {mod}, pageToken: page.pagination.next_page_token})
          expect(page.data.length).toBeGreaterThan(0)
          forward.push(...page.data.map((i) => i.id))
          pages.push(page)
        }
        expect(forward).toEqual(expected)
        expect(pages[0]?.pagination.previous_page_token).toBeNull()
        // Back from the last page visits the same items in reverse page order.
        const backward: string[] = [...page.data.map((i) => i.id)]
        while (page.pagination.previous_page_token) {
          page = paginate(list, {pageSize, keep, filters: {mod}, pageToken: page.pagination.previous_page_token})
          expect(page.data.length).toBe(pageSize)
          backward.unshift(...page.data.map((i) => i.id))
        }
        expect(backward).toEqual(expected)
      }),
    )
  })

  it('rows added between pages neither repeat nor hide the rows listed', () => {
    fc.assert(
      fc.property(arbIds, arbIds, fc.integer({min: 1, max: 5}), (ids, added, pageSize) => {
        const list = items(ids)
        const first = paginate(list, {pageSize})
        const grown = items([...ids, ...added])
        const rest: string[] = []
        let token = first.pagination.next_page_token
        while (token) {
          const page = paginate(grown, {pageSize, pageToken: token})
          rest.push(...page.data.map((i) => i.id))
          token = page.pagination.next_page_token
        }
        const seen = first.data.map((i) => i.id)
        expect(new Set([...seen, ...rest]).size).toBe(seen.length + rest.length)
        const last = seen.at(-1)
        // Every row after the cursor, old or new, is listed once.
        if (first.pagination.next_page_token && last)
          expect(rest).toEqual(grown.map((i) => i.id).filter((id) => id > last))
      }),
    )
  })

  it('refuses a cursor made for other filters', () => {
    const list = items([1, 2, 3])
    const token = paginate(list, {pageSize: 1, filters: {status: 'open'}}).pagination.next_page_token as string
    expect(() => paginate(list, {pageSize: 1, filters: {status: 'paid'}, pageToken: token})).toThrow(
      'page_token belongs to a query with other filters',
    )
    expect(paginate(list, {pageSize: 1, filters: {status: 'open'}, pageToken: token}).data).toEqual([list[1]])
  })
})
