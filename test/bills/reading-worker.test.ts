/**
 * A dry run of a file of 4 MiB or more is parsed on a worker thread (src/bills/csv-worker.ts),
 * stdin on the main thread: both must read a file alike, across the worker's many chunks (32 KiB
 * each), with quoted line breaks, rows a check refuses, a single-byte encoding and a CSV error at
 * the end.
 */
import {existsSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {parseJsonOutput, ROOT, runShellLine, tempDir, type BkResult} from '../helpers/bk.js'

const HEADER = 'number,vendor_id,description,issued_at,due_at,currency,line_description,line_amount,line_ledger_id'

/** The size from which a dry run's file is read by the worker (src/bills/reader.ts). */
const WORKER_MIN_BYTES = 4 * 1024 * 1024
/** Padding that makes a few thousand rows a file the worker reads. */
const PAD = ' '.padEnd(1_500, 'é.')

/** Rows of three-line bills, every so often one a check refuses or one quoted over lines. */
function rows(count: number): string[] {
  const out: string[] = []
  for (let i = 0; i < count; i++) {
    const bill = Math.floor(i / 3)
    const description = bill % 29 === 5 ? `"over\ntwo lines, ""quoted"" ${bill}"` : `Caf\u00e9 bill ${bill}${PAD}`
    const line = i % 89 === 7 ? `"with a CRLF\r\ninside"` : `Line ${i}`
    const amount = i % 61 === 11 ? 'twelve' : `${i % 500}.${String(i % 100).padStart(2, '0')}`
    const ledger = i % 211 === 3 ? 'ldg demo' : 'ldg_demo_expenses'
    out.push(`R-${bill},ven_demo_office,${description},2026-01-05,2026-02-05,EUR,${line},${amount},${ledger}`)
  }
  return out
}

/** A dry run's report: the file had invalid bills, so it is the error's details. */
interface DryRun {
  file: string
  rows: number
  bills: number
  valid: number
  invalid: number
  error_count: number
  errors: Array<{line: number; column?: string; value?: string; message: string}>
}

/** The dry run of `name` in `dir`, read from the file and from stdin. */
async function bothWays(dir: string, name: string, flags: string): Promise<[BkResult, BkResult]> {
  const command = `bk bills import %s --dry-run --json --max-errors 1000 ${flags}`
  return [
    await runShellLine(command.replace('%s', name), {cwd: dir}),
    await runShellLine(`${command.replace('%s', '-')} < ${name}`, {cwd: dir}),
  ]
}

const reportOf = (result: BkResult) => parseJsonOutput<{details: DryRun}>(result).details
const sameReading = (r: DryRun) => ({
  ...r,
  file: undefined,
  duration_ms: undefined,
  errors: r.errors.map((e) => ({...e, text: undefined})),
})

describe('the reading worker', () => {
  it('is built beside the bundle, where bk finds it', () => {
    expect(existsSync(join(ROOT, 'dist', 'csv-worker.cjs'))).toBe(true)
  })

  it('reads a file of many chunks as stdin is read: the same bills, errors and lines', async () => {
    const dir = tempDir('bk-worker-')
    const lines = rows(4_000)
    writeFileSync(join(dir, 'bills.csv'), [HEADER, ...lines].join('\n') + '\n')
    expect(statSync(join(dir, 'bills.csv')).size).toBeGreaterThanOrEqual(WORKER_MIN_BYTES)
    const [file, stdin] = await bothWays(dir, 'bills.csv', '')
    expect(file.code, file.stderr).toBe(2)
    const read = reportOf(file)
    expect(read.file).toBe('bills.csv')
    expect(read.rows).toBe(4_000)
    // Line numbers count the quoted line breaks: the last error is past every one of them.
    expect(read.error_count).toBe(read.errors.length)
    expect(read.errors.length).toBeGreaterThan(80)
    expect(read.errors.at(-1)!.line).toBeGreaterThan(4_000 + 40)
    expect(sameReading(read)).toEqual(sameReading(reportOf(stdin)))
  })

  it('reads Windows-1252 and names the line of an unterminated quote after many chunks', async () => {
    const dir = tempDir('bk-worker-')
    const lines = rows(3_000)
    lines.push('R-9999,ven_demo_office,"never closed,2026-01-05,2026-02-05,EUR,l,1.00,ldg_demo_expenses', ...rows(5))
    writeFileSync(join(dir, 'bills.csv'), Buffer.from([HEADER, ...lines].join('\r\n') + '\r\n', 'latin1'))
    expect(statSync(join(dir, 'bills.csv')).size).toBeGreaterThanOrEqual(WORKER_MIN_BYTES)
    const [file, stdin] = await bothWays(dir, 'bills.csv', '--encoding windows-1252')
    expect(file.code, file.stderr).toBe(2)
    const read = reportOf(file)
    const last = read.errors.at(-1)!
    expect(last.message).toMatch(/^unterminated quoted field: the quote opened on line \d+ is never closed/)
    // Every row before it was read and checked: the quoted line breaks put it 3,002 lines and more in.
    expect(last.line).toBeGreaterThan(3_002)
    expect(read.errors.filter((e) => e.column === 'line_amount' && e.value === 'twelve').length).toBeGreaterThan(40)
    expect(read.errors.some((e) => e.value?.includes('\u00e9'))).toBe(false)
    expect(sameReading(read)).toEqual(sameReading(reportOf(stdin)))
  })
})
