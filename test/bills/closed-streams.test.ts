/**
 * An import whose stderr or stdout is closed while it runs (`2>&1 >/dev/null | head -1` in a CI
 * log pipeline): it goes on to its end, every bill sent once and recorded, the journal and its
 * lock closed, and its exit code is its outcome's. The batches are held by a proxy until the
 * stream is closed, so the close always falls while bills are in flight and more are to come.
 * A results file that is a pipe whose reader stops is no stream to drop: the import stops, naming it.
 */
import {execFileSync} from 'node:child_process'
import {createReadStream, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {DEMO_IDS} from '../../src/emulator/seed.js'
import {runBk, spawnBk, tempDir} from '../helpers/bk.js'
import {billRow, billsCsv} from '../helpers/bill-rows.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'
import {recordingProxy, type RecordedRequest} from '../helpers/recording-proxy.js'
import {whenOutput} from '../helpers/wait.js'

const BILLS = 300
/** Rows with a ledger that is no ledger id: set aside while the file is read, each a line on stderr. */
const invalid = (i: number) => i === 3 || i % 50 === 0

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

/** The bills file for `prefix`, and the numbers of its valid bills. */
function billsFile(dir: string, prefix: string): string[] {
  const rows = Array.from({length: BILLS}, (_, n) => {
    const row = billRow(`${prefix}-${n + 1}`)
    return invalid(n + 1) ? row.replace(DEMO_IDS.ledgers.expenses, 'gl_1') : row
  })
  writeFileSync(join(dir, 'bills.csv'), billsCsv(rows))
  return rows.flatMap((_, n) => (invalid(n + 1) ? [] : [`${prefix}-${n + 1}`]))
}

/** Numbers of the bills the emulator holds that start with `prefix`, each as often as created. */
function createdNumbers(prefix: string): string[] {
  return emulator.state.bills
    .all(DEMO_IDS.business)
    .map((b) => String(b.number))
    .filter((n) => n.startsWith(`${prefix}-`))
}

/** Every file named *.lock under `dir`. */
function locks(dir: string): string[] {
  return readdirSync(dir, {recursive: true, encoding: 'utf8'}).filter((f) => f.endsWith('.lock'))
}

interface ClosedRun {
  dir: string
  configDir: string
  /** The numbers of the file's valid bills. */
  valid: string[]
  code: number | null
  /** How many of the file's bills the emulator held when the stream was closed. */
  createdBeforeClose: number
  /** What bk wrote to the stream closed, before it was. */
  closed: string
  /** What bk wrote to the stream left open. */
  other: string
}

/**
 * Imports a file of bills PREFIX-1… in a folder of its own, through a proxy that holds every
 * batch: once bk has one in flight, `which` of its streams is closed, then the batches go.
 */
async function importClosing(prefix: string, which: 'stdout' | 'stderr', extra: string[] = []): Promise<ClosedRun> {
  const dir = tempDir('bk-closed-')
  const configDir = tempDir()
  const valid = billsFile(dir, prefix)
  const isPost = (r: RecordedRequest) => r.method === 'POST' && r.path.endsWith('/bills')
  const proxy = await recordingProxy(emulator.baseUrl, isPost)
  try {
    const child = spawnBk(['bills', 'import', 'bills.csv', '--batch-size', '10', ...extra], {
      env: {...envFor(emulator), BK_BASE_URL: proxy.baseUrl},
      cwd: dir,
      configDir,
    })
    child.stdin.end()
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve))
    const closing = child[which]
    const other = which === 'stderr' ? child.stdout : child.stderr
    let first = ''
    let text = ''
    closing.on('data', (d: Buffer) => (first += d.toString()))
    other.on('data', (d: Buffer) => (text += d.toString()))
    await proxy.whenRequest(isPost)
    // On stderr, read its first line (a row set aside) before closing it, as `head -1` does.
    if (which === 'stderr') await whenOutput(closing, () => first.includes('\n'), 'the first line on stderr')
    const createdBeforeClose = createdNumbers(prefix).length
    closing.destroy()
    proxy.release()
    return {dir, configDir, valid, code: await exited, createdBeforeClose, closed: first, other: text}
  } finally {
    await proxy.close()
  }
}

/** `bills import status --json` of the import in `dir`. */
async function journalStatus(dir: string): Promise<Record<string, unknown>> {
  const result = await runBk(['bills', 'import', 'status', 'bills.csv', '--json'], {cwd: dir})
  expect(result.code, result.stderr).toBe(0)
  return JSON.parse(result.stdout) as Record<string, unknown>
}

