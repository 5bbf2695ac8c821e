// Aging: `bk invoices aging --json` over 100,000 seeded invoices, against the export of the same
// invoices, `bk invoices list --all --output ndjson --file …`, run alternately in one run against
// the same emulator (its own process, from dist/), each as a user runs it (end to end, start-up
// included). Both read every page the same way; aging sums instead of writing. The figure is
// aging's speed as a ratio of the export's (export time / aging time): target >= 0.8x. Also
// bk's peak RSS (VmHWM polled from /proc) for aging over 100,000 invoices and over 5,000 (an
// emulator of its own): flat memory means the two are close.
import {mkdtempSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {URLSearchParams} from 'node:url'

import {request} from 'undici'

import {startEmulatorProcess} from './lib/emulator.js'
import {runBk as runBkProcess} from './lib/run-bk.js'

const scale = Number(process.env.BENCH_AGING_ROWS ?? 100_000)
const small = Number(process.env.BENCH_AGING_SMALL_ROWS ?? 5_000)
const rounds = Number(process.env.BENCH_ROUNDS_AGING ?? 3)
const dir = mkdtempSync(join(tmpdir(), 'bk-bench-aging-'))

async function token(emu) {
  const res = await request(`${emu.baseUrl}/v0/auth/token`, {
    method: 'POST',
    headers: {'content-type': 'application/x-www-form-urlencoded'},
    body: new URLSearchParams({client_id: emu.clientId, client_secret: emu.clientSecret}).toString(),
  })
  return (await res.body.json()).access_token
}

/** One bk run against `emu`, as a user runs it, timed end to end with its peak RSS. */
const runBk = (emu, accessToken, args) =>
  runBkProcess(args, {
    BK_CONFIG_DIR: dir,
    BK_BASE_URL: emu.baseUrl,
    BK_ACCESS_TOKEN: accessToken,
    BK_BUSINESS_ID: emu.business,
    CI: '1',
  })

const exportArgs = () => {
  const file = join(dir, 'invoices.ndjson')
  rmSync(file, {force: true})
  return {file, args: ['invoices', 'list', '--all', '--output', 'ndjson', '--file', file]}
}
const AGING = ['invoices', 'aging', '--as-of', '2026-06-30', '--json']

const emulator = await startEmulatorProcess(['--scale', String(scale)], {BK_CONFIG_DIR: dir})
const emu = {...emulator, business: emulator.businessIds[0]}
const smallEmulator = await startEmulatorProcess(['--scale', String(small), '--seed', 'empty'], {BK_CONFIG_DIR: dir})
const smallEmu = {...smallEmulator, business: smallEmulator.businessIds[0]}
try {
  const accessToken = await token(emu)
  // Warm the emulator (JIT) before measuring.
  await runBk(emu, accessToken, exportArgs().args)
  const exports = []
  const agings = []
  for (let i = 0; i < rounds; i++) {
    const ex = exportArgs()
    const e = await runBk(emu, accessToken, ex.args)
    if (statSync(ex.file).size === 0) throw new Error('the export wrote nothing')
    exports.push(e)
    agings.push(await runBk(emu, accessToken, AGING))
  }
  const report = JSON.parse(agings.at(-1).stdout)
  if (report.invoices_read !== scale) throw new Error(`aging read ${report.invoices_read} invoices, seeded ${scale}`)
  const smallRun = await runBk(smallEmu, await token(smallEmu), AGING)
  if (JSON.parse(smallRun.stdout).invoices_read !== small) throw new Error('the small aging run read the wrong count')
  const best = (xs) => xs.reduce((a, b) => (a.ms <= b.ms ? a : b))
  const e = best(exports)
  const a = best(agings)
  const ratio = e.ms / a.ms
  const rate = (x) => (scale / (x.ms / 1000)).toFixed(0).padStart(7)
  console.log(`invoices aging over ${scale.toLocaleString('en')} invoices, best of ${rounds} alternating runs`)
  console.log(
    `  bk invoices list --all --output ndjson  ${e.ms.toFixed(0).padStart(7)} ms  ${rate(e)} invoices/s  1.00x`,
  )
  console.log(
    `  bk invoices aging --json               ${a.ms.toFixed(0).padStart(7)} ms  ${rate(a)} invoices/s  ${ratio.toFixed(2)}x${ratio >= 0.8 ? '  ok (target >= 0.8x)' : '  UNDER TARGET (0.8x)'}`,
  )
  const peak = Math.max(...agings.map((x) => x.peakMb))
  console.log(
    `  aging peak RSS: ${peak.toFixed(0)} MB for ${scale.toLocaleString('en')} invoices, ${smallRun.peakMb.toFixed(0)} MB for ${small.toLocaleString('en')} (${(peak / smallRun.peakMb).toFixed(2)}x: flat memory is ~1x); export: ${e.peakMb.toFixed(0)} MB`,
  )
} finally {
  await emu.stop()
  await smallEmu.stop()
  rmSync(dir, {recursive: true, force: true})
}
