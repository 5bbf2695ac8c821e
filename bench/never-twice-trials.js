#!/usr/bin/env node
// Never twice, never lost (docs/reliability.md, "Trials"): run by hand, not by `npm run bench`
// (its name does not end in .bench.js) nor by `npm test`; it takes many minutes.
//
//   node bench/never-twice-trials.js            20 overlap trials and 20 kill trials, 2,000 bills
//   TRIALS_OVERLAP=2 TRIALS_KILL=4 TRIALS_BILLS=400 node bench/never-twice-trials.js
//
// (a) overlap: two imports of overlapping files (rows 1-75% and 25-100%, different names)
//     started at once, into one business, against an emulator with latency and faults that leave
//     bills unconfirmed (reset-before, reset-after, commit-5xx);
// (b) kill: one import killed with SIGKILL at a moment aimed, by watching its resume log and the
//     record of created bills, at each gap between its writes in turn: after a batch's `sending`
//     record (request in flight), after the service acted but before the `result` record, after
//     the `result` record but before the record of created bills has the batch, and after that.
// Each trial is followed by `bills unconfirmed --settle` and `--resume` of every file (repeated
// while a file has unconfirmed bills), then compared: the emulator's bills by key against the
// rows (duplicated, lost) and the record of created bills against the emulator's bills.
import {spawn} from 'node:child_process'
import {mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, closeSync, rmSync, watch} from 'node:fs'
import {writeFileSync} from 'node:fs'
import {tmpdir, loadavg} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {fetch} from 'undici'

import {startEmulatorProcess} from './lib/emulator.js'

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'run.js')
const OVERLAP = Number(process.env.TRIALS_OVERLAP ?? 20)
const KILL = Number(process.env.TRIALS_KILL ?? 20)
const BILLS = Number(process.env.TRIALS_BILLS ?? 2000)
const BATCH = Number(process.env.TRIALS_BATCH ?? 50)
const BUSINESS = 'biz_demo_acme'
const VENDOR = 'ven_demo_office'
const SEP = '\u001f'
const HEADER = 'number,vendor_id,description,issued_at,due_at,currency,line_description,line_amount,line_ledger_id\n'
const KILL_STEPS = ['after sending', 'after the service acted', 'after result', 'after record append']

function csv(prefix, from, to) {
  let text = HEADER
  for (let i = from; i <= to; i++)
    text += `${prefix}-${i},${VENDOR},Trial ${i},2026-03-01,2026-04-01T00:00:00Z,EUR,Paper,${i}.25,ldg_demo_expenses\n`
  return text
}

/** The last words of a run: its error (stdout with --json) or its last line of stderr. */
const why = (r) =>
  r.stdout.includes('"error"') ? r.stdout.replace(/\s+/g, ' ').slice(0, 400) : r.stderr.trim().split('\n').slice(-1)[0]

