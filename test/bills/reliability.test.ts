/**
 * Nothing lost, nothing twice: an import through an emulator that faults one request in five
 * (503, 429, a connection dropped before or after the bills are committed), and a --resume after
 * kill -9 and after Ctrl-C.
 */
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {parse} from 'csv-parse/sync'
import {afterEach, describe, expect, it} from 'vitest'

import {parseJsonOutput, runBk, spawnBk, startBk, tempDir} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'
import {recordingProxy, type RecordedRequest} from '../helpers/recording-proxy.js'
import {whenFile, whenOutput} from '../helpers/wait.js'
import type {ImportSummary as Summary} from '../../src/bills/import.js'
import type {SnakeCaseKeys} from '../../src/shared/json-keys.js'

/** The summary as --json prints it. */
type ImportSummary = SnakeCaseKeys<Summary>

const BIZ = 'biz_demo_acme'
let emulator: RunningEmulator | undefined
afterEach(async () => {
  await emulator?.close()
  emulator = undefined
})

/** n bills, one in three with two lines; every 997th has an unknown vendor, every 1999th a bad amount. */
function writeBills(file: string, n: number): {badLocal: Set<string>; badVendor: Set<string>} {
  const rows = [
    'number,vendor_id,description,issued_at,currency,line_description,line_amount,line_ledger_id,tag:department',
  ]
  const badLocal = new Set<string>()
  const badVendor = new Set<string>()
  for (let i = 1; i <= n; i++) {
    const number = `F-${i}`
    const vendor = i % 997 === 0 ? 'ven_missing' : 'ven_demo_office'
    const amount = i % 1999 === 0 ? '1e3' : `${i % 500}.${String(i % 100).padStart(2, '0')}`
    if (amount === '1e3') badLocal.add(number)
    else if (vendor === 'ven_missing') badVendor.add(number)
    rows.push(`${number},${vendor},Bill ${i},2026-01-05,EUR,line a,${amount},ldg_demo_expenses,engineering`)
    if (i % 3 === 0) rows.push(`${number},${vendor},Bill ${i},2026-01-05,EUR,line b,1.10,ldg_demo_software,engineering`)
  }
  writeFileSync(file, rows.join('\n') + '\n')
  return {badLocal, badVendor}
}

const numbersIn = (file: string): Map<string, string> => {
  if (!existsSync(file)) return new Map()
  const records = parse(readFileSync(file, 'utf8'), {columns: true}) as Array<{number: string; error: string}>
  return new Map(records.map((r) => [r.number, r.error]))
}

function countByNumber(em: RunningEmulator): Map<string, number> {
  const counts = new Map<string, number>()
  for (const bill of em.state.bills.all(BIZ))
    counts.set(bill.number as string, (counts.get(bill.number as string) ?? 0) + 1)
  return counts
}

/** Every bill of the file is created exactly once, or rejected with a reason, or unconfirmed (at most once in the service). */
function expectEachBillAccountedFor(
  em: RunningEmulator,
  dir: string,
  n: number,
  summary: ImportSummary,
): {created: number; rejected: number; unconfirmed: number} {
  const counts = countByNumber(em)
  const rejects = numbersIn(join(dir, 'bills.rejects.csv'))
  const unconfirmed = numbersIn(join(dir, 'bills.unconfirmed.csv'))
  let created = 0
  for (let i = 1; i <= n; i++) {
    const number = `F-${i}`
    const times = counts.get(number) ?? 0
    expect(times, `${number} created ${times} times`).toBeLessThanOrEqual(1)
    if (unconfirmed.has(number)) {
      expect(rejects.has(number)).toBe(false)
      continue
    }
    if (rejects.has(number)) {
      expect(times, `${number} is rejected but exists`).toBe(0)
      expect(rejects.get(number)).toMatch(/\S/)
      continue
    }
    expect(times, `${number} is neither created, rejected nor unconfirmed`).toBe(1)
    created++
  }
  expect(summary.failed).toBe(rejects.size)
  expect(summary.unconfirmed).toBe(unconfirmed.size)
  return {created, rejected: rejects.size, unconfirmed: unconfirmed.size}
}

