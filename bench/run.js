#!/usr/bin/env node
// Runs every bench/*.bench.js in turn (or those named on the command line, e.g.
// `npm run bench -- startup`). Each prints its own figures as ratios against a baseline
// measured in the same run, since these machines are noisy.
import {spawnSync} from 'node:child_process'
import {readdirSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const only = process.argv.slice(2)
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.js'))
  .filter((f) => only.length === 0 || only.some((o) => f.startsWith(o)))
  .sort((a, b) => (a.startsWith('startup') ? -1 : b.startsWith('startup') ? 1 : a.localeCompare(b)))

// Other Node binaries (colon-separated paths; `scripts/node-binary.sh 22` prints one): the start-up
// bench compares them itself; every other bench runs again on each, bk and its baseline alike.
const others = (process.env.BENCH_NODES ?? '').split(':').filter(Boolean)

let failed = 0
for (const file of files) {
  for (const node of file.startsWith('startup') ? [process.execPath] : [process.execPath, ...others]) {
    const version = spawnSync(node, ['--version'], {encoding: 'utf8'}).stdout.trim()
    console.log(`\n=== ${file}${others.length > 0 ? ` (Node ${version})` : ''}`)
    const res = spawnSync(node, ['--expose-gc', join(here, file)], {stdio: 'inherit'})
    if (res.status !== 0) {
      failed++
      console.log(`!!! ${file} on Node ${version} exited with ${res.status ?? res.signal}`)
    }
  }
}
process.exit(failed ? 1 : 0)
