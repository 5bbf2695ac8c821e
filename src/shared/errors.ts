/**
 * The one error shape of bk and its exit codes (README "Exit codes"). Every failure a user can
 * meet is a BkError; BaseCommand.catch prints it as one line plus a hint, or as JSON.
 */
export const ExitCode = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  rejected: 5,
  partial: 6,
  unavailable: 7,
  invalidSignature: 8,
  /** A file bk must write could not be (ENOSPC, EFBIG, EDQUOT): what was done is in the summary. */
  diskFull: 9,
  interrupted: 130,
} as const
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode]

export interface BkErrorOptions {
  /** A stable machine-readable name, e.g. `invalid_input`; printed as `code` with --json. */
  code?: string
  exitCode?: ExitCode
  /** What to do next, ideally the exact command to run. */
  hint?: string
  details?: unknown
  cause?: unknown
}

export class BkError extends Error {
  readonly code: string
  readonly exitCode: ExitCode
  readonly hint: string | undefined
  readonly details: unknown

  constructor(message: string, options: BkErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : {cause: options.cause})
    this.name = new.target.name
    this.code = options.code ?? 'error'
    this.exitCode = options.exitCode ?? ExitCode.unexpected
    this.hint = options.hint
    this.details = options.details
  }
}

/** `error` as it was, with `hint` as its next step (a hint found later than the error was thrown). */
export function withHint(error: BkError, hint: string): BkError {
  return new BkError(error.message, {
    code: error.code,
    exitCode: error.exitCode,
    hint,
    details: error.details,
    cause: error.cause,
  })
}

/** Bad flags or invalid local input (a file, row, line or value): nothing was sent. */
export class InputError extends BkError {
  constructor(message: string, options: Omit<BkErrorOptions, 'exitCode'> = {}) {
    super(message, {code: 'invalid_input', ...options, exitCode: ExitCode.usage})
  }
}

/** Credentials or configuration are missing or unusable before any request is made. */
export class ConfigError extends BkError {
  constructor(message: string, options: Omit<BkErrorOptions, 'exitCode'> = {}) {
    super(message, {code: 'config', ...options, exitCode: ExitCode.auth})
  }
}

/** The user (or a signal) stopped the command. */
export class InterruptedError extends BkError {
  constructor(message = 'Interrupted', options: Omit<BkErrorOptions, 'exitCode'> = {}) {
    super(message, {code: 'interrupted', ...options, exitCode: ExitCode.interrupted})
  }
}
