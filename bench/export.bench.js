// Export: `bk invoices list --all --output csv --file …` over 100,000 seeded invoices, as rows/s
// against a bare undici loop fetching the same pages (page_size 100, JSON parsed, nothing else),
// measured alternately in one run against the same emulator (its own process, from the bundle). The
// loop runs in a fresh process each time, as bk does, so both start with a cold JIT.
// bk's rows/s is given twice: streaming (from its first rows on disk to its exit, so without its
// fixed start-up: loading modules and opening the session) and end to end. Also bk's peak RSS
// (VmHWM polled from /proc) for the full export and for a 5,000-row one: flat memory means the
// two are close. Target: streaming rows/s >= 0.9x the bare loop.
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {performance} from 'node:perf_hooks'
import {clearInterval, setInterval} from 'node:timers'
import {fileURLToPath, URLSearchParams} from 'node:url'

import {request} from 'undici'

import {bareInvoiceLoop} from './lib/bare-invoice-loop.js'
import {startEmulatorProcess} from './lib/emulator.js'
import {watchPeakRss} from './lib/peak-rss.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const bin = join(root, 'bin', 'run.js')
const scale = Number(process.env.BENCH_EXPORT_ROWS ?? 100_000)
const rounds = Number(process.env.BENCH_ROUNDS_EXPORT ?? 5)
const dir = mkdtempSync(join(tmpdir(), 'bk-bench-export-'))

async function token(emu) {
  const res = await request(`${emu.baseUrl}/v0/auth/token`, {
    method: 'POST',
    headers: {'content-type': 'application/x-www-form-urlencoded'},
    body: new URLSearchParams({client_id: emu.clientId, client_secret: emu.clientSecret}).toString(),
  })
  return (await res.body.json()).access_token
}

/** The baseline, in a fresh process each time as bk runs: fetch every page and parse it, nothing more. */
async function bareLoop(emu, accessToken) {
  const child = spawn(
    process.execPath,
    [join(root, 'bench', 'lib', 'bare-invoice-loop.js'), emu.baseUrl, emu.business, accessToken],
    {stdio: ['ignore', 'pipe', 'inherit']},
  )
  let out = ''
  child.stdout.on('data', (d) => (out += d))
  const code = await new Promise((resolve) => child.once('exit', resolve))
  if (code !== 0) throw new Error(`the bare loop exited with ${code}`)
  return JSON.parse(out)
}

/** bk as a user runs it, with its peak RSS polled from /proc while it runs. */
async function bkExport(emu, accessToken, select = ['--all']) {
  const file = join(dir, 'invoices.csv')
  rmSync(file, {force: true})
  const started = performance.now()
  const child = spawn(process.execPath, [bin, 'invoices', 'list', ...select, '--output', 'csv', '--file', file], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      ...process.env,
      BK_CONFIG_DIR: dir,
      BK_BASE_URL: emu.baseUrl,
      BK_ACCESS_TOKEN: accessToken,
      BK_BUSINESS_ID: emu.business,
      CI: '1',
    },
  })
  let stderr = ''
  child.stderr.on('data', (d) => (stderr += d))
  const rss = watchPeakRss(child.pid)
  // When the first rows reach the file: what comes before is bk's fixed start-up cost.
  let firstAt
  let firstRows = 0
  const poll = setInterval(() => {
    try {
      // bk writes FILE.partial and renames it to FILE once complete.
      const partial = `${file}.partial`
      if (firstAt === undefined && statSync(partial, {throwIfNoEntry: false})?.size) {
        firstAt = performance.now()
        firstRows = countRows(readFileSync(partial, 'utf8'))
      }
    } catch {
      // The process has just exited.
    }
  }, 5)
  const code = await new Promise((resolve) => child.once('exit', resolve))
  clearInterval(poll)
  const peakMb = rss.stop()
  const ms = performance.now() - started
  if (code !== 0) throw new Error(`bk exited with ${code}: ${stderr}`)
  const rows = countRows(readFileSync(file, 'utf8'))
  const bytes = statSync(file).size
  const end = started + ms
  const streamMs = firstAt === undefined ? ms : end - firstAt
  return {rows, ms, streamRows: rows - firstRows, streamMs, peakMb, bytes}
}

function countRows(text) {
  let rows = -1 // the header
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) rows++
  return Math.max(0, rows)
}

const emulator = await startEmulatorProcess(['--scale', String(scale)], {BK_CONFIG_DIR: dir})
const emu = {...emulator, business: emulator.businessIds[0]}
try {
  const accessToken = await token(emu)
  await bareLoop(emu, accessToken) // warm the emulator (JIT) before measuring
  const bare = []
  const bk = []
  for (let i = 0; i < rounds; i++) {
    bare.push(await bareLoop(emu, accessToken))
    bk.push(await bkExport(emu, accessToken))
  }
  const small = await bkExport(emu, accessToken, ['--limit', '5000', '--page-size', '100'])
  const warm = []
  // For reference only: the same loop in this process, its JIT warmed by the runs before it.
  for (let i = 0; i < 3; i++) warm.push(await bareInvoiceLoop(emu.baseUrl, emu.business, accessToken))
  const best = (xs) => xs.reduce((a, b) => (a.ms <= b.ms ? a : b))
  const b = best(bare)
  const k = best(bk)
  if (k.rows !== scale || b.rows !== scale)
    throw new Error(`row counts differ: bk ${k.rows}, bare ${b.rows}, seeded ${scale}`)
  const bareRate = b.rows / (b.ms / 1000)
  const bkRate = k.rows / (k.ms / 1000)
  const streamRate = k.streamRows / (k.streamMs / 1000)
  const ratio = bkRate / bareRate
  const streamRatio = streamRate / bareRate
  const verdict = (r) => (r >= 0.9 ? '  ok (target >= 0.9x)' : '  UNDER TARGET (0.9x)')
  console.log(
    `export of ${scale.toLocaleString('en')} invoices (${(k.bytes / 1e6).toFixed(1)} MB of CSV), best of ${rounds} alternating runs`,
  )
  console.log(
    `  bare undici loop (own process)   ${b.ms.toFixed(0).padStart(7)} ms  ${bareRate.toFixed(0).padStart(7)} rows/s  1.00x`,
  )
  console.log(
    `  bk, streaming (after start-up)   ${k.streamMs.toFixed(0).padStart(7)} ms  ${streamRate.toFixed(0).padStart(7)} rows/s  ${streamRatio.toFixed(2)}x${verdict(streamRatio)}`,
  )
  console.log(
    `  bk, end to end (with start-up)   ${k.ms.toFixed(0).padStart(7)} ms  ${bkRate.toFixed(0).padStart(7)} rows/s  ${ratio.toFixed(2)}x`,
  )
  const w = best(warm)
  console.log(
    `  (for reference: the bare loop with a warm JIT, in the bench's own process: ${w.ms.toFixed(0)} ms, bk streaming at ${(streamRate / (w.rows / (w.ms / 1000))).toFixed(2)}x of it)`,
  )
  console.log(
    `  bk peak RSS: ${k.peakMb.toFixed(0)} MB for ${k.rows.toLocaleString('en')} rows, ${small.peakMb.toFixed(0)} MB for ${small.rows.toLocaleString('en')} rows (${(k.peakMb / small.peakMb).toFixed(2)}x: flat memory is ~1x)`,
  )
} finally {
  await emu.stop()
  rmSync(dir, {recursive: true, force: true})
}
