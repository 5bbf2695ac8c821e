/**
 * --file writes what its name says: the format from .csv, .ndjson or .json when --output is not
 * given, a name that says nothing refused naming --output, and one line on stderr saying what was
 * written where. --json never writes another format. Ctrl-C or SIGTERM during an export leaves the
 * file as it was, says so, and exits 130.
 */
import {once} from 'node:events'
import {existsSync, readFileSync, watch, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'

import {parseJsonOutput, runBk, startBk, tempDir} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'
import {scriptedServer} from '../helpers/scripted-server.js'
import {plain, runBkTty} from '../helpers/tty.js'
import {whenFile} from '../helpers/wait.js'

vi.setConfig({testTimeout: 240_000})

let emulator: RunningEmulator
let invoiceCount: number
beforeAll(async () => {
  emulator = await start()
  invoiceCount = emulator.state.invoices.all(emulator.businessIds[0]!).length
})
afterAll(() => emulator.close())

describe('--file without --output', () => {
  it.each([
    ['invoices.csv', 'CSV', (text: string) => expect(text.split('\n')[0]).toMatch(/^ID,NUMBER,STATUS/)],
    [
      'invoices.ndjson',
      'NDJSON',
      (text: string) =>
        expect(
          text
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l) as unknown),
        ).toHaveLength(invoiceCount),
    ],
    ['invoices.json', 'JSON', (text: string) => expect(JSON.parse(text)).toHaveLength(invoiceCount)],
  ])('%s is written as %s, and stderr says so', async (name, format, check) => {
    const file = join(tempDir(), name)
    const result = await runBk(['invoices', 'list', '--file', file], {env: envFor(emulator)})
    expect(result.code, result.stderr).toBe(0)
    check(readFileSync(file, 'utf8'))
    expect(result.stderr).toBe(`Wrote ${invoiceCount.toLocaleString('en-US')} invoices as ${format} to ${file}.\n`)
  })

  it('a name that gives no format is refused, naming --output, and nothing is written', async () => {
    const file = join(tempDir(), 'invoices.txt')
    const result = await runBk(['invoices', 'list', '--file', file], {env: envFor(emulator)})
    expect(result.code).toBe(2)
    expect(result.stderr).toBe(
      `Error: --file ${file}: cannot tell the format from the name\n` +
        'Hint: Add --output csv, ndjson or json, or end the name in .csv, .ndjson or .json.\n',
    )
    expect(existsSync(file)).toBe(false)
    expect(existsSync(`${file}.partial`)).toBe(false)
  })

  it('--output still decides when given', async () => {
    const file = join(tempDir(), 'invoices.txt')
    const result = await runBk(['refunds', 'list', '--output', 'csv', '--file', file, '--limit', '1'], {
      env: envFor(emulator),
    })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toMatch(new RegExp(`^Wrote 1 refund as CSV to ${file.replace(/[.]/g, '\\.')}\\.\n`))
  })
})

describe('--json with another format', () => {
  it('--json --output csv is refused, as --jq --output csv is', async () => {
    const result = await runBk(['invoices', 'list', '--json', '--output', 'csv'], {env: envFor(emulator)})
    expect(result.code).toBe(2)
    expect(parseJsonOutput(result)).toEqual({
      error: '--json prints JSON, not --output csv',
      code: 'invalid_input',
      hint: 'Drop --json to write CSV, or drop --output.',
      details: {flag: '--output', value: 'csv'},
    })
  })
})

describe('Ctrl-C during an export to --file', () => {
  it('removes the .partial, leaves the file as it was, says so, exit 130', async () => {
    // A service that never answers the first page: the export is in flight when Ctrl-C comes.
    const held = await scriptedServer([() => {}])
    try {
      const file = join(tempDir(), 'invoices.csv')
      writeFileSync(file, 'the export of yesterday\n')
      const partial = `${file}.partial`
      const folder = watch(dirname(file))
      const inFlight = (async () => {
        await held.waitForRequests(1)
        while (!existsSync(partial)) await once(folder, 'change')
        folder.close()
      })()
      const result = await runBkTty(['invoices', 'list', '--file', file], {
        env: {BK_BASE_URL: held.url, BK_ACCESS_TOKEN: 'tok_test', BK_BUSINESS_ID: 'biz_1'},
        interruptWhen: inFlight,
      })
      expect(result.code, result.stdout).toBe(130)
      expect(plain(result.stdout)).toContain(`Error: Interrupted; ${file} left as it was`)
      expect(readFileSync(file, 'utf8')).toBe('the export of yesterday\n')
      expect(existsSync(partial)).toBe(false)
    } finally {
      await held.close()
    }
  })

  it('SIGTERM (a CI step cancelled) does the same: the .partial removed, said on stderr, exit 130', async () => {
    const held = await scriptedServer([() => {}])
    try {
      const file = join(tempDir(), 'x.csv')
      const partial = `${file}.partial`
      const run = startBk(['invoices', 'list', '--all', '--output', 'csv', '--file', file], {
        env: {BK_BASE_URL: held.url, BK_ACCESS_TOKEN: 'tok_test', BK_BUSINESS_ID: 'biz_1'},
      })
      await held.waitForRequests(1)
      await whenFile(partial, () => true, 'the .partial file')
      run.child.kill('SIGTERM')
      const result = await run.done
      expect(result.code, result.stderr).toBe(130)
      expect(result.stderr).toBe(`Error: Interrupted; ${file} not written\n`)
      expect(existsSync(partial)).toBe(false)
      expect(existsSync(file)).toBe(false)
    } finally {
      await held.close()
    }
  })
})
