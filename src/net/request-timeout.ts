/**
 * How long a request may wait for the service's answer: BK_TIMEOUT, in seconds (default 30).
 * A slow link or a big page may need more; a CI job that would rather fail fast, less. A value
 * bk cannot read is refused before anything is sent, rather than quietly replaced by the default.
 */
import {InputError} from '../shared/errors.js'

export const DEFAULT_TIMEOUT_SECONDS = 30
/** A day: longer than any answer worth waiting for, short of "never". */
const MAX_TIMEOUT_SECONDS = 86_400

/**
 * BK_TIMEOUT in milliseconds, or `defaultSeconds` when unset (a quick check may wait less than a
 * command); throws InputError naming the value when unusable.
 */
export function requestTimeoutMs(
  env: NodeJS.ProcessEnv = process.env,
  defaultSeconds = DEFAULT_TIMEOUT_SECONDS,
): number {
  const raw = env.BK_TIMEOUT
  if (raw === undefined || raw.trim() === '') return defaultSeconds * 1000
  const value = raw.trim()
  const seconds = /^\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN
  if (!(seconds > 0 && seconds <= MAX_TIMEOUT_SECONDS))
    throw new InputError(
      `Invalid BK_TIMEOUT "${raw}": expected a number of seconds greater than 0 and at most ${MAX_TIMEOUT_SECONDS}`,
      {
        code: 'invalid_timeout',
        hint: `Set BK_TIMEOUT to seconds, e.g. BK_TIMEOUT=60, or unset it for the default (${DEFAULT_TIMEOUT_SECONDS}).`,
      },
    )
  return Math.round(seconds * 1000)
}

/** `30 s`, `1.5 s`: a timeout as the messages say it. */
export function formatTimeout(ms: number): string {
  return `${ms / 1000} s`
}
