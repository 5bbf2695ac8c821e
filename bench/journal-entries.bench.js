// Journal entries from YAML (issue 5), figures as ratios to a baseline measured in the same run:
// 1. the local check (loadJournalEntries: YAML with source positions, every rule, decimal sums)
//    on a generated file of BENCH_JE_ENTRIES entries (default 5,000, 4 lines each), against the
//    `yaml` package's plain YAML.parse of the same text (the floor: parsing alone);
// 2. `bk journal-entries validate` end to end (process start included) on the same file.
import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {performance} from 'node:perf_hooks'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import YAML from 'yaml'

import {loadJournalEntries} from '../dist/unbundled/journal-entries/load.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const ENTRIES = Number(process.env.BENCH_JE_ENTRIES ?? 5000)
const REPEAT = 3

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
rmSync(dir, {recursive: true, force: true})

console.log(`journal-entries: ${ENTRIES} entries, ${ENTRIES * 4} lines, ${(text.length / 1e6).toFixed(1)} MB`)
console.log(
  `  local check / YAML.parse alone: ${(check / baseline).toFixed(2)}x the time (baseline ${baseline.toFixed(0)} ms)`,
)
console.log(`  bk journal-entries validate (whole process) / YAML.parse alone: ${(cli / baseline).toFixed(2)}x`)
