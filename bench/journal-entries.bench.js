// Journal entries from YAML (issue 5), figures as ratios to a baseline measured in the same run:
// 1. the local check (loadJournalEntries: YAML with source positions, every rule, decimal sums)
//    on a generated file of BENCH_JE_ENTRIES entries (default 5,000, 4 lines each), against the
//    `yaml` package's plain YAML.parse of the same text (the floor: parsing alone);
// 2. `bk journal-entries validate` end to end (process start included) on the same file;
// 3. peak RSS of `bk journal-entries validate` on a BENCH_JE_LARGE_MB file (default 50 MB, target
//    under 300 MB: the file is read piece by piece, memory bounded by the entry), with its ratio
//    to a file a tenth that size in the same run;
// 4. time linear in the size of one entry: one entry of 10n against one of n lines, tag value ids
//    and unknown keys (a ratio near 10 is linear, near 100 quadratic).
import {spawn, spawnSync} from 'node:child_process'
import {createWriteStream, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {once} from 'node:events'
import {tmpdir} from 'node:os'
import {performance} from 'node:perf_hooks'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import YAML from 'yaml'

import {loadJournalEntries} from '../dist/unbundled/journal-entries/load.js'
import {watchPeakRss} from './lib/peak-rss.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const ENTRIES = Number(process.env.BENCH_JE_ENTRIES ?? 5000)
const REPEAT = 3
const LARGE_MB = Number(process.env.BENCH_JE_LARGE_MB ?? 50)
const RSS_TARGET_MB = 300

let text = 'entries:\n'
for (let i = 0; i < ENTRIES; i++) {
  text +=
    `  - description: Entry ${i}\n    datetime: 2026-03-01T09:00:00Z\n    lines:\n` +
    `      - {ledger_id: ldg_demo_expenses, debit: ${i}.10, tag_value_ids: [tv_a${i}]}\n` +
    `      - {ledger_id: ldg_demo_software, debit: 0.20}\n` +
    `      - ledger_id: ldg_demo_cash\n        credit: ${i}.25\n` +
    `      - ledger_id: ldg_demo_cash\n        debit_credit: credit\n        amount: 0.05\n`
}

function best(fn) {
  let min = Infinity
  for (let r = 0; r < REPEAT; r++) {
    const t = performance.now()
    fn()
    min = Math.min(min, performance.now() - t)
  }
  return min
}

const baseline = best(() => YAML.parse(text))
let result
const check = best(() => (result = loadJournalEntries(text, 'bench.yaml')))
if (result.problems.length > 0 || result.entries.length !== ENTRIES)
  throw new Error(`unexpected result: ${result.problems.length} problems`)

const dir = mkdtempSync(join(tmpdir(), 'bk-bench-je-'))
const file = join(dir, 'bench.yaml')
writeFileSync(file, text)
const cli = best(() => {
  const r = spawnSync(process.execPath, [join(root, 'bin', 'run.js'), 'journal-entries', 'validate', file], {
    env: {...process.env, BK_CONFIG_DIR: dir},
  })
  if (r.status !== 0) throw new Error(String(r.stderr))
})

/** Writes entries until the file holds `mb` megabytes, a piece at a time. */
async function writeEntries(path, mb) {
  const out = createWriteStream(path)
  out.write('entries:\n')
  let size = 0
  let buf = ''
  for (let i = 0; size < mb * 1e6; i++) {
    buf +=
      `  - description: Entrée ${i}\n    datetime: 2026-03-01T09:00:00Z\n    lines:\n` +
      `      - {ledger_id: ldg_demo_expenses, debit: ${i}.10, tag_value_ids: [tv_a${i}]}\n` +
      `      - ledger_id: ldg_demo_cash\n        credit: ${i}.10\n`
    if (buf.length > 1 << 16) {
      size += buf.length
      if (!out.write(buf)) await once(out, 'drain')
      buf = ''
    }
  }
  out.end(buf)
  await once(out, 'finish')
}

/** Peak RSS (MB) of `bk journal-entries validate FILE`, which must pass. */
async function validatePeakRss(path) {
  const child = spawn(process.execPath, [join(root, 'bin', 'run.js'), 'journal-entries', 'validate', path], {
    env: {...process.env, BK_CONFIG_DIR: dir},
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  const rss = watchPeakRss(child.pid)
  let stderr = ''
  child.stderr.on('data', (d) => (stderr += d))
  const [code] = await once(child, 'close')
  const peak = rss.stop()
  if (code !== 0) throw new Error(`validate exited ${code}: ${stderr.slice(0, 500)}`)
  return peak
}

const small = join(dir, 'small.yaml')
const large = join(dir, 'large.yaml')
await writeEntries(small, LARGE_MB / 10)
await writeEntries(large, LARGE_MB)
const rssSmall = await validatePeakRss(small)
const rssLarge = await validatePeakRss(large)
rmSync(dir, {recursive: true, force: true})

/** Seconds loadJournalEntries takes on one entry built by `lines(n)`, best of REPEAT. */
function entryTime(n, lines) {
  const text = `description: Big\ndatetime: 2026-03-01T09:00:00Z\nlines:\n${lines(n)}`
  return best(() => loadJournalEntries(text, 'one.yaml'))
}
const SIZES = [10_000, 100_000]
const shapes = {
  lines: (n) =>
    Array.from({length: n}, (_, i) => `  - {ledger_id: ldg_a, ${i % 2 ? 'credit' : 'debit'}: 1.00}\n`).join(''),
  'tag value ids': (n) =>
    `  - ledger_id: ldg_a\n    debit: 1\n    tag_value_ids: [${Array.from({length: n}, (_, i) => `tv_${i}`).join(', ')}]\n` +
    `  - {ledger_id: ldg_b, credit: 1}\n`,
  'unknown keys': (n) =>
    `  - ledger_id: ldg_a\n    debit: 1\n${Array.from({length: n}, (_, i) => `    tag${i}: x\n`).join('')}` +
    `  - {ledger_id: ldg_b, credit: 1}\n`,
}
const linear = Object.entries(shapes).map(([name, lines]) => {
  const [t1, t2] = SIZES.map((n) => entryTime(n, lines))
  return {name, ratio: t2 / t1, ms: t2}
})

console.log(`journal-entries: ${ENTRIES} entries, ${ENTRIES * 4} lines, ${(text.length / 1e6).toFixed(1)} MB`)
console.log(
  `  local check / YAML.parse alone: ${(check / baseline).toFixed(2)}x the time (baseline ${baseline.toFixed(0)} ms)`,
)
console.log(`  bk journal-entries validate (whole process) / YAML.parse alone: ${(cli / baseline).toFixed(2)}x`)
console.log(
  `  peak RSS of bk journal-entries validate: ${rssLarge.toFixed(0)} MB for ${LARGE_MB} MB of entries, ` +
    `${rssSmall.toFixed(0)} MB for ${LARGE_MB / 10} MB (ratio ${(rssLarge / rssSmall).toFixed(2)}); ` +
    `target under ${RSS_TARGET_MB} MB: ${rssLarge < RSS_TARGET_MB ? 'met' : 'MISSED'}`,
)
for (const l of linear)
  console.log(
    `  one entry of ${SIZES[1]} ${l.name} / of ${SIZES[0]}: ${l.ratio.toFixed(1)}x the time (10 is linear; ${l.ms.toFixed(0)} ms)`,
  )
