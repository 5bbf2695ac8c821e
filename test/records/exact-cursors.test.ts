/**
 * A cursor bk prints or returns continues at the first item it did not show, and an export
 * (--file, --output csv or ndjson) holds the whole list unless --limit or --page-token asks for
 * part of it.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {parse} from 'csv-parse/sync'
import {describe, expect, it, vi} from 'vitest'

import {parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'
import {envFor} from '../helpers/emulator.js'
import {useCommandFixture} from './command-fixture.js'

vi.setConfig({testTimeout: 240_000})

const fx = useCommandFixture()

interface ListJson {
  data: Array<{id: string}>
  pagination: {next_page_token: string | null}
}

describe('exact cursors', () => {
  it('--limit cutting across pages returns a cursor at the next item, and --page-token resumes there', async () => {
    const all = fx.emulator.state.invoices.all(fx.biz).map((i) => i.id)
    expect(all.length).toBeGreaterThan(12)
    const first = await runBk(['invoices', 'list', '--json', '--limit', '7', '--page-size', '5'], {
      env: envFor(fx.emulator),
    })
    expect(first.code, first.stderr).toBe(0)
    const page1 = parseJsonOutput<ListJson>(first)
    expect(page1.data.map((i) => i.id)).toEqual(all.slice(0, 7))
    const token = page1.pagination.next_page_token as string
    const second = await runBk(
      ['invoices', 'list', '--json', '--limit', '5', '--page-size', '5', '--page-token', token],
      {env: envFor(fx.emulator)},
    )
    expect(second.code, second.stderr).toBe(0)
    expect(parseJsonOutput<ListJson>(second).data.map((i) => i.id)).toEqual(all.slice(7, 12))
  })

  it('the cursor told on stderr after --limit continues at the first row not written', async () => {
    const all = fx.emulator.state.invoices.all(fx.biz).map((i) => i.id)
    const result = await runBk(['invoices', 'list', '--limit', '3', '--page-size', '2', '--output', 'csv'], {
      env: envFor(fx.emulator),
    })
    expect(result.code, result.stderr).toBe(0)
    const rows = parse(result.stdout) as string[][]
    expect(rows.slice(1).map((r) => r[0])).toEqual(all.slice(0, 3))
    const token = /--page-token (\S+?),/.exec(result.stderr)?.[1]
    expect(token, result.stderr).toBeDefined()
    const next = await runBk(['invoices', 'list', '--json', '--page-size', '1', '--page-token', token as string], {
      env: envFor(fx.emulator),
    })
    expect(parseJsonOutput<ListJson>(next).data.map((i) => i.id)).toEqual(all.slice(3, 4))
  })

  it('--output csv --file exports every page without --all', async () => {
    const all = fx.emulator.state.invoices.all(fx.biz).map((i) => i.id)
    const file = join(tempDir(), 'invoices.csv')
    const result = await runBk(['invoices', 'list', '--output', 'csv', '--file', file, '--page-size', '4'], {
      env: envFor(fx.emulator),
    })
    expect(result.code, result.stderr).toBe(0)
    const rows = parse(readFileSync(file, 'utf8')) as string[][]
    expect(rows.slice(1).map((r) => r[0])).toEqual(all)
    expect(result.stderr).not.toContain('--page-token')
  })

  it('--output ndjson to stdout streams every page without --all', async () => {
    const all = fx.emulator.state.invoices.all(fx.biz).map((i) => i.id)
    const result = await runBk(['invoices', 'list', '--output', 'ndjson', '--page-size', '4'], {
      env: envFor(fx.emulator),
    })
    expect(result.code, result.stderr).toBe(0)
    const ids = result.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as {id: string}).id)
    expect(ids).toEqual(all)
  })
})
