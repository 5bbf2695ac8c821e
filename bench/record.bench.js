// The record of created bills (issue 26, "the record scales"): a 10-bill import into a business
// whose record holds 3,000,000 bills, against the same import with no record, alternating rounds
// on one emulator. Targets: at most 1.2x the time and at most 10 MB more peak RSS. Then (issue 31)
// a 40,000-bill import, whose index is brought up to date several times over the run, into that
// record and into an empty one, alternating: at least 0.85x the bills/s, at most 10 MB more peak
// RSS. The record is written directly in its format (src/bills/created-record.ts), which is much
// faster than importing the bills. The first import over it is timed apart: it may build the
// record's index. BENCH_RECORD_BILLS lowers the size; BENCH_RECORD_ROUNDS sets the rounds of the
// 10-bill import (default 5), BENCH_RECORD_IMPORT_BILLS the larger import's size (0: not run).
import {createHash} from 'node:crypto'
import {once} from 'node:events'
import {createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {join} from 'node:path'
import {performance} from 'node:perf_hooks'

import {startEmulatorProcess} from './lib/emulator.js'
import {runBkIn} from './lib/run-bk.js'

const dir = mkdtempSync(join(tmpdir(), 'bk-bench-record-'))
const RECORDED = Number(process.env.BENCH_RECORD_BILLS ?? 3_000_000)
const ROUNDS = Number(process.env.BENCH_RECORD_ROUNDS ?? 5)
const IMPORT_BILLS = Number(process.env.BENCH_RECORD_IMPORT_BILLS ?? 40_000)
const IMPORT_ROUNDS = 3
const BUSINESS = 'biz_demo_acme'
const VENDOR = 'ven_demo_office'
const HEADER = 'number,vendor_id,description,issued_at,due_at,currency,line_description,line_amount,line_ledger_id\n'

const run = (args, env = {}) => runBkIn(dir, args, env)

/** The record's file name, as src/bills/created-record.ts names it. */
function recordFile(folder, baseUrl) {
  const url = new URL(baseUrl)
  const normal = `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`
  const hash = createHash('sha256').update(normal).digest('hex').slice(0, 12)
  return {file: join(folder, `${hash}-${BUSINESS}.jsonl`), normal}
}

/** Writes a record of `bills` created bills (keys vendor and number, as the default map's). */
async function writeRecord(folder, baseUrl, bills) {
  mkdirSync(folder, {recursive: true, mode: 0o700})
  const {file, normal} = recordFile(folder, baseUrl)
  const out = createWriteStream(file, {mode: 0o600})
  out.write(
    JSON.stringify({
      t: 'header',
      format: 'bk-created-bills',
      version: 2,
      baseUrl: normal,
      business: BUSINESS,
      at: '2026-01-01T00:00:00.000Z',
    }) + '\n',
  )
  let buf = ''
  for (let i = 0; i < bills; i++) {
    buf += `{"key":"${VENDOR}\\u001fOLD-${i}","id":"bil_old${i.toString(36)}","at":"2026-01-02T03:04:05.678Z","input":"old-${Math.floor(i / 10_000)}.csv"}\n`
    if (buf.length > 1 << 16) {
      if (!out.write(buf)) await once(out, 'drain')
      buf = ''
    }
  }
  out.end(buf)
  await once(out, 'finish')
  return file
}

/** A file of `count` bills no record holds (numbers unique to `tag`). */
function newBills(tag, count) {
  const file = join(dir, `${tag}.csv`)
  let text = HEADER
  for (let i = 0; i < count; i++)
    text += `${tag}-${i},${VENDOR},Office supplies,2026-01-05T00:00:00Z,2026-02-05T00:00:00Z,EUR,Paper,12.50,ldg_demo_expenses\n`
  writeFileSync(file, text)
  return file
}

/** Imports `count` new bills with the record in `folder`: the run, and its summary. */
async function importNew(env, folder, tag, count = 10) {
  const r = await run(
    [
      'bills',
      'import',
      newBills(tag, count),
      '--json',
      '--journal',
      join(dir, `${tag}.bk-journal`),
      '--record',
      folder,
    ],
    env,
  )
  if (r.code !== 0) throw new Error(`import failed (${r.code}): ${r.stderr}${r.stdout}`)
  const summary = JSON.parse(r.stdout)
  if (summary.created !== count) throw new Error(`import created ${summary.created} of ${count}`)
  return {...r, rate: count / (summary.duration_ms / 1000)}
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')

const emulator = await startEmulatorProcess([], {BK_CONFIG_DIR: dir})
try {
  const env = {
    BK_BASE_URL: emulator.baseUrl,
    BK_CLIENT_ID: emulator.clientId,
    BK_CLIENT_SECRET: emulator.clientSecret,
    BK_BUSINESS_ID: BUSINESS,
  }
  console.log(`record of created bills: a 10-bill import, ${RECORDED.toLocaleString('en-US')} recorded bills vs none`)
  const started = performance.now()
  const big = join(dir, 'big-record')
  const file = await writeRecord(big, emulator.baseUrl, RECORDED)
  console.log(`  record written in ${((performance.now() - started) / 1000).toFixed(1)} s (${file})`)
  const first = await importNew(env, big, 'first')
  console.log(
    `  first import over it: ${Math.round(first.ms)} ms, peak RSS ${first.peakMb.toFixed(1)} MB (load ${load()})`,
  )
  const none = {ms: [], mb: []}
  const full = {ms: [], mb: []}
  for (let round = 0; round < ROUNDS; round++) {
    const a = await importNew(env, join(dir, `none-${round}`), `none${round}`)
    const b = await importNew(env, big, `full${round}`)
    none.ms.push(a.ms)
    none.mb.push(a.peakMb)
    full.ms.push(b.ms)
    full.mb.push(b.peakMb)
    console.log(
      `  round ${round + 1}: none ${Math.round(a.ms)} ms ${a.peakMb.toFixed(1)} MB, ` +
        `recorded ${Math.round(b.ms)} ms ${b.peakMb.toFixed(1)} MB (load ${load()})`,
    )
  }
  const ratio = median(full.ms) / median(none.ms)
  const extra = median(full.mb) - median(none.mb)
  console.log(`  time ratio (medians): ${ratio.toFixed(2)} ${ratio <= 1.2 ? 'ok' : 'ABOVE TARGET'} (target <= 1.2)`)
  console.log(
    `  peak RSS difference (medians): ${extra.toFixed(1)} MB ${extra <= 10 ? 'ok' : 'ABOVE TARGET'} (target <= 10)`,
  )
  if (IMPORT_BILLS > 0) await largerImport(env, big)
  console.log(`  load average: ${load()}`)
} finally {
  await emulator.stop()
  rmSync(dir, {recursive: true, force: true})
}

/** A larger import into the big record and into an empty one, alternating: bills/s and peak RSS. */
async function largerImport(env, big) {
  const bills = IMPORT_BILLS.toLocaleString('en-US')
  console.log(`  a ${bills}-bill import, no latency, into that record vs an empty one:`)
  const empty = {rate: [], mb: []}
  const recorded = {rate: [], mb: []}
  for (let round = 0; round < IMPORT_ROUNDS; round++) {
    const a = await importNew(env, join(dir, `empty-${round}`), `empty${round}`, IMPORT_BILLS)
    const b = await importNew(env, big, `many${round}`, IMPORT_BILLS)
    empty.rate.push(a.rate)
    empty.mb.push(a.peakMb)
    recorded.rate.push(b.rate)
    recorded.mb.push(b.peakMb)
    console.log(
      `  round ${round + 1}: empty ${Math.round(a.rate)} bills/s ${a.peakMb.toFixed(1)} MB, ` +
        `recorded ${Math.round(b.rate)} bills/s ${b.peakMb.toFixed(1)} MB (load ${load()})`,
    )
  }
  const ratio = median(recorded.rate) / median(empty.rate)
  const extra = median(recorded.mb) - median(empty.mb)
  console.log(
    `  bills/s ratio (medians): ${ratio.toFixed(2)} ${ratio >= 0.85 ? 'ok' : 'BELOW TARGET'} (target >= 0.85)`,
  )
  console.log(
    `  peak RSS difference (medians): ${extra.toFixed(1)} MB ${extra <= 10 ? 'ok' : 'ABOVE TARGET'} (target <= 10)`,
  )
}
