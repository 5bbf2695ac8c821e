/**
 * Time limits set in the environment: BK_TIMEOUT (seconds), BK_JQ_TIMEOUT_MS and
 * BK_KEYCHAIN_TIMEOUT_MS (milliseconds). A value bk cannot read is refused (exit 2), naming the
 * variable and the value, rather than silently replaced by the default: `BK_TIMEOUT=5s` or
 * `BK_JQ_TIMEOUT_MS=-1` is a slip the user would want to hear about.
 */
import {InputError} from './errors.js'

export interface TimeLimitVariable {
  name: string
  unit: 'seconds' | 'milliseconds'
  /** Taken when the variable is unset or empty. */
  defaultValue: number
  /** A value the hint suggests. */
  example: number
}

/** A day: longer than anything worth waiting for, short of "never". */
const DAY_SECONDS = 86_400

/** The variable's value in its own unit: the default when unset, a number above 0 and at most a day when set. */
export function timeLimitFromEnv(env: NodeJS.ProcessEnv, variable: TimeLimitVariable): number {
  const {name, unit, defaultValue, example} = variable
  const raw = env[name]
  if (raw === undefined || raw.trim() === '') return defaultValue
  const max = unit === 'seconds' ? DAY_SECONDS : DAY_SECONDS * 1000
  const text = raw.trim()
  const value = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN
  if (!(value > 0 && value <= max))
    throw new InputError(`Invalid ${name} "${raw}": expected a number of ${unit} greater than 0 and at most ${max}`, {
      code: 'invalid_timeout',
      hint: `Set ${name} to ${unit}, e.g. ${name}=${example}, or unset it for the default (${defaultValue}).`,
      details: {variable: name, value: raw},
    })
  return value
}
