// One JSON document: `bk invoices list --json --limit 5000` (one document, printed when every
// page is read) against `bk invoices list --output ndjson --limit 5000` (the same items streamed,
// one a line), run alternately in one run against the same emulator (its own process), each as a
// user runs it, end to end. Both read the same 50 pages; the figure is the document's time as a
// ratio of the stream's: target <= 1.3x (it was 2.6x when oclif coloured the document token by
// token whether or not there was a colour to add).
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {startEmulatorProcess} from './lib/emulator.js'
import {runBk as runBkProcess} from './lib/run-bk.js'

const items = Number(process.env.BENCH_JSON_ITEMS ?? 5_000)
const rounds = Number(process.env.BENCH_ROUNDS_JSON ?? 7)
const dir = mkdtempSync(join(tmpdir(), 'bk-bench-json-'))

/** One bk run against `emu`, as a user runs it, timed end to end. */
const runBk = (emu, args) =>
  runBkProcess(args, {
    BK_CONFIG_DIR: dir,
    BK_BASE_URL: emu.baseUrl,
    BK_CLIENT_ID: emu.clientId,
    BK_CLIENT_SECRET: emu.clientSecret,
    BK_BUSINESS_ID: emu.businessIds[0],
  })

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const select = ['invoices', 'list', '--limit', String(items), '--page-size', '100']
const emulator = await startEmulatorProcess(['--scale', String(items)], {BK_CONFIG_DIR: dir})
try {
  // Warm the emulator's JIT and bk's code cache (its second run of a kind writes it).
  for (let i = 0; i < 2; i++) {
    await runBk(emulator, [...select, '--json'])
    await runBk(emulator, [...select, '--output', 'ndjson'])
  }
  const doc = []
  const stream = []
  let sizes
  for (let i = 0; i < rounds; i++) {
    const d = await runBk(emulator, [...select, '--json'])
    const s = await runBk(emulator, [...select, '--output', 'ndjson'])
    doc.push(d.ms)
    stream.push(s.ms)
    sizes = {doc: d.stdout.length, stream: s.stdout.length}
  }
  const ratio = median(doc) / median(stream)
  console.log(`${items} invoices, medians of ${rounds} alternating rounds`)
  console.log(`  --output ndjson (streamed)   ${median(stream).toFixed(0)} ms, ${(sizes.stream / 1e6).toFixed(1)} MB`)
  console.log(`  --json (one document)        ${median(doc).toFixed(0)} ms, ${(sizes.doc / 1e6).toFixed(1)} MB`)
  console.log(
    `  document / stream            ${ratio.toFixed(2)}x  (target <= 1.3x: ${ratio <= 1.3 ? 'ok' : 'OVER TARGET'})`,
  )
} finally {
  await emulator.stop()
  rmSync(dir, {recursive: true, force: true})
}
