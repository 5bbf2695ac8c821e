// One bk run as a user runs it (bin/run.js over the build, in a process of its own), timed end to
// end, with its peak RSS polled from /proc.
import {spawn} from 'node:child_process'
import {dirname, join} from 'node:path'
import {performance} from 'node:perf_hooks'
import {fileURLToPath} from 'node:url'

import {watchPeakRss} from './peak-rss.js'

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'run.js')

/**
 * Runs `bk ARGS` with `env` over this process's environment (and `cwd`, if given), whatever its
 * exit: its code, output, time and peak RSS.
 */
export function runBkTimed(args, env = {}, cwd = undefined) {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, [bin, ...args], {
      cwd,
      env: {...process.env, ...env},
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const rss = watchPeakRss(child.pid)
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({code, stdout, stderr, ms: performance.now() - started, peakMb: rss.stop()}))
  })
}

/** Runs bk in `dir`, with `dir` as its config folder too: a bench's own scratch folder. */
export function runBkIn(dir, args, env = {}) {
  return runBkTimed(args, {BK_CONFIG_DIR: dir, ...env}, dir)
}

/** Runs `bk ARGS` with `env` over this process's environment; throws unless it exits 0. */
export async function runBk(args, env) {
  const {code, stderr, ms, peakMb, stdout} = await runBkTimed(args, env)
  if (code !== 0) throw new Error(`bk ${args.join(' ')} exited with ${code}: ${stderr}`)
  return {ms, peakMb, stdout}
}
