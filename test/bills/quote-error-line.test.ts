/**
 * A stray quote after a quoted field stops reading: the message names the physical line its
 * record starts on, in bk's words, whichever thread parsed the file (a dry run's file of 4 MiB or
 * more is parsed by the reading worker in 32 KiB chunks, stdin, a smaller file and an import's
 * file on the main thread), and the dry run and the import count the same bills read before it.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runShellLine, tempDir, type BkResult} from '../helpers/bk.js'
import {billRow, billsCsv} from '../helpers/bill-rows.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

/**
 * `before` valid bills (the seventh, when there is one, with a description over two lines), then
 * a row whose description is `"ab"c`, then 300 more, each of `pad` more characters (never read:
 * they make the file one the worker reads): the file and the physical line of that row.
 */
function withStrayQuote(prefix: string, before: number, pad: number): {csv: string; line: number} {
  const rows = Array.from({length: before}, (_, i) =>
    billRow(`${prefix}-${i + 1}`, i === 6 ? {description: '"over\ntwo lines"'} : {}),
  )
  const after = Array.from({length: 300}, (_, i) =>
    billRow(`${prefix}-A${i + 1}`, pad ? {description: 'p'.repeat(pad)} : {}),
  )
  const csv = billsCsv([...rows, billRow(`${prefix}-X`, {description: '"ab"c'}), ...after])
  return {csv, line: 2 + before + (before > 6 ? 1 : 0)}
}

type Way = 'dry run of the file' | 'dry run of stdin' | 'import of the file' | 'import of stdin'

/** bk bills import of `csv` (a file, bills.csv, or stdin), a dry run or sent to the emulator. */
async function importThe(csv: string, way: Way): Promise<BkResult> {
  const cwd = tempDir('bk-quote-')
  writeFileSync(join(cwd, 'bills.csv'), csv)
  const file = way.endsWith('stdin') ? '- < bills.csv' : 'bills.csv'
  const dryRun = way.startsWith('dry run') ? ' --dry-run' : ''
  return runShellLine(`bk bills import ${file}${dryRun}`, {cwd, env: envFor(emulator)})
}

const WAYS: Way[] = ['dry run of the file', 'dry run of stdin', 'import of the file', 'import of stdin']

describe.each([
  {size: 'small', prefix: 'QS', before: 1, pad: 0},
  // About 4.5 MB, which a dry run's worker reads in chunks of 32 KiB: the bad row is about 270 KB in.
  {size: 'spanning many chunks', prefix: 'QL', before: 2_500, pad: 14_000},
])('a stray quote after a quoted field, in a $size file', ({prefix, before, pad}) => {
  it.each(WAYS)('%s: names the line its record starts on, in bk words', async (way) => {
    const {csv, line} = withStrayQuote(`${prefix}${WAYS.indexOf(way)}`, before, pad)
    const result = await importThe(csv, way)
    const label = way.endsWith('stdin') ? 'stdin' : 'bills.csv'
    expect(result.code, result.stderr).toBe(way.startsWith('import') && before > 100 ? 6 : 2)
    expect(result.stderr).toContain(
      `${label}:${line}: column description: text follows the closing quote of a quoted field, in the record starting on line ${line} (RFC 4180): quote the whole field and double each quote inside it, such as "12"" monitor"`,
    )
    expect(result.stderr).not.toMatch(/Invalid Closing Quote|trimable|if activated|instead of delimiter/)
    // The bills before the line were read and counted alike, the last one included.
    const counted = (noun: string) => `${before.toLocaleString('en-US')} ${noun}${before === 1 ? '' : 's'}`
    if (way.startsWith('dry run'))
      expect(result.stderr).toContain(
        `1 problem in ${label}; reading stopped at line ${line}, after ${counted('bill')} (0 invalid); nothing was sent`,
      )
    // The rest of the file, past the line, was not read, and the summary says so.
    else expect(result.stdout).toContain(`; ${counted('bill')} in ${counted('row')} read, the rest of ${label} not, `)
  })
})
