// One bk run as a user runs it (bin/run.js over the build, in a process of its own), timed end to
// end, with its peak RSS polled from /proc.
import {spawn} from 'node:child_process'
import {dirname, join} from 'node:path'
import {performance} from 'node:perf_hooks'
import {fileURLToPath} from 'node:url'

import {watchPeakRss} from './peak-rss.js'

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'run.js')

/** Runs `bk ARGS` with `env` over this process's environment; throws unless it exits 0. */
export async function runBk(args, env) {
  const started = performance.now()
  const child = spawn(process.execPath, [bin, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {...process.env, ...env},
  })
  const rss = watchPeakRss(child.pid)
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => (stdout += d))
  child.stderr.on('data', (d) => (stderr += d))
  const code = await new Promise((resolve) => child.once('close', resolve))
  const peakMb = rss.stop()
  const ms = performance.now() - started
  if (code !== 0) throw new Error(`bk ${args.join(' ')} exited with ${code}: ${stderr}`)
  return {ms, peakMb, stdout}
}