function bk(args, env) {
  const child = spawn(process.execPath, [bin, ...args], {
    env: {...process.env, ...env},
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => (stdout += d))
  child.stderr.on('data', (d) => (stderr += d))
  const done = new Promise((resolve) =>
    child.on('close', (code, signal) => resolve({code, signal, stdout, stderr, args: args.join(' ')})),
  )
  return {child, done}
}

async function emulatorBills(emulator) {
  const res = await fetch(`${emulator.baseUrl}/_emulator/businesses/${BUSINESS}/bills`)
  return (await res.json()).data
}

/** The record of created bills, folded as bk reads it: key to id, and keys left unconfirmed. */
function readRecord(folder) {
  const created = new Map()
  const unconfirmed = new Set()
  let second = 0
  let files = []
  try {
    files = readdirSync(folder).filter((f) => f.endsWith('.jsonl'))
  } catch {
    // no record yet
  }
  for (const f of files) {
    const lines = readFileSync(join(folder, f), 'utf8').split('\n')
    lines.pop() // after the last newline: nothing, or a torn write
    for (const line of lines.slice(1)) {
      let e
      try {
        e = JSON.parse(line)
      } catch {
        continue
      }
      if (e.absent) unconfirmed.delete(e.key)
      else if (e.unconfirmed !== undefined) {
        if (!created.has(e.key)) unconfirmed.add(e.key)
      } else if (created.has(e.key)) {
        if (created.get(e.key) !== e.id) second++
      } else {
        created.set(e.key, e.id)
        unconfirmed.delete(e.key)
      }
    }
  }
  return {created, unconfirmed, second}
}

/** Unconfirmed bills a file's resume log still holds, by `bills unconfirmed --json`. */
async function unconfirmedOf(file, env) {
  const r = await bk(['bills', 'unconfirmed', file, '--json'], env).done
  if (r.code !== 0) return 0
  return JSON.parse(r.stdout).unconfirmed.length
}

/** Settle and resume each file until none has unconfirmed bills left (a resume meets faults too). */
async function settleAndResume(files, env, log) {
  for (let round = 0; round < 6; round++) {
    let left = 0
    for (const file of files) {
      const settled = await bk(['bills', 'unconfirmed', file, '--settle', '--json'], env).done
      if (settled.code !== 0) log.push(`settle ${file}: exit ${settled.code}: ${why(settled)}`)
      const resumed = await bk(['bills', 'import', file, '--resume', '--json', '--batch-size', String(BATCH)], env).done
      // Exit 6: the resume met faults too and left bills unconfirmed; another round settles them.
      if (resumed.code !== 0 && resumed.code !== 6) log.push(`resume ${file}: exit ${resumed.code}: ${why(resumed)}`)
      left += resumed.code === 0 ? 0 : await unconfirmedOf(file, env)
    }
    if (left === 0) return 0
  }
  return -1
}

/** Duplicated, lost and record mismatches of the keys of `prefix`. */
async function compare(emulator, prefix, expected, recordFolder) {
  const bills = (await emulatorBills(emulator)).filter((b) => String(b.number).startsWith(`${prefix}-`))
  const held = new Map()
  for (const b of bills) {
    const key = b.vendor_id + SEP + b.number
    held.set(key, [...(held.get(key) ?? []), b.id])
  }
  let duplicated = 0
  for (const ids of held.values()) duplicated += ids.length - 1
  let lost = 0
  for (let i = 1; i <= expected; i++) if (!held.has(`${VENDOR}${SEP}${prefix}-${i}`)) lost++
  const record = readRecord(recordFolder)
  let mismatches = record.second + record.unconfirmed.size
  for (const [key, ids] of held) if (!ids.includes(record.created.get(key))) mismatches++
  for (const key of record.created.keys()) if (!held.has(key)) mismatches++
  return {duplicated, lost, mismatches, unconfirmedInRecord: record.unconfirmed.size}
}

/** A failed trial's folder stays, for its journal and record; a good one goes. */
function keepIfFailed(dir, r) {
  if (r.duplicated + r.lost + r.mismatches > 0 || r.log.length > 0) r.log.push(`kept: ${dir}`)
  else rmSync(dir, {recursive: true, force: true})
}

function trialFolder(kind, n) {
  const dir = mkdtempSync(join(tmpdir(), `bk-trial-${kind}-${n}-`))
  const config = join(dir, 'config')
  mkdirSync(join(config, 'created-bills'), {recursive: true})
  return {dir, config, recordFolder: join(config, 'created-bills')}
}

function envFor(emulator, config) {
  return {
    BK_CONFIG_DIR: config,
    BK_BASE_URL: emulator.baseUrl,
    BK_CLIENT_ID: emulator.clientId,
    BK_CLIENT_SECRET: emulator.clientSecret,
    BK_BUSINESS_ID: BUSINESS,
  }
}

async function overlapTrial(emulator, n) {
  const {dir, config, recordFolder} = trialFolder('overlap', n)
  const prefix = `OV${n}`
  const a = join(dir, 'monday.csv')
  const b = join(dir, 'tuesday-export.csv')
  writeFileSync(a, csv(prefix, 1, Math.round(BILLS * 0.75)))
  writeFileSync(b, csv(prefix, Math.round(BILLS * 0.25), BILLS))
  const env = envFor(emulator, config)
  const args = ['--json', '--batch-size', String(BATCH), '--concurrency', '4', '--wait', '900']
  const runs = await Promise.all([
    bk(['bills', 'import', a, ...args], env).done,
    bk(['bills', 'import', b, ...args], env).done,
  ])
  // Exit 6: faults left bills unconfirmed, as they are meant to.
  const log = runs.filter((r) => r.code !== 0 && r.code !== 6).map((r) => `${r.args}: exit ${r.code}: ${why(r)}`)
  const left = await settleAndResume([a, b], env, log)
  const result = {...(await compare(emulator, prefix, BILLS, recordFolder)), unsettled: left < 0, log}
  keepIfFailed(dir, result)
  return result
}

/** Reads what a file gains, line by line, as it grows. */
function tail(file) {
  let offset = 0
  let rest = ''
  return () => {
    let fd
    try {
      fd = openSync(file, 'r')
    } catch {
      return []
    }
    try {
      const lines = []
      const buf = Buffer.alloc(1 << 16)
      for (;;) {
        const got = readSync(fd, buf, 0, buf.length, offset)
        if (got === 0) break
        offset += got
        rest += buf.toString('utf8', 0, got)
      }
      const parts = rest.split('\n')
      rest = parts.pop()
      for (const p of parts) lines.push(p)
      return lines
    } finally {
      closeSync(fd)
    }
  }
}

/**
 * Starts the import and kills it at `step` of batch `target`, watching its resume log and the
 * record. Resolves with what happened: killed or finished first.
 */
function killAt(args, env, files, step, target, latency) {
  const run = bk(args, env)
  const journal = tail(files.journal)
  let recordTail
  const recorded = new Set()
  let keys
  let resulted = false
  let killed = false
  const kill = () => {
    if (killed) return
    killed = true
    run.child.kill('SIGKILL')
  }
  const check = () => {
    if (killed) return
    for (const line of journal()) {
      if (!line.startsWith('{')) continue
      const r = JSON.parse(line)
      if (r.batch !== target) continue
      if (r.t === 'sending') {
        keys = r.keys
        if (step === 0) return kill()
        // The service acts once its latency has passed; the answer then takes a few ms to be recorded.
        if (step === 1) setTimeout(kill, latency + Math.random() * 4)
      }
      if (r.t === 'result') {
        resulted = true
        if (step === 2) return kill()
      }
    }
    recordTail ??= readdirSync(files.recordFolder).find((f) => f.endsWith('.jsonl'))
    if (step === 3 && keys && recordTail) {
      files.record ??= tail(join(files.recordFolder, recordTail))
      for (const line of files.record()) {
        try {
          recorded.add(JSON.parse(line).key)
        } catch {
          // header or a write under way
        }
      }
      if (resulted && keys.every((k) => recorded.has(k))) return kill()
    }
  }
  const watchers = [watch(files.dir, check), watch(files.recordFolder, check)]
  return run.done.then((r) => {
    for (const w of watchers) w.close()
    return {...r, killed}
  })
}

/** Which gaps the kill left open, told from the files and the emulator afterwards. */
async function landedAt(emulator, journalFile, recordFolder) {
  const lines = readFileSync(journalFile, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('{'))
  const sending = new Map()
  const results = new Set()
  const createdKeys = []
  for (const line of lines) {
    let r
    try {
      r = JSON.parse(line)
    } catch {
      continue
    }
    if (r.t === 'sending') sending.set(r.batch, r.keys)
    if (r.t === 'result') {
      results.add(r.batch)
      for (const [key] of r.created) createdKeys.push(key)
    }
  }
  const held = new Set((await emulatorBills(emulator)).map((b) => b.vendor_id + SEP + b.number))
  const record = readRecord(recordFolder)
  const gaps = new Set()
  for (const [batch, keys] of sending) {
    if (results.has(batch)) continue
    gaps.add(keys.some((k) => held.has(k)) ? 'acted, no result' : 'sending, not acted')
  }
  if (createdKeys.some((k) => !record.created.has(k))) gaps.add('result, not in record')
  if (gaps.size === 0) gaps.add('all recorded')
  return [...gaps].join(' + ')
}

async function killTrial(emulator, n, latency) {
  const {dir, config, recordFolder} = trialFolder('kill', n)
  const prefix = `KL${n}`
  const file = join(dir, 'bills.csv')
  writeFileSync(file, csv(prefix, 1, BILLS))
  const env = envFor(emulator, config)
  const step = process.env.TRIALS_STEP ? Number(process.env.TRIALS_STEP) : n % KILL_STEPS.length
  // Batches are spread over the run: the kill lands early, midway or late.
  const batches = Math.ceil(BILLS / BATCH)
  const target = 1 + Math.floor(Math.random() * Math.max(1, batches - 1))
  const files = {dir, recordFolder, journal: `${file}.bk-journal`}
  const run = await killAt(
    ['bills', 'import', file, '--json', '--batch-size', String(BATCH), '--concurrency', '2'],
    env,
    files,
    step,
    target,
    latency,
  )
  const log = []
  const landed = run.killed ? await landedAt(emulator, files.journal, recordFolder) : 'finished first'
  if (!run.killed && run.code !== 0) log.push(`import: exit ${run.code}: ${why(run)}`)
  const left = await settleAndResume([file], env, log)
  const result = {...(await compare(emulator, prefix, BILLS, recordFolder)), unsettled: left < 0, log}
  keepIfFailed(dir, result)
  return {...result, aimed: `${KILL_STEPS[step]} of batch ${target}`, landed}
}

function line(kind, n, r, extra = '') {
  const flags = [r.unsettled ? ' UNSETTLED' : '', ...r.log.map((l) => `\n    ${l}`)].join('')
  console.log(
    `${kind} ${String(n).padStart(2)}: duplicated ${r.duplicated}, lost ${r.lost}, record mismatches ${r.mismatches}${extra}${flags}`,
  )
}

async function main() {
  console.log(
    `load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; ${BILLS} bills a trial, batches of ${BATCH}`,
  )
  const totals = {overlap: {duplicated: 0, lost: 0, mismatches: 0}, kill: {duplicated: 0, lost: 0, mismatches: 0}}
  const add = (t, r) => {
    t.duplicated += r.duplicated
    t.lost += r.lost
    t.mismatches += r.mismatches
  }
  if (OVERLAP > 0) {
    const emulator = await startEmulatorProcess([
      '--latency',
      '20',
      '--fault-rate',
      '0.05',
      '--fault-kinds',
      'reset-before,reset-after,commit-5xx',
      '--fault-seed',
      String(Date.now() % 100000),
    ])
    try {
      for (let n = 1; n <= OVERLAP; n++) {
        const r = await overlapTrial(emulator, n)
        add(totals.overlap, r)
        line('overlap', n, r)
      }
    } finally {
      await emulator.stop()
    }
  }
  if (KILL > 0) {
    const latency = 30
    const emulator = await startEmulatorProcess(['--latency', String(latency)])
    try {
      for (let n = 1; n <= KILL; n++) {
        const r = await killTrial(emulator, n, latency)
        add(totals.kill, r)
        line('kill', n, r, `; aimed ${r.aimed}, landed: ${r.landed}`)
      }
    } finally {
      await emulator.stop()
    }
  }
  for (const [kind, t] of Object.entries(totals))
    console.log(`total ${kind}: duplicated ${t.duplicated}, lost ${t.lost}, record mismatches ${t.mismatches}`)
  console.log(
    `load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  )
  const bad = Object.values(totals).some((t) => t.duplicated + t.lost + t.mismatches > 0)
  process.exit(bad ? 1 : 0)
}

await main()
