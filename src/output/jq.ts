/**
 * `--jq EXPR`: the JSON result filtered by jq itself (jq 1.8 compiled to WebAssembly, the
 * jq-wasm package), loaded only when --jq is given. jq reads the result as JSON text, so number
 * literals come out as the service wrote them. Strings print raw, as with `jq -r` (and gh's
 * --jq); other values as jq prints them.
 */
import {InputError} from '../shared/errors.js'

export interface JqFilter {
  /** jq's output for this JSON text, or its error message. */
  run(jsonText: string): {ok: true; text: string} | {ok: false; message: string}
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

/**
 * Loads jq and tries EXPR on `null` before any request is made: an expression jq cannot compile
 * is a usage error naming it. jq filters are pure, so the trial has no effect; an error at run
 * time on `null` (`keys`) says nothing about the real result and is not reported.
 */
export async function loadJqFilter(expression: string): Promise<JqFilter> {
  const {loadJq} = await import('jq-wasm')
  const jq = await loadJq()
  const check = jq.raw('null', expression)
  if (check.exitCode === COMPILE_ERROR) {
    throw new InputError(`--jq: ${jqMessage(check.stderr)}`, {
      hint: 'Check the expression: see https://jqlang.org/manual/ (quote it for your shell).',
      details: {flag: '--jq', value: expression},
    })
  }
  return {
    run(jsonText) {
      const result = jq.raw(jsonText, expression, ['-r'])
      if (result.exitCode !== 0)
        return {ok: false, message: jqMessage(result.stderr) || `jq exited with ${result.exitCode}`}
      return {ok: true, text: result.stdout === '' ? '' : result.stdout + '\n'}
    },
  }
}
