#!/usr/bin/env node
// What each build patch buys (scripts/dependency-patches.js): builds bk once with every patch and
// once without each (BK_BUILD_WITHOUT), each in a copy of the tree, then runs the same commands on
// every build in alternating rounds (so that the machine's noise hits all alike), each build with
// a warm code cache of its own. Prints, for each patch and command, the median wall and CPU time
// of the build without it minus the full build's, beside the full build's spread (the
// interquartile range of its runs): a gain within the spread is not one. Beside them, the least
// CPU time of its runs and the built-in modules it loads, which a loaded machine disturbs less. Build first
// (`npm run build`); ROUNDS sets the rounds (default 15), ONLY a comma-separated list of patch ids,
// CASES of words of the commands to run (`help,transactions`).
import {execFileSync, spawnSync} from 'node:child_process'
import {cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {startEmulatorProcess} from '../bench/lib/emulator.js'
import {PATCHES} from './dependency-patches.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const rounds = Number(process.env.ROUNDS ?? 15)
const ids = process.env.ONLY ? process.env.ONLY.split(',') : PATCHES.map((p) => p.id)
const scratch = mkdtempSync(join(tmpdir(), 'bk-patches-'))

// At exit, each run writes its CPU time (user + system, µs) and how many of Node's built-in modules
// it loaded to fd 3: the count does not depend on the machine's load, which can hide a gain.
const cpuPreload = join(scratch, 'cpu.cjs')
writeFileSync(
  cpuPreload,
  "process.on('exit', () => { const u = process.cpuUsage(); require('node:fs').writeSync(3, `${u.user + u.system} ${process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).length}`) })\n",
)

/** A copy of the built tree, rebuilt without the patch `without` (none: every patch). */
function variant(without) {
  const dir = join(scratch, without ?? 'all')
  mkdirSync(join(dir, 'dist'), {recursive: true})
  for (const f of ['package.json', 'oclif.manifest.json', 'bin', 'scripts', 'maps'])
    cpSync(join(root, f), join(dir, f), {recursive: true})
  cpSync(join(root, 'dist', 'unbundled'), join(dir, 'dist', 'unbundled'), {recursive: true})
  cpSync(join(root, 'dist', 'help.json'), join(dir, 'dist', 'help.json'))
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
  execFileSync(process.execPath, [join(dir, 'scripts', 'bundle.js')], {
    env: {...process.env, BK_BUILD_WITHOUT: without ?? ''},
    stdio: 'ignore',
  })
  return dir
}

const emulator = await startEmulatorProcess()
const api = {
  BK_BASE_URL: emulator.baseUrl,
  BK_CLIENT_ID: emulator.clientId,
  BK_CLIENT_SECRET: emulator.clientSecret,
  BK_BUSINESS_ID: emulator.businessIds[0],
}
const cases = [
  {name: 'bk help', args: ['help']},
  // A width asked for: oclif renders the help (the stored text is only for a program).
  {name: 'bk invoices list --help (oclif)', args: ['invoices', 'list', '--help'], env: {OCLIF_COLUMNS: '80'}},
  {
    name: 'bk transactions get ID --json',
    args: ['transactions', 'get', 'txn_demo_invoice_payments', '--json'],
    env: api,
  },
]

const only = process.env.CASES?.split(',')
const measured = only ? cases.filter((c) => only.some((o) => c.name.includes(o))) : cases
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)]

try {
  console.log(`building ${ids.length + 1} variants…`)
  const builds = [{id: 'all patches', dir: variant()}, ...ids.map((id) => ({id, dir: variant(id)}))]
  const baseEnv = {...process.env}
  for (const k of Object.keys(baseEnv)) if (k.startsWith('BK_') || k === 'CI') delete baseEnv[k]
  const run = (build, c) => {
    const env = {
      ...baseEnv,
      BK_CACHE_DIR: join(build.dir, 'cache'),
      BK_CONFIG_DIR: join(build.dir, 'config'),
      ...c.env,
    }
    const t = process.hrtime.bigint()
    const res = spawnSync(process.execPath, ['--require', cpuPreload, join(build.dir, 'bin', 'run.js'), ...c.args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    })
    const wall = Number(process.hrtime.bigint() - t) / 1e6
    if (res.status !== 0) throw new Error(`${build.id}: bk ${c.args.join(' ')}: ${res.stderr}`)
    const [cpu, modules] = res.output[3].toString().split(' ').map(Number)
    return {wall, cpu: cpu / 1000, modules}
  }
  // Warm each build's code cache (the second run of a kind writes it).
  for (let i = 0; i < 3; i++) for (const b of builds) for (const c of measured) run(b, c)
  const samples = new Map()
  for (let r = 0; r < rounds; r++)
    for (const c of measured)
      for (const b of r % 2 ? [...builds].reverse() : builds) {
        const key = `${b.id}|${c.name}`
        if (!samples.has(key)) samples.set(key, {wall: [], cpu: [], modules: []})
        const s = run(b, c)
        for (const k of ['wall', 'cpu', 'modules']) samples.get(key)[k].push(s[k])
      }

  console.log(`\nmedians of ${rounds} alternating rounds, warm code cache; ms\n`)
  for (const c of measured) {
    const full = samples.get(`all patches|${c.name}`)
    const spread = (xs) => quantile(xs, 0.75) - quantile(xs, 0.25)
    const min = (xs) => Math.min(...xs)
    const signed = (x) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}`.padStart(7)
    console.log(
      `${c.name}: all patches ${median(full.wall).toFixed(1)} wall (spread ${spread(full.wall).toFixed(1)}), ${median(full.cpu).toFixed(1)} CPU (spread ${spread(full.cpu).toFixed(1)}, least ${min(full.cpu).toFixed(1)}), ${median(full.modules)} built-in modules`,
    )
    console.log(`  without ${''.padEnd(30)} ${'wall'.padStart(7)} ${'CPU'.padStart(7)} ${'least'.padStart(7)} modules`)
    for (const id of ids) {
      const s = samples.get(`${id}|${c.name}`)
      const dw = median(s.wall) - median(full.wall)
      const dc = median(s.cpu) - median(full.cpu)
      const verdict = dc > spread(full.cpu) && dw > 0 ? 'gain' : 'within spread'
      console.log(
        `  without ${id.padEnd(30)} ${signed(dw)} ${signed(dc)} ${signed(min(s.cpu) - min(full.cpu))} ${signed(
          median(s.modules) - median(full.modules),
        )
          .slice(0, -2)
          .padStart(7)}  ${verdict}`,
      )
    }
  }
} finally {
  emulator.stop()
  rmSync(scratch, {recursive: true, force: true})
}