describe('bk bills import under faults', () => {
  // 20,000 bills (26,666 rows) take about 5 s here on two shared cores.
  it('20,000 bills with fault rate 0.3, commit-then-5xx included: each created exactly once, rejected with its reason, or unconfirmed', async () => {
    emulator = await start({faultRate: 0.3, retryAfterSeconds: 0, faultSeed: 42})
    const dir = tempDir('bk-bills-faults-')
    const n = 20_000
    const {badLocal, badVendor} = writeBills(join(dir, 'bills.csv'), n)
    const result = await runBk(['bills', 'import', 'bills.csv', '--json'], {
      env: envFor(emulator),
      cwd: dir,
      timeoutMs: 180_000,
    })
    expect(result.code).toBe(6)
    const summary = parseJsonOutput<ImportSummary>(result)
    const faults = emulator.faults.counts
    expect(faults['reset-after']).toBeGreaterThan(0)
    expect(faults['reset-before']).toBeGreaterThan(0)
    expect(faults['503'] + faults['429']).toBeGreaterThan(0)
    expect(faults['commit-5xx']).toBeGreaterThan(0)
    const seen = expectEachBillAccountedFor(emulator, dir, n, summary)
    // The emulator's inspection route tells the same: every number at most once.
    const inspected = (await (await fetch(`${emulator.baseUrl}/_emulator/businesses/${BIZ}/bills`)).json()) as {
      data: Array<{number: string}>
      count: number
    }
    expect(inspected.count).toBe(emulator.state.bills.count(BIZ))
    expect(new Set(inspected.data.map((b) => b.number)).size).toBe(inspected.count)
    expect(summary.created).toBe(seen.created)
    expect(summary.created + summary.failed + summary.unconfirmed).toBe(n)
    expect(summary.unconfirmed).toBeGreaterThan(0)
    const rejects = numbersIn(join(dir, 'bills.rejects.csv'))
    for (const number of badLocal) expect(rejects.get(number)).toContain('is not a decimal amount')
    const unconfirmed = numbersIn(join(dir, 'bills.unconfirmed.csv'))
    for (const number of badVendor)
      if (!unconfirmed.has(number)) expect(rejects.get(number)).toContain('vendor ven_missing does not exist')
    for (const reason of unconfirmed.values()) expect(reason).toMatch(/^outcome unknown: /)
    // A re-run without --resume is refused; with --resume nothing is sent again.
    const again = await runBk(['bills', 'import', 'bills.csv'], {env: envFor(emulator), cwd: dir})
    expect(again.code).toBe(2)
    const before = emulator.state.bills.count(BIZ)
    const resumed = await runBk(['bills', 'import', 'bills.csv', '--resume', '--json'], {
      env: envFor(emulator),
      cwd: dir,
      timeoutMs: 180_000,
    })
    expect(parseJsonOutput<ImportSummary>(resumed)).toMatchObject({
      created: 0,
      skipped: summary.created,
      failed: summary.failed,
      unconfirmed: summary.unconfirmed,
    })
    expect(emulator.state.bills.count(BIZ)).toBe(before)
  }, 240_000)
})

/** Starts bk, waits until its journal records `results` batch results, then sends `signal`. */
function runUntilJournal(
  args: string[],
  env: Record<string, string | undefined>,
  cwd: string,
  journal: string,
  results: number,
  signal: NodeJS.Signals,
): Promise<{code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; killedAt: number}> {
  return new Promise((resolve, reject) => {
    const child = spawnBk(args, {cwd, env})
    child.stdin.end()
    let stdout = ''
    let stderr = ''
    let killedAt = -1
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    // Kill while a batch is in flight (sent, no result yet), the case that must not be re-sent:
    // checked on every change of the journal, not on a clock.
    let done = 0
    const inFlightOrDone = (text: string) => {
      const lines = text.split('\n')
      done = lines.filter((l) => l.startsWith('{"t":"result"')).length
      const sent = lines.filter((l) => l.startsWith('{"t":"sending"')).length
      return done >= results && (signal !== 'SIGKILL' || sent > done)
    }
    const exited = new AbortController()
    whenFile(journal, inFlightOrDone, 'a batch in flight after enough results', exited.signal).then(
      () => {
        killedAt = done
        child.kill(signal)
      },
      () => {}, // the import ended first: the test's expectations say so
    )
    // A guard against a hung import, not a bound on its speed.
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000)
    child.on('error', reject)
    child.on('close', (code, sig) => {
      exited.abort()
      clearTimeout(timer)
      resolve({code, signal: sig, stdout, stderr, killedAt})
    })
  })
}

