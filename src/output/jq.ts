/**
 * `--jq EXPR`: the JSON result filtered by jq itself (jq 1.8 compiled to WebAssembly, the
 * jq-wasm package), loaded only when --jq is given. jq reads the result as JSON text, so number
 * literals come out as the service wrote them. Strings print raw, as with `jq -r` (and gh's
 * --jq); other values as jq prints them.
 *
 * jq is a full language: `until(false; .)` never ends and `repeat(.)` grows without bound. So
 * it runs in a worker thread that can be stopped: V8 bounds the worker's heap (resourceLimits;
 * jq's own WebAssembly heap stops at 256 MB), and a run that outlasts its time limit (30 s, or
 * BK_JQ_TIMEOUT_MS) has its worker terminated and ends in exit 2 "the --jq program did not
 * finish", never a hang. The worker starts while the command parses its flags, and the
 * program's syntax is checked there before any request, without running it.
 */
import {fileURLToPath} from 'node:url'
import {MessageChannel, receiveMessageOnPort, Worker, type MessagePort} from 'node:worker_threads'

import {InputError} from '../shared/errors.js'
import {timeLimitFromEnv} from '../shared/time-limit-variable.js'

export interface JqFilter {
  /** jq's output for this JSON text, or the error (with its hint) to print on stderr. */
  run(jsonText: string): {ok: true; text: string} | {ok: false; error: InputError}
}

/** jq's message without its `jq: ` prefixes and its compile-error count line. */
function jqMessage(stderr: string): string {
  return stderr
    .split('\n')
    .filter((line) => line.trim() && !/^jq: \d+ compile errors?$/.test(line))
    .map((line) => line.replace(/^jq: (error: )?/, '').replace(/^error \(at [^)]*\): /, ''))
    .join('\n')
}

/** jq's exit code for an expression it cannot compile (runtime errors exit 5). */
const COMPILE_ERROR = 3
/** How long one run of the program may take, by default. */
const DEFAULT_TIME_LIMIT_MS = 30_000
/** How long loading jq in the worker may take (compiling its WebAssembly on a busy machine). */
const LOAD_LIMIT_MS = 60_000
/** The worker's JavaScript heap, where jq's output is gathered. */
const HEAP_LIMIT_MB = 256
/** The exit code the worker gives a run that threw (jq's WebAssembly aborted). */
const ABORTED = -1

interface JqResult {
  stdout: string
  stderr: string
  exitCode: number
}

/**
 * The worker: loads jq and says so, then answers each {seq, input, query, flags} with jq's
 * result, and then writes `seq` to the shared flag so that the main thread, waiting on it,
 * wakes (the message is on the port by then).
 */
const WORKER_SOURCE = `
const {workerData} = require('node:worker_threads')
const {loadJq} = require(workerData.jq)
const port = workerData.port
const flag = new Int32Array(workerData.flag)
loadJq().then(
  (jq) => {
    port.on('message', ({seq, input, query, flags}) => {
      let result
      try {
        result = jq.raw(input, query, flags)
      } catch (error) {
        result = {stdout: '', stderr: String((error && error.message) || error), exitCode: -1}
      }
      port.postMessage(result)
      Atomics.store(flag, 0, seq)
      Atomics.notify(flag, 0)
    })
    port.postMessage({ready: true})
  },
  (error) => port.postMessage({ready: false, message: String((error && error.message) || error)}),
)
`

function timeLimitMs(env: NodeJS.ProcessEnv): number {
  return timeLimitFromEnv(env, {
    name: 'BK_JQ_TIMEOUT_MS',
    unit: 'milliseconds',
    defaultValue: DEFAULT_TIME_LIMIT_MS,
    example: 60_000,
  })
}

/** jq in a worker thread, asked synchronously: the caller blocks until the answer or the time limit. */
class JqWorker {
  private readonly flag = new Int32Array(new SharedArrayBuffer(4))
  private readonly port: MessagePort
  private readonly worker: Worker
  private stopped = false
  /** The number of the last request; the worker writes it to `flag` once it has answered. */
  private seq = 0

