/**
 * Every error ends with its next step (docs/output.md, "Errors"): one thrown without a hint of its
 * own gets the one its kind calls for, so that no message leaves a user without one.
 */
import {ExitCode, withHint, type BkError} from '../shared/errors.js'

const BY_EXIT_CODE: Partial<Record<ExitCode, (command: string) => string>> = {
  [ExitCode.usage]: (command) => `\`bk ${command} --help\` shows its arguments, flags and examples.`,
  [ExitCode.notFound]: () =>
    'Check the id, and that it belongs to the business the command used (`bk auth status` shows which; --business changes it).',
  [ExitCode.rejected]: () =>
    'The service refused the request as sent: change what the error names and run the command again.',
}

/** `error`, with the hint of its kind when it has none of its own. */
export function withFallbackHint(error: BkError, command: string): BkError {
  const hint = error.hint ? undefined : BY_EXIT_CODE[error.exitCode]?.(command)
  return hint ? withHint(error, hint) : error
}
