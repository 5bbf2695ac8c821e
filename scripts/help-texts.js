#!/usr/bin/env node
// The help of every command and topic as oclif prints it to a program (stdout not a terminal: 80
// columns, no colour), written to dist/help.json at build time, so that bin/run.js can print
// `bk COMMAND --help` for a program without starting oclif, as it answers --version. Each text is
// what bk itself printed, run as a user runs it: the file is oclif's output, not a second
// rendering of it (test/startup/help.test.ts checks every text against oclif's).
import {execFileSync, spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = join(root, 'dist', 'help.json')
const {commands} = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8'))

// Every command, and every topic above one (`bills import` is both).
const ids = new Set()
for (const id of Object.keys(commands)) {
  const parts = id.split(':')
  for (let i = 1; i <= parts.length; i++) ids.add(parts.slice(0, i).join(' '))
}

// What oclif reads to render help: none of it set, as for a program that sets none (bin/run.js
// prints these texts only then).
const env = {}
for (const [k, v] of Object.entries(process.env)) if (!/^(BK_|OCLIF_|FORCE_COLOR$|DEBUG$|NO_COLOR$)/.test(k)) env[k] = v
const cache = mkdtempSync(join(tmpdir(), 'bk-help-'))
env.BK_CACHE_DIR = cache
// bin/run.js must render each text with oclif, not print the last build's.
rmSync(out, {force: true})

function helpOf(id) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'bin', 'run.js'), ...id.split(' '), '--help'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => {
      if (code !== 0 || stderr) reject(new Error(`bk ${id} --help: exit ${code}, ${stderr}`))
      else resolve([id, stdout])
    })
  })
}

// oclif's root help shows this line (`bk help --help` prints it too): bk, the platform and the
// Node version, which a text rendered here must not carry to another machine.
const userAgent = execFileSync(process.execPath, [join(root, 'bin', 'run.js'), '--version'], {env})
  .toString()
  .trim()

try {
  const texts = {}
  const queue = [...ids].sort()
  // Two at a time, as the machine has two cores.
  const worker = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      const [key, text] = await helpOf(id)
      if (!text.includes(userAgent)) texts[key] = text
    }
  }
  await Promise.all([worker(), worker()])
  const sorted = Object.fromEntries(
    Object.keys(texts)
      .sort()
      .map((k) => [k, texts[k]]),
  )
  // Rendered here; Windows renders multi-line examples with another continuation character.
  const platform = process.platform === 'win32' ? 'win32' : 'posix'
  writeFileSync(out, JSON.stringify({platform, texts: sorted}) + '\n')
  console.log(`wrote dist/help.json (${Object.keys(sorted).length} texts)`)
} finally {
  rmSync(cache, {recursive: true, force: true})
}
