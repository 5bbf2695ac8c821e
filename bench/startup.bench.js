// Start-up: median wall time of `bk --version` and `bk businesses list --help` against a bare
// `node -e 0`, measured alternately in one run so that machine noise hits all three alike.
// Target: at most 2.5x `node -e 0`.
import {spawnSync} from 'node:child_process'
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const bin = join(root, 'bin', 'run.js')
const rounds = Number(process.env.BENCH_ROUNDS ?? 25)
const env = {...process.env, BK_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'bk-bench-'))}

const cases = {
  'node -e 0': [process.execPath, '-e', '0'],
  'bk --version': [process.execPath, bin, '--version'],
  'bk businesses list --help': [process.execPath, bin, 'businesses', 'list', '--help'],
}

function time([cmd, ...args]) {
  const t = process.hrtime.bigint()
  const res = spawnSync(cmd, args, {env, stdio: ['ignore', 'pipe', 'pipe']})
  if (res.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${res.stderr}`)
  return Number(process.hrtime.bigint() - t) / 1e6
}

const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]))
for (const c of Object.values(cases)) time(c) // warm the file cache
for (let i = 0; i < rounds; i++) for (const [name, c] of Object.entries(cases)) samples[name].push(time(c))

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}
const base = median(samples['node -e 0'])
console.log(`start-up, median of ${rounds} alternating runs (baseline node -e 0 = ${base.toFixed(1)} ms)`)
for (const name of Object.keys(cases)) {
  const m = median(samples[name])
  const ratio = m / base
  const verdict = name === 'node -e 0' ? '' : ratio <= 2.5 ? '  ok (target <= 2.5x)' : '  OVER TARGET (2.5x)'
  console.log(`  ${name.padEnd(28)} ${m.toFixed(1).padStart(7)} ms  ${ratio.toFixed(2)}x${verdict}`)
}