/** What a whole import of the file leaves: each valid bill once, the rest set aside, nothing open. */
async function expectWholeImport(prefix: string, {dir, configDir, valid}: ClosedRun): Promise<void> {
  const created = createdNumbers(prefix)
  expect(created).toHaveLength(valid.length)
  expect(new Set(created)).toEqual(new Set(valid))
  expect(locks(dir)).toEqual([])
  expect(locks(configDir)).toEqual([])
  const status = await journalStatus(dir)
  expect(status).toMatchObject({
    bills: valid.length,
    created: valid.length,
    failed: 0,
    unconfirmed: 0,
    not_sent: 0,
    running: null,
  })
  const rejects = readFileSync(join(dir, 'bills.rejects.csv'), 'utf8').trim().split('\n').slice(1)
  expect(rejects).toHaveLength(BILLS - valid.length)
}

describe('bills import with a stream closed while it runs', () => {
  it('stderr closed after its first line: every bill sent once, lock gone, exit 6', async () => {
    const run = await importClosing('CLOSED-ERR', 'stderr')
    expect(run.closed).toMatch(/^bills\.csv:4: column line_ledger_id: "gl_1"/)
    expect(run.createdBeforeClose).toBe(0)
    expect(run.code).toBe(6)
    expect(run.other).toMatch(
      new RegExp(`^Done: ${run.valid.length} created, ${BILLS - run.valid.length} failed, 0 unconfirmed`),
    )
    await expectWholeImport('CLOSED-ERR', run)
  })

  it('stdout closed before its --json summary: every bill sent once, lock gone, exit 6', async () => {
    // With --json nothing reaches stdout before the summary: it is closed while the batches wait.
    const run = await importClosing('CLOSED-OUT', 'stdout', ['--json'])
    expect(run.createdBeforeClose).toBe(0)
    expect(run.code).toBe(6)
    expect(run.other).not.toMatch(/EPIPE|Error|node:/)
    await expectWholeImport('CLOSED-OUT', run)
  })

  it('--results to a pipe whose reader stops: the file is named, the rest is left for --resume', async () => {
    // `--results /dev/stdout | head -1`: a named pipe stands for the shell's, read here, closed
    // after the first batch's results; the batches after it wait in the proxy until then.
    const dir = tempDir('bk-closed-')
    const configDir = tempDir()
    const valid = billsFile(dir, 'CLOSED-RESULTS')
    execFileSync('mkfifo', [join(dir, 'results.pipe')])
    let posts = 0
    const isPost = (r: RecordedRequest) => r.method === 'POST' && r.path.endsWith('/bills')
    const proxy = await recordingProxy(emulator.baseUrl, (r) => isPost(r) && ++posts > 1)
    try {
      const reader = createReadStream(join(dir, 'results.pipe'))
      const child = spawnBk(['bills', 'import', 'bills.csv', '--batch-size', '10', '--results', 'results.pipe'], {
        env: {...envFor(emulator), BK_BASE_URL: proxy.baseUrl},
        cwd: dir,
        configDir,
      })
      child.stdin.end()
      let stderr = ''
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
      const exited = new Promise<number | null>((resolve) => child.once('close', resolve))
      let results = ''
      reader.on('data', (d: string | Buffer) => (results += d.toString()))
      await whenOutput(reader, () => results.includes('CLOSED-RESULTS-'), "the first batch's results")
      reader.destroy()
      proxy.release()
      expect(await exited).toBe(7)
      expect(stderr).toContain('Import failed: could not write results.pipe: the program reading it stopped (EPIPE)')
      expect(stderr).toContain('--resume')
      expect(locks(dir)).toEqual([])
      // Nothing twice: a --resume (results to a file now) sends only the bills not created.
      const resumed = await runBk(['bills', 'import', 'bills.csv', '--resume'], {
        env: {...envFor(emulator), BK_BASE_URL: proxy.baseUrl},
        cwd: dir,
        configDir,
      })
      expect(resumed.code, resumed.stderr).toBe(6)
    } finally {
      await proxy.close()
    }
    await expectWholeImport('CLOSED-RESULTS', {
      dir,
      configDir,
      valid,
      code: 6,
      createdBeforeClose: 0,
      closed: '',
      other: '',
    })
  })
})