  constructor() {
    const {port1, port2} = new MessageChannel()
    this.port = port1
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {jq: fileURLToPath(import.meta.resolve('jq-wasm')), port: port2, flag: this.flag.buffer},
      transferList: [port2],
      resourceLimits: {maxOldGenerationSizeMb: HEAP_LIMIT_MB},
      stdout: true,
      stderr: true,
    })
    // A worker that dies (its heap limit) is seen as a run that does not finish.
    this.worker.on('error', () => {})
  }

  /** Waits (without blocking the event loop) until jq is loaded. */
  async ready(): Promise<void> {
    const answer = await new Promise<{ready: boolean; message?: string}>((resolve) => {
      const timer = setTimeout(() => resolve({ready: false, message: 'it did not start in time'}), LOAD_LIMIT_MS)
      const settle = (message: {ready: boolean; message?: string}) => {
        clearTimeout(timer)
        this.worker.off('exit', exited)
        resolve(message)
      }
      const exited = (code: number) => settle({ready: false, message: `its worker exited (${code})`})
      this.port.once('message', settle)
      this.worker.once('exit', exited)
    })
    // Loaded, the worker no longer keeps bk running: runs are waited for synchronously.
    this.worker.unref()
    this.port.unref()
    if (!answer.ready) {
      this.stop()
      throw new Error(`jq could not be loaded: ${answer.message ?? 'unknown error'}`)
    }
  }

  /** jq's result, or undefined when it did not finish within `limitMs` (the worker is then stopped). */
  run(input: string, query: string, flags: string[], limitMs: number): JqResult | undefined {
    if (this.stopped) return undefined
    const seq = ++this.seq
    this.port.postMessage({seq, input, query, flags})
    const deadline = Date.now() + limitMs
    for (let seen = Atomics.load(this.flag, 0); seen !== seq; seen = Atomics.load(this.flag, 0)) {
      const left = deadline - Date.now()
      if (left <= 0) {
        this.stop()
        return undefined
      }
      Atomics.wait(this.flag, 0, seen, left)
    }
    const result = receiveMessageOnPort(this.port)?.message as JqResult | undefined
    // jq's WebAssembly aborts when its heap is full (`[range(1e12)]`): that instance is spent, and
    // a worker left holding it keeps bk from exiting. Out of memory is a run that did not finish.
    if (result?.exitCode === ABORTED) {
      this.stop()
      return undefined
    }
    return result
  }

  stop(): void {
    this.stopped = true
    void this.worker.terminate()
  }
}

/**
 * Starts jq in its worker and checks EXPR's syntax before any request is made: an expression jq
 * cannot compile is a usage error naming it. The check compiles EXPR behind `empty |`, so jq
 * never runs it; only when that wrapping is what fails to compile (a comment ending in `\`, an
 * `import`) is EXPR compiled alone, which runs it once on `null` within the time limit.
 */
export async function loadJqFilter(expression: string, env: NodeJS.ProcessEnv = process.env): Promise<JqFilter> {
  const limitMs = timeLimitMs(env)
  const jq = new JqWorker()
  await jq.ready()
  const unfinished = (): InputError =>
    new InputError(
      `the --jq program did not finish within ${limitMs / 1000} s or ran out of memory; nothing was printed`,
      {
        code: 'jq_unfinished',
        hint: 'Check the program for a loop that never ends (until, repeat, recurse); BK_JQ_TIMEOUT_MS sets the time limit.',
        details: {flag: '--jq', value: expression},
      },
    )
  let check = jq.run('null', `empty | (\n${expression}\n)`, [], limitMs)
  if (check?.exitCode === COMPILE_ERROR) check = jq.run('null', expression, [], limitMs)
  if (!check) throw unfinished()
  if (check.exitCode === COMPILE_ERROR) {
    jq.stop()
    throw new InputError(`--jq: ${jqMessage(check.stderr)}`, {
      hint: 'Check the expression: see https://jqlang.org/manual/ (quote it for your shell).',
      details: {flag: '--jq', value: expression},
    })
  }
  return {
    run(jsonText) {
      const result = jq.run(jsonText, expression, ['-r'], limitMs)
      if (!result) return {ok: false, error: unfinished()}
      if (result.exitCode !== 0)
        return {
          ok: false,
          error: new InputError(`--jq: ${jqMessage(result.stderr) || `jq exited with ${result.exitCode}`}`, {
            hint: 'The expression failed on this result: run the command with --json instead of --jq to see what it was given.',
          }),
        }
      return {ok: true, text: result.stdout === '' ? '' : result.stdout + '\n'}
    },
  }
}
