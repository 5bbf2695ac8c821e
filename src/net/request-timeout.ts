/**
 * How long a request may wait for the service's answer: BK_TIMEOUT, in seconds (default 30).
 * A slow link or a big page may need more; a CI job that would rather fail fast, less. A value
 * bk cannot read is refused before anything is sent, rather than quietly replaced by the default.
 */
import {timeLimitFromEnv} from '../shared/time-limit-variable.js'

export const DEFAULT_TIMEOUT_SECONDS = 30

/**
 * BK_TIMEOUT in milliseconds, or `defaultSeconds` when unset (a quick check may wait less than a
 * command); throws InputError naming the value when unusable.
 */
export function requestTimeoutMs(
  env: NodeJS.ProcessEnv = process.env,
  defaultSeconds = DEFAULT_TIMEOUT_SECONDS,
): number {
  const seconds = timeLimitFromEnv(env, {
    name: 'BK_TIMEOUT',
    unit: 'seconds',
    defaultValue: defaultSeconds,
    example: 60,
  })
  return Math.round(seconds * 1000)
}

/** `30 s`, `1.5 s`: a timeout as the messages say it. */
export function formatTimeout(ms: number): string {
  return `${ms / 1000} s`
}
