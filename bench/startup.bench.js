// Start-up: the whole process, from spawn to exit, of a few commands, each as a ratio to a bare
// `node -e 0` of the same Node measured in the same rounds (alternating, so that machine noise
// hits all alike). Each figure is given for the bundle (bin/run.js, what users run) beside the
// unbundled build (bin/unbundled.mjs: tsc's output module by module, as bk ran before the
// bundle) and the single executable (scripts/build-sea.js, built here from the Node running the
// bench; its first run after install also writes its files to the cache). Also: the first run after install (no code cache yet), the second (which writes the
// cache), and the peak RSS of an API call.
//
// Runs on the Node running it, and on every other Node binary named in BENCH_NODES
// (colon-separated paths; `scripts/node-binary.sh 22` prints one). BENCH_ROUNDS sets the rounds.
// BENCH_STARTUP_VS names another built checkout of bk (e.g. a worktree of main before a change):
// its bundle is measured in the same rounds, a column of its own, so that a change can be judged
// against the spread each figure prints (the interquartile range of its rounds).
import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {buildSea, seaUnsupported} from '../scripts/build-sea.js'
import {startEmulatorProcess} from './lib/emulator.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const scratch = mkdtempSync(join(tmpdir(), 'bk-bench-'))
const seaMissing = seaUnsupported()
if (seaMissing) console.log(`no single executable: ${seaMissing}`)
const sea = seaMissing ? undefined : await buildSea(join(scratch, 'sea'))
/** Each build: the command line that runs it on `node`, or undefined where it does not run there. */
const builds = {
  bundled: (node) => [node, join(root, 'bin', 'run.js')],
  unbundled: (node) => [node, join(root, 'bin', 'unbundled.mjs')],
  // Node inside: measured once, beside the Node it was made from.
  'single executable': (node) => (sea && node === process.execPath ? [sea] : undefined),
}
const vsRoot = process.env.BENCH_STARTUP_VS
if (vsRoot) builds[`vs ${vsRoot}`] = (node) => [node, join(vsRoot, 'bin', 'run.js')]
const maxRss = join(root, 'bench', 'lib', 'max-rss.cjs')
const rounds = Number(process.env.BENCH_ROUNDS ?? 15)
const firstRunRounds = Math.max(3, Math.round(rounds / 2))
const nodes = [process.execPath, ...(process.env.BENCH_NODES ?? '').split(':').filter(Boolean)]

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
// A machine's own authorities: Node 20 reads the file as it starts (about 50 ms for a system
// bundle), Node 22 and later only for a TLS connection. No command here makes one, and the same
// wait added to bk and to `node -e 0` would make Node 20's ratios look better than bk is.
delete baseEnv.NODE_EXTRA_CA_CERTS

/**
 * Runs one process to its end (`line`: the command and its arguments); its wall time in ms, and
 * its peak RSS in MB when `rss` is set (Node's option: not for the single executable).
 */
