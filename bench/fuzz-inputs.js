#!/usr/bin/env node
// Hostile inputs for every flag that takes a file: maps, lookups, fixtures, the emulator's
// --state, BK_CA_FILE, the resume log (--journal) and doctor's --bundle DIR. Each input is run
// through the real binary (dist/, built by `npm run build`) under /usr/bin/time, and the script
// reports how many runs ended in exit 1 ("report it": bk did not expect the input), how many
// had to be killed (no end within the time limit) and the peak RSS of any run.
// Run it like a bench, not as a test: `npm run build && node bench/fuzz-inputs.js`.
import {spawn} from 'node:child_process'
import {mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const bin = join(root, 'bin', 'run.js')
const work = mkdtempSync(join(tmpdir(), 'bk-fuzz-'))
const LIMIT_MS = 90_000

/** Writes a file under the work folder and returns its path. */
function file(name, content) {
  const path = join(work, name)
  writeFileSync(path, content)
  return path
}
function sparse(name, bytes) {
  const path = file(name, '')
  truncateSync(path, bytes)
  return path
}
function folder(name, withFile = false) {
  const path = join(work, name)
  mkdirSync(path, {recursive: true})
  if (withFile) writeFileSync(join(path, 'x'), 'x')
  return path
}
function link(name, target) {
  const path = join(work, name)
  symlinkSync(target, path)
  return path
}

function laughs(levels) {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
  for (let i = 1; i < levels; i++) {
    const prev = String.fromCharCode(96 + i)
    const name = String.fromCharCode(97 + i)
    lines.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`)
  }
  return lines.join('\n') + '\n'
}
function manyKeys(n, indent = '') {
  const out = []
  for (let i = 0; i < n; i++) out.push(`${indent}k${i}: v${i}`)
  return out.join('\n') + '\n'
}

/** The hostile files every YAML- or CSV-taking flag gets. */
function hostileFiles(kind) {
  const k = (n) => `${kind}-${n}`
  return {
    'billion laughs': file(k('laughs.yaml'), laughs(10)),
    '200,000 keys': file(
      k('keys.yaml'),
      (kind === 'map' ? 'columns:\n' : '') + manyKeys(200_000, kind === 'map' ? '  ' : ''),
    ),
    'nested 100,000 deep': file(k('deep.yaml'), '['.repeat(100_000) + ']'.repeat(100_000)),
    'invalid UTF-8': file(k('bad.yaml'), Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28, 0x0a])),
    'binary noise': file(k('noise.bin'), Buffer.from(Array.from({length: 65536}, (_, i) => (i * 7919) % 256))),
    '/dev/zero': '/dev/zero',
    'a folder': folder(k('folder')),
    'a dangling link': link(k('dangling'), join(work, 'nothing-here')),
    '200 MB sparse file': sparse(k('huge'), 200 * 1024 * 1024),
    'one 20 MB line': file(k('line.csv'), 'a,' + 'x'.repeat(20 * 1024 * 1024) + '\n'),
    'empty file': file(k('empty'), ''),
  }
}

const bills = file(
  'bills.csv',
  'number,vendor_id,issued_at,due_at,currency,line_amount,line_ledger_id\nB-1,ven_1,2026-01-02,2026-02-02,EUR,10.00,ldg_1\n',
)
const lookupRows = file(
  'lookup-72mb.csv',
  'name,id\n' +
    Array.from({length: 1_500_000}, (_, i) => `Vendor number ${i} with a long name,ven_${i}`).join('\n') +
    '\n',
)
const lookupWithin = file(
  'lookup-15mb.csv',
  'name,id\n' +
    Array.from({length: 300_000}, (_, i) => `Vendor number ${i} with a long name,ven_${i}`).join('\n') +
    '\n',
)
const offline = {
  BK_BASE_URL: 'http://127.0.0.1:9',
  BK_CLIENT_ID: 'id',
  BK_CLIENT_SECRET: 'secret',
  BK_BUSINESS_ID: 'biz_1',
}

const cases = []
for (const [name, path] of Object.entries(hostileFiles('map')))
  cases.push({flag: '--map', input: name, args: ['bills', 'import', bills, '--map', path, '--dry-run']})
for (const [name, path] of Object.entries({
  ...hostileFiles('lookup'),
  '72 MB of rows': lookupRows,
  '15 MB of rows': lookupWithin,
}))
  cases.push({
    flag: '--lookup',
    input: name,
    args: ['bills', 'import', bills, '--lookup', `vendor_id=${path}`, '--dry-run'],
  })
for (const [name, path] of Object.entries(hostileFiles('fixtures')))
  cases.push({
    flag: '--fixtures',
    input: name,
    args: ['emulator', 'start', '--port', '0', '--fixtures', path],
    server: true,
  })
for (const [name, path] of Object.entries(hostileFiles('state')))
  cases.push({flag: '--state', input: name, args: ['emulator', 'start', '--port', '0', '--state', path], server: true})
for (const [name, path] of Object.entries(hostileFiles('ca')))
  cases.push({
    flag: 'BK_CA_FILE',
    input: name,
    args: ['businesses', 'list'],
    env: {...offline, BK_BASE_URL: 'https://api.example.test', BK_CA_FILE: path},
  })
for (const [name, path] of Object.entries(hostileFiles('journal')))
  cases.push({flag: '--journal', input: name, args: ['bills', 'unconfirmed', bills, '--journal', path]})
const bundles = {
  'a file': file('bundle-file', 'x'),
  'a folder with a file': folder('bundle-full', true),
  'a link to a folder': link('bundle-link', folder('bundle-target')),
  'a dangling link': link('bundle-dangling', join(work, 'nothing')),
  '/dev/null': '/dev/null',
  '/tmp': tmpdir(),
}
for (const [name, path] of Object.entries(bundles))
  cases.push({flag: '--bundle', input: name, args: ['doctor', '--bundle', path], env: offline})

/** Runs one case; a server that starts (it took the input) is stopped once it says so. */
function run(c) {
  return new Promise((resolve) => {
    const config = mkdtempSync(join(work, 'config-'))
    const env = {PATH: process.env.PATH, HOME: process.env.HOME, BK_CONFIG_DIR: config, ...c.env}
    const child = spawn('/usr/bin/time', ['-f', 'RSS_KB=%M', process.execPath, bin, ...c.args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    let stdout = ''
    let stderr = ''
    let killed = false
    let started = false
    child.stdout.on('data', (d) => {
      stdout += d
      if (c.server && !started && /listening|base_url/i.test(stdout)) {
        started = true
        // The whole group: /usr/bin/time ignores SIGINT while bk runs.
        process.kill(-child.pid, 'SIGINT')
      }
    })
    child.stderr.on('data', (d) => (stderr += d))
    const timer = setTimeout(() => {
      killed = true
      process.kill(-child.pid, 'SIGKILL')
    }, LIMIT_MS)
    child.on('close', (code) => {
      clearTimeout(timer)
      const rss = Number(/RSS_KB=(\d+)/.exec(stderr)?.[1] ?? 0) / 1024
      // /usr/bin/time reports a signalled command as exit 128+n; an emulator stopped by us is not a failure.
      const exit = started
        ? 'started'
        : (/Command terminated by signal|Command exited with non-zero status (\d+)/.exec(stderr)?.[1] ?? String(code))
      const message = stderr.split('\n').find((l) => l.startsWith('Error:')) ?? ''
      resolve({...c, exit, killed, rss, message})
    })
  })
}

const results = []
for (const c of cases) {
  const r = await run(c)
  results.push(r)
  console.log(
    `${r.flag.padEnd(11)} ${r.input.padEnd(22)} exit ${String(r.killed ? 'KILLED' : r.exit).padEnd(7)} ${r.rss.toFixed(0).padStart(5)} MB  ${r.message.slice(0, 110)}`,
  )
}
rmSync(work, {recursive: true, force: true})
const exit1 = results.filter((r) => r.exit === '1')
const killed = results.filter((r) => r.killed)
const peak = Math.max(...results.map((r) => r.rss))
console.log(`\n${results.length} runs: ${exit1.length} exit 1, ${killed.length} killed, peak RSS ${peak.toFixed(0)} MB`)
for (const r of [...exit1, ...killed]) console.log(`  ${r.flag} ${r.input}: ${r.killed ? 'killed' : r.message}`)
process.exit(exit1.length || killed.length || peak >= 300 ? 1 : 0)
