/**
 * BK_DEBUG, the environment's --debug: on for `1`, `true`, `yes` or `on`, off for `0`, `false`,
 * `no`, `off` or empty, in any case. Anything else is refused (exit 2), naming the value, as bk's
 * time limits are (src/shared/time-limit-variable.ts): a trace asked for and not given, without a
 * word, would look like a run with nothing to trace.
 */
import {InputError} from '../shared/errors.js'

const ON = ['1', 'true', 'yes', 'on']
const OFF = ['', '0', 'false', 'no', 'off']

/** Whether BK_DEBUG turns the HTTP traces on. */
export function debugFromEnv(env: NodeJS.ProcessEnv): boolean {
  const raw = env.BK_DEBUG
  if (raw === undefined) return false
  const value = raw.trim().toLowerCase()
  if (ON.includes(value)) return true
  if (OFF.includes(value)) return false
  throw new InputError(`Invalid BK_DEBUG "${raw}": expected 1 (trace HTTP requests) or 0`, {
    code: 'invalid_debug',
    hint: 'Set BK_DEBUG=1 to trace requests on stderr, as --debug does, or unset it.',
    details: {variable: 'BK_DEBUG', value: raw},
  })
}
