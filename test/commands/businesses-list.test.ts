import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {parseJsonOutput, runBk} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

describe('bk businesses list', () => {
  it('prints one JSON document with both cursors', async () => {
    const first = await runBk(['businesses', 'list', '--json', '--page-size', '1'], {env: envFor(emulator, null)})
    expect(first.code).toBe(0)
    const page1 = parseJsonOutput<{
      data: Array<{id: string}>
      pagination: {next_page_token: string | null; previous_page_token: string | null}
    }>(first)
    expect(page1.data.map((b) => b.id)).toEqual([emulator.businessIds[0]])
    expect(page1.pagination.previous_page_token).toBeNull()
    const token = page1.pagination.next_page_token
    expect(token).toBeTruthy()
    const second = await runBk(['businesses', 'list', '--json', '--page-size', '1', '--page-token', token as string], {
      env: envFor(emulator, null),
    })
    const page2 = parseJsonOutput<typeof page1>(second)
    expect(page2.data.map((b) => b.id)).toEqual([emulator.businessIds[1]])
    const back = await runBk(
      [
        'businesses',
        'list',
        '--json',
        '--page-size',
        '1',
        '--page-token',
        page2.pagination.previous_page_token as string,
      ],
      {env: envFor(emulator, null)},
    )
    expect(parseJsonOutput<typeof page1>(back).data.map((b) => b.id)).toEqual([emulator.businessIds[0]])
  })

  it('streams every page as CSV with --all', async () => {
    const result = await runBk(['businesses', 'list', '--all', '--page-size', '1', '--output', 'csv'], {
      env: envFor(emulator, null),
    })
    expect(result.code).toBe(0)
    const lines = result.stdout.trim().split('\n')
    expect(lines[0]).toBe('ID,NAME,EXTERNAL ID,ACTIVE')
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(emulator.businessIds)
  })

  it('is tenant-level: a default business does not narrow the list', async () => {
    const result = await runBk(['businesses', 'list', '--json'], {
      env: envFor(emulator, emulator.businessIds[1] ?? null),
    })
    expect(parseJsonOutput<{data: Array<{id: string}>}>(result).data.map((b) => b.id)).toEqual(emulator.businessIds)
  })

  it('a business-scoped token (bk api with a business) sees only its business', async () => {
    const result = await runBk(['api', 'GET', '/v0/business', '--json'], {
      env: envFor(emulator, emulator.businessIds[1] ?? null),
    })
    expect(parseJsonOutput<{data: Array<{id: string}>}>(result).data.map((b) => b.id)).toEqual([
      emulator.businessIds[1],
    ])
  })

  it('rejects a page size above 100 before any request, with exit 2', async () => {
    const result = await runBk(['businesses', 'list', '--page-size', '101'], {env: envFor(emulator)})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--page-size')
  })
})
