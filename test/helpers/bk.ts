/**
 * Runs the real `bk` binary as users run it, bin/run.js over the bundle (dist/bk.cjs, built by
 * `npm test`), as a child process with its own config folder and a clean environment: no TTY, no
 * inherited BK_* variables. Its code cache is the suite's, shared by every run as a user's runs
 * share theirs (test/helpers/suite-code-cache.ts); test/startup covers the cache itself.
 */
import {spawn, type ChildProcessWithoutNullStreams} from 'node:child_process'
import {copyFileSync, constants, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {delimiter, join, resolve} from 'node:path'

import {inject} from 'vitest'

export const ROOT = resolve(import.meta.dirname, '..', '..')
export const BIN = join(ROOT, 'bin', 'run.js')

export interface BkResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export interface RunOptions {
  env?: Record<string, string | undefined>
  /** Text written to stdin (stdin is closed either way). */
  input?: string | Buffer
  configDir?: string
  cwd?: string
  timeoutMs?: number
  /** A command that runs bk (test/helpers/network.ts: `withHosts`). */
  prefix?: string[]
  /** The script node runs (default bin/run.js). */
  entry?: string
  /** A bk executable to run instead of node with `entry` (the single executable, an installed bk). */
  executable?: string
}

/** Folders made by tempDir in this test file; test/helpers/cleanup.ts removes them after it. */
const made: string[] = []

export function tempDir(prefix = 'bk-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  made.push(dir)
  return dir
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, {recursive: true, force: true})
}

/** Variables that route or trust connections: a test sets them itself, or they are unset. */
const NETWORK_ENV = /^(https?_proxy|no_proxy|all_proxy|NODE_EXTRA_CA_CERTS)$/i

/**
 * The environment bk runs with: the parent's minus every BK_* variable, CI, GitHub Actions' GITHUB_*
 * (annotations and progress lines would join stderr) and the proxy and CA variables, plus `extra`.
 */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('BK_') && !k.startsWith('GITHUB_') && k !== 'CI' && !NETWORK_ENV.test(k)) env[k] = v
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k]
    else env[k] = v
  }
  return env
}

export function runBk(args: string[], options: RunOptions = {}): Promise<BkResult> {
  return collect(spawnBk(args, options), options)
}

/**
 * Starts bk (node with bin/run.js, or `options.executable`) in its clean environment with its own
 * config folder, and hands back the child, for a test that talks to it while it runs (reads
 * its first line, sends SIGINT, closes its stdout). stdin is a pipe the caller ends.
 */
export function spawnBk(args: string[], options: RunOptions = {}): ChildProcessWithoutNullStreams {
  const bk = options.executable ? [options.executable] : [process.execPath, options.entry ?? BIN]
  const [command, ...rest] = [...(options.prefix ?? []), ...bk, ...args]
  return spawnIn(command as string, rest, options)
}

/**
 * Starts bk as `spawnBk` does and collects its output as it comes: the child (to signal it),
 * `stderr()` so far (to wait on a line), and `done`, its result once it has exited.
 */
export function startBk(
  args: string[],
  options: RunOptions = {},
): {child: ChildProcessWithoutNullStreams; stderr: () => string; done: Promise<BkResult>} {
  const child = spawnBk(args, options)
  let stderr = ''
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  return {child, stderr: () => stderr, done: collect(child, options)}
}

/**
 * Runs one shell command line through bash (or `shell`), as a user types it (pipes, quotes, `#`
 * comments), with a `bk` on PATH that runs bin/run.js: for examples written in the docs, and the
 * commands bk prints to copy.
 */
export function runShellLine(line: string, options: RunOptions = {}, shell: 'bash' | 'sh' = 'bash'): Promise<BkResult> {
  const path = [bkOnPath(), process.env.PATH].filter(Boolean).join(delimiter)
  const withPath = {...options, env: {PATH: path, ...options.env}}
  return collect(spawnIn(shell, ['-c', line], withPath), withPath)
}

/** A folder holding an executable `bk` that runs this checkout's bin/run.js with this node. */
let bkFolder: string | undefined
function bkOnPath(): string {
  if (bkFolder) return bkFolder
  const dir = tempDir('bk-path-')
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`
  writeFileSync(join(dir, 'bk'), `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(BIN)} "$@"\n`, {mode: 0o755})
  return (bkFolder = dir)
}

/** Variables that move bk's config or cache folders, or turn its code cache off. */
const CACHE_ENV = ['BK_CACHE_DIR', 'BK_CODE_CACHE', 'BK_CONFIG_DIR', 'HOME', 'XDG_CACHE_HOME', 'XDG_CONFIG_HOME']

/**
 * The suite's code cache for a run in `configDir`: its folder, and its key copied into the config
 * folder (unless one is there). None for a run that places its folders itself (the tests of the
 * cache and of start-up), nor for the single executable, which keeps its files in that folder.
 */
function sharedCodeCache(configDir: string, options: RunOptions): Record<string, string> {
  if (options.executable || CACHE_ENV.some((name) => options.env?.[name] !== undefined)) return {}
  const {cacheDir, keyFile} = inject('suiteCodeCache')
  try {
    copyFileSync(keyFile, join(configDir, 'code-cache.key'), constants.COPYFILE_EXCL)
  } catch (error) {
    // One is there already, or the folder is not made yet (bk makes its own key there).
    if (!['EEXIST', 'ENOENT'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error
  }
  return {BK_CACHE_DIR: cacheDir}
}

/** Spawns `command` in bk's clean environment (its own config folder unless given one). */
function spawnIn(command: string, args: string[], options: RunOptions): ChildProcessWithoutNullStreams {
  const configDir = options.configDir ?? tempDir()
  const cache = sharedCodeCache(configDir, options)
  return spawn(command, args, {
    cwd: options.cwd ?? ROOT,
    env: cleanEnv({BK_CONFIG_DIR: configDir, BK_KEYCHAIN_TIMEOUT_MS: '5000', ...cache, ...options.env}),
    stdio: ['pipe', 'pipe', 'pipe'],
  })
}

/** Collects a child's exit and output, its stdin given `options.input` and ended. */
function collect(child: ChildProcessWithoutNullStreams, options: RunOptions): Promise<BkResult> {
  return new Promise((resolvePromise, reject) => {
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 100_000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolvePromise({code, signal, stdout, stderr})
    })
    child.stdin.end(options.input ?? '')
  })
}

/**
 * The bundle run directly, as bin/run.js runs it when it has no answer of its own (--version, a
 * command's help for a program): oclif's own output, to compare bin/run.js's answers with.
 */
export function runBundle(args: string[], env: Record<string, string | undefined> = {}): Promise<BkResult> {
  const entry = join(tempDir(), 'bundle.cjs')
  writeFileSync(entry, `require(${JSON.stringify(join(ROOT, 'dist', 'bk.cjs'))}).main(${JSON.stringify(ROOT)})\n`)
  return runBk(args, {entry, env: {BK_CACHE_DIR: tempDir(), ...env}})
}

/** Parses stdout as exactly one JSON document, failing the test otherwise. */
export function parseJsonOutput<T = unknown>(result: BkResult): T {
  try {
    return JSON.parse(result.stdout) as T
  } catch {
    throw new Error(`stdout is not one JSON document:\n${result.stdout}\nstderr:\n${result.stderr}`)
  }
}