function run([command, ...args], env = {}, rss = false) {
  const argv = rss ? ['--require', maxRss, ...args] : args
  const t = process.hrtime.bigint()
  const res = spawnSync(command, argv, {env: {...baseEnv, ...env}, stdio: ['ignore', 'pipe', 'pipe', 'pipe']})
  const ms = Number(process.hrtime.bigint() - t) / 1e6
  if (res.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${res.status}): ${res.stderr}`)
  return {ms, rssMb: rss ? Number(res.output[3].toString()) / 1024 : undefined}
}

const bk = (node, build, c) => [...builds[build](node), ...c.args]
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q + 0.5)]
const median = (xs) => quantile(xs, 0.5)
/** The interquartile range: the spread a difference between two builds must exceed to count. */
const iqr = (xs) => quantile(xs, 0.75) - quantile(xs, 0.25)
const envOf = (c) => (c.api ? apiEnv : {})
const pad = (s, n) => String(s).padEnd(n)
/** A build's figure: the median as a ratio to `node -e 0`, in ms, and its interquartile range. */
const fmt = (xs, base) =>
  xs === undefined ? '-' : `${(median(xs) / base).toFixed(2)}x (${median(xs).toFixed(0)} ms ±${iqr(xs).toFixed(0)})`

try {
  for (const node of nodes) {
    const version = spawnSync(node, ['--version']).stdout.toString().trim()
    const here = Object.keys(builds).filter((build) => builds[build](node))
    // Warm the file cache and write the code cache (the second run of a kind writes it), as
    // earlier uses of bk would.
    for (let i = 0; i < 2; i++) for (const c of cases) for (const build of here) run(bk(node, build, c), envOf(c))

    const samples = {base: []}
    for (let i = 0; i < rounds; i++) {
      samples.base.push(run([node, '-e', '0']).ms)
      for (const c of cases) {
        for (const build of here) (samples[`${build} ${c.name}`] ??= []).push(run(bk(node, build, c), envOf(c)).ms)
      }
    }
    const base = median(samples.base)

    // The first run after install, and the second, which writes the code cache: a cache folder of
    // their own, empty at first, every time.
    const first = {}
    const second = {}
    for (let i = 0; i < firstRunRounds; i++) {
      for (const c of cases.filter((c) => c.name === 'bk --version' || c.api)) {
        for (const build of here.filter((b) => b !== 'unbundled')) {
          const cacheDir = mkdtempSync(join(scratch, 'first-'))
          ;(first[`${build} ${c.name}`] ??= []).push(run(bk(node, build, c), {...envOf(c), BK_CACHE_DIR: cacheDir}).ms)
          ;(second[`${build} ${c.name}`] ??= []).push(run(bk(node, build, c), {...envOf(c), BK_CACHE_DIR: cacheDir}).ms)
          rmSync(cacheDir, {recursive: true, force: true})
        }
        ;(first[`unbundled ${c.name}`] ??= []).push(run(bk(node, 'unbundled', c), envOf(c)).ms)
      }
    }
    const rssCase = cases.find((c) => c.name.startsWith('bk transactions get'))
    const rss = {}
    for (const build of here.filter((b) => b !== 'single executable')) {
      rss[build] = median([1, 2, 3].map(() => run(bk(node, build, rssCase), apiEnv, true).rssMb))
    }

    const columns = Object.keys(builds)
    const row = (name, cells, verdict) =>
      console.log(`  ${pad(name, 36)} ${cells.map((cell) => pad(cell, 26)).join(' ')} ${verdict}`)
    console.log(`\nnode ${version}: node -e 0 = ${base.toFixed(1)} ms; medians of ${rounds} alternating rounds, ±IQR`)
    row('', columns, 'target (bundled)')
    for (const c of cases) {
      const b = median(samples[`bundled ${c.name}`])
      const verdict = c.target ? `<= ${c.target}x ${b / base <= c.target ? 'ok' : 'OVER TARGET'}` : ''
      row(
        c.name,
        columns.map((build) => fmt(samples[`${build} ${c.name}`], base)),
        verdict,
      )
    }
    for (const [title, runs] of [
      [`first run after install, no code cache yet (median of ${firstRunRounds}):`, first],
      [`second run, which writes the code cache (median of ${firstRunRounds}):`, second],
    ]) {
      console.log(`  ${title}`)
      for (const {name} of cases.filter((c) => runs[`bundled ${c.name}`])) {
        // The unbundled build has no code cache: its first run stands for every run.
        const of = (build) => (build === 'unbundled' ? first : runs)[`${build} ${name}`]
        const verdict = `<= unbundled ${median(of('bundled')) <= median(of('unbundled')) ? 'ok' : 'OVER TARGET'}`
        row(
          name,
          columns.map((build) => fmt(of(build), base)),
          verdict,
        )
      }
    }
    row(
      `peak RSS, ${rssCase.name}`,
      columns.map((build) => (rss[build] === undefined ? '-' : `${rss[build].toFixed(0)} MB`)),
      `<= 80 MB ${rss.bundled <= 80 ? 'ok' : 'OVER TARGET'}`,
    )
  }
} finally {
  await emulator.stop()
  rmSync(scratch, {recursive: true, force: true})
}
