// Start-up: the whole process, from spawn to exit, of a few commands, each as a ratio to a bare
// `node -e 0` of the same Node measured in the same rounds (alternating, so that machine noise
// hits all alike). Each figure is given for the bundle (bin/run.js, what users run) beside the
// unbundled build (bin/unbundled.mjs: tsc's output module by module, as bk ran before the
// bundle). Also: the first run after install (no code cache yet), the second (which writes the
// cache), and the peak RSS of an API call.
//
// Runs on the Node running it, and on every other Node binary named in BENCH_NODES
// (colon-separated paths; `scripts/node-binary.sh 22` prints one). BENCH_ROUNDS sets the rounds.
import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {startEmulatorProcess} from './lib/emulator.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const builds = {bundled: join(root, 'bin', 'run.js'), unbundled: join(root, 'bin', 'unbundled.mjs')}
const maxRss = join(root, 'bench', 'lib', 'max-rss.cjs')
const rounds = Number(process.env.BENCH_ROUNDS ?? 15)
const firstRunRounds = Math.max(3, Math.round(rounds / 2))
const nodes = [process.execPath, ...(process.env.BENCH_NODES ?? '').split(':').filter(Boolean)]
const scratch = mkdtempSync(join(tmpdir(), 'bk-bench-'))

const emulator = await startEmulatorProcess()
const apiEnv = {
  BK_BASE_URL: emulator.baseUrl,
  BK_CLIENT_ID: emulator.clientId,
  BK_CLIENT_SECRET: emulator.clientSecret,
  BK_BUSINESS_ID: emulator.businessIds[0],
}

/** What each command runs; `target` is the ratio to `node -e 0` the bundle should stay within. */
const cases = [
  {name: 'bk --version', args: ['--version'], target: 1.6},
  {name: 'bk businesses list --help', args: ['businesses', 'list', '--help'], target: 1.6},
  {
    name: 'bk transactions get ID --json',
    args: ['transactions', 'get', 'txn_demo_invoice_payments', '--json'],
    api: true,
    target: 2.5,
  },
  {name: 'bk invoices list --limit 20', args: ['invoices', 'list', '--limit', '20'], api: true},
]

// What a user's machine has: the code cache on, also when the bench runs under CI (which turns it off).
const ours = {BK_CONFIG_DIR: join(scratch, 'config'), BK_CACHE_DIR: join(scratch, 'cache'), BK_CODE_CACHE: '1'}
const baseEnv = {...process.env, ...ours}
for (const k of Object.keys(baseEnv)) if (k.startsWith('BK_') && !Object.hasOwn(ours, k)) delete baseEnv[k]

/** Runs one process to its end; its wall time in ms, and its peak RSS in MB when `rss` is set. */
function run(node, args, env = {}, rss = false) {
  const argv = rss ? ['--require', maxRss, ...args] : args
  const t = process.hrtime.bigint()
  const res = spawnSync(node, argv, {env: {...baseEnv, ...env}, stdio: ['ignore', 'pipe', 'pipe', 'pipe']})
  const ms = Number(process.hrtime.bigint() - t) / 1e6
  if (res.status !== 0) throw new Error(`${node} ${args.join(' ')} failed (${res.status}): ${res.stderr}`)
  return {ms, rssMb: rss ? Number(res.output[3].toString()) / 1024 : undefined}
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const bk = (build, c) => [builds[build], ...c.args]
const envOf = (c) => (c.api ? apiEnv : {})
const pad = (s, n) => String(s).padEnd(n)
const fmt = (ms, base) => `${(ms / base).toFixed(2)}x ${`(${ms.toFixed(0)} ms)`.padEnd(9)}`

try {
  for (const node of nodes) {
    const version = spawnSync(node, ['--version']).stdout.toString().trim()
    // Warm the file cache and write the code cache (the second run of a kind writes it), as
    // earlier uses of bk would.
    for (let i = 0; i < 2; i++)
      for (const c of cases) for (const build of Object.keys(builds)) run(node, bk(build, c), envOf(c))

    const samples = {base: []}
    for (let i = 0; i < rounds; i++) {
      samples.base.push(run(node, ['-e', '0']).ms)
      for (const c of cases) {
        for (const build of Object.keys(builds))
          (samples[`${build} ${c.name}`] ??= []).push(run(node, bk(build, c), envOf(c)).ms)
      }
    }
    const base = median(samples.base)

    // The first run after install, and the second, which writes the code cache: a cache folder of
    // their own, empty at first, every time.
    const first = {}
    const second = {}
    for (let i = 0; i < firstRunRounds; i++) {
      for (const c of cases.filter((c) => c.name === 'bk --version' || c.api)) {
        const cacheDir = mkdtempSync(join(scratch, 'first-'))
        ;(first[`bundled ${c.name}`] ??= []).push(run(node, bk('bundled', c), {...envOf(c), BK_CACHE_DIR: cacheDir}).ms)
        ;(second[`bundled ${c.name}`] ??= []).push(
          run(node, bk('bundled', c), {...envOf(c), BK_CACHE_DIR: cacheDir}).ms,
        )
        ;(first[`unbundled ${c.name}`] ??= []).push(run(node, bk('unbundled', c), envOf(c)).ms)
        rmSync(cacheDir, {recursive: true, force: true})
      }
    }
    const rssCase = cases.find((c) => c.name.startsWith('bk transactions get'))
    const rss = {}
    for (const build of Object.keys(builds)) {
      rss[build] = median([1, 2, 3].map(() => run(node, bk(build, rssCase), apiEnv, true).rssMb))
    }

    console.log(`\nnode ${version}: node -e 0 = ${base.toFixed(1)} ms; medians of ${rounds} alternating rounds`)
    console.log(`  ${pad('', 36)} ${pad('bundled', 20)} ${pad('unbundled', 20)} target (bundled)`)
    for (const c of cases) {
      const b = median(samples[`bundled ${c.name}`])
      const u = median(samples[`unbundled ${c.name}`])
      const verdict = c.target ? `<= ${c.target}x ${b / base <= c.target ? 'ok' : 'OVER TARGET'}` : ''
      console.log(`  ${pad(c.name, 36)} ${pad(fmt(b, base), 20)} ${pad(fmt(u, base), 20)} ${verdict}`)
    }
    for (const [title, runs] of [
      [`first run after install, no code cache yet (median of ${firstRunRounds}):`, first],
      [`second run, which writes the code cache (median of ${firstRunRounds}):`, second],
    ]) {
      console.log(`  ${title}`)
      for (const name of new Set(Object.keys(runs).map((k) => k.replace(/^\w+ /, '')))) {
        const b = median(runs[`bundled ${name}`])
        const u = median(first[`unbundled ${name}`])
        const verdict = `<= unbundled ${b <= u ? 'ok' : 'OVER TARGET'}`
        console.log(`  ${pad(name, 36)} ${pad(fmt(b, base), 20)} ${pad(fmt(u, base), 20)} ${verdict}`)
      }
    }
    const verdict = `<= 80 MB ${rss.bundled <= 80 ? 'ok' : 'OVER TARGET'}`
    console.log(
      `  ${pad(`peak RSS, ${rssCase.name}`, 36)} ${pad(`${rss.bundled.toFixed(0)} MB`, 20)} ${pad(`${rss.unbundled.toFixed(0)} MB`, 20)} ${verdict}`,
    )
  }
} finally {
  emulator.stop()
  rmSync(scratch, {recursive: true, force: true})
}