describe('bk bills import --resume', () => {
  it('after kill -9 mid-import creates no duplicate; bills in flight at the kill are unconfirmed', async () => {
    // Slow enough that batches are in flight long enough to be caught there on a loaded machine.
    emulator = await start({latencyMs: 200})
    const dir = tempDir('bk-bills-kill-')
    const n = 3000
    writeBills(join(dir, 'bills.csv'), n)
    const killed = await runUntilJournal(
      ['bills', 'import', 'bills.csv', '--batch-size', '50', '--concurrency', '3'],
      envFor(emulator),
      dir,
      join(dir, 'bills.csv.bk-journal'),
      5,
      'SIGKILL',
    )
    expect(killed.signal).toBe('SIGKILL')
    // What the journal says at the kill: batches sent with a result, and batches in flight (no result).
    const records = readFileSync(join(dir, 'bills.csv.bk-journal'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as {t: string; batch: number; keys?: string[]})
    // A bill's key is its vendor and number joined by U+001F.
    const numberOf = (key: string) => key.split('\u001f')[1]!
    const inFlight = new Map(
      records.filter((r) => r.t === 'sending').map((r) => [r.batch, (r.keys ?? []).map(numberOf)]),
    )
    for (const r of records) if (r.t === 'result') inFlight.delete(r.batch)
    const inFlightNumbers = [...inFlight.values()].flat().sort()
    const createdBefore = emulator.state.bills.count(BIZ)
    expect(createdBefore).toBeGreaterThan(0)
    expect(createdBefore).toBeLessThan(n - 10)
    const refused = await runBk(['bills', 'import', 'bills.csv'], {env: envFor(emulator), cwd: dir})
    expect(refused.code).toBe(2)
    const resumed = await runBk(['bills', 'import', 'bills.csv', '--resume', '--json'], {
      env: envFor(emulator),
      cwd: dir,
      timeoutMs: 180_000,
    })
    const summary = parseJsonOutput<ImportSummary>(resumed)
    expect(summary.skipped).toBeGreaterThanOrEqual(5 * 50 - 10)
    const counts = countByNumber(emulator)
    for (const [number, times] of counts) expect(times, `${number} created ${times} times`).toBe(1)
    expectEachBillAccountedFor(emulator, dir, n, summary)
    // Bills whose batch was in flight at the kill are never re-sent: exactly they are unconfirmed.
    const unconfirmed = numbersIn(join(dir, 'bills.unconfirmed.csv'))
    expect([...unconfirmed.keys()].sort()).toEqual(inFlightNumbers)
    for (const reason of unconfirmed.values()) expect(reason).toContain("while this bill's batch was in flight")
    expect(summary.created + summary.skipped + summary.failed + summary.unconfirmed).toBe(n)
  }, 240_000)
  it('Ctrl-C lets the batches in flight finish, exits 130, and --resume completes the import', async () => {
    emulator = await start({latencyMs: 200})
    const dir = tempDir('bk-bills-int-')
    const n = 3000
    writeBills(join(dir, 'bills.csv'), n)
    const stopped = await runUntilJournal(
      ['bills', 'import', 'bills.csv', '--batch-size', '50', '--concurrency', '3', '--json'],
      envFor(emulator),
      dir,
      join(dir, 'bills.csv.bk-journal'),
      3,
      'SIGINT',
    )
    expect(stopped.code).toBe(130)
    const first = parseJsonOutput<ImportSummary>(stopped)
    expect(first.interrupted).toBe(true)
    // Stopped early: the summary says the file was not read to its end (the rest is --resume's).
    expect(first).toMatchObject({unconfirmed: 0, read_to_end: false})
    expect(first.bills).toBeLessThan(n)
    expect(emulator.state.bills.count(BIZ)).toBe(first.created)
    const resumed = await runBk(['bills', 'import', 'bills.csv', '--resume', '--json'], {
      env: envFor(emulator),
      cwd: dir,
      timeoutMs: 180_000,
    })
    const summary = parseJsonOutput<ImportSummary>(resumed)
    expect(summary.skipped).toBe(first.created)
    expect(summary).toMatchObject({unconfirmed: 0, read_to_end: true})
    expect(resumed.code).toBe(6)
    const counts = countByNumber(emulator)
    for (const [number, times] of counts) expect(times, `${number} created ${times} times`).toBe(1)
    expectEachBillAccountedFor(emulator, dir, n, summary)
  }, 240_000)
  it('a second Ctrl-C abandons the batches in flight: unconfirmed, never re-sent by --resume', async () => {
    emulator = await start()
    // The batches' requests wait in the proxy: in flight for as long as the test needs.
    const isPost = (r: RecordedRequest) => r.method === 'POST' && r.path.endsWith('/bills')
    const proxy = await recordingProxy(emulator.baseUrl, isPost)
    const dir = tempDir('bk-bills-int2-')
    const n = 600
    writeBills(join(dir, 'bills.csv'), n)
    const {child, stderr, done} = startBk(
      ['bills', 'import', 'bills.csv', '--batch-size', '50', '--concurrency', '3', '--json'],
      {cwd: dir, env: {...envFor(emulator), BK_BASE_URL: proxy.baseUrl}},
    )
    await proxy.whenRequest(() => proxy.requests.filter(isPost).length >= 3)
    child.kill('SIGINT')
    // The second Ctrl-C counts as such once bk has taken the first.
    await whenOutput(child.stderr, () => stderr().includes('Stopping:'), 'bk took the first Ctrl-C')
    child.kill('SIGINT')
    const stopped = await done
    expect(stopped.code, stopped.stderr).toBe(130)
    const first = JSON.parse(stopped.stdout) as ImportSummary
    expect(first).toMatchObject({interrupted: true, created: 0, unconfirmed: 150})
    const unconfirmed = numbersIn(join(dir, 'bills.unconfirmed.csv'))
    expect(unconfirmed.size).toBe(150)
    for (const reason of unconfirmed.values()) expect(reason).toContain('aborted (second Ctrl-C)')
    // Run again without --resume: refused, and the refusal counts the unconfirmed bills too.
    const again = await runBk(['bills', 'import', 'bills.csv'], {
      env: {...envFor(emulator), BK_BASE_URL: proxy.baseUrl},
      cwd: dir,
    })
    expect(again.code, again.stderr).toBe(2)
    expect(again.stderr).toContain('records 0 bills created and 150 unconfirmed. Refusing to import it again')
    // The service may still act on an abandoned request (the emulator does, once the proxy lets
    // them through): that is why they are unconfirmed. Whatever it did, --resume must not send them again.
    proxy.release()
    const resumed = await runBk(['bills', 'import', 'bills.csv', '--resume', '--json', '--concurrency', '4'], {
      env: {...envFor(emulator), BK_BASE_URL: proxy.baseUrl},
      cwd: dir,
      timeoutMs: 180_000,
    })
    const summary = parseJsonOutput<ImportSummary>(resumed)
    expect(summary).toMatchObject({unconfirmed: 150, skipped: 0})
    const counts = countByNumber(emulator)
    for (const [number, times] of counts) expect(times, `${number} created ${times} times`).toBe(1)
    for (const number of unconfirmed.keys()) expect(counts.get(number) ?? 0).toBeLessThanOrEqual(1)
    expect(summary.created + summary.failed + summary.unconfirmed).toBe(n)
    await proxy.close()
  }, 240_000)
})
