/**
 * The one class every command extends: parses once in init(), resolves the profile and opens
 * the API session on first use, asks for confirmation, and maps every error to one line (or one
 * JSON document) and its exit code. Heavy modules load lazily so that start-up stays fast.
 */
import {Command} from '@oclif/core/command'
import * as Errors from '@oclif/core/errors'
import * as Flags from '@oclif/core/flags'
import type * as Interfaces from '@oclif/core/interfaces'
import {ux} from '@oclif/core/ux'

import {BkError, ExitCode, InputError, InterruptedError, withHint} from '../shared/errors.js'
import {JsonText, stringifyExact} from '../shared/exact-json.js'
import {snakeCaseKeys} from '../shared/json-keys.js'
import {warnIfNodeUnsupported} from './node-version.js'
import {requestTimeoutMs} from '../net/request-timeout.js'
import {debugFromEnv} from './debug-variable.js'
import {isUsageError, refuseBothForms, unwrapFlagError, usageError, type UsageContext} from './usage-errors.js'
import type {Session} from '../auth/session.js'
import type {ResolvedCredentials} from '../auth/resolve.js'
import {ID_PREFIX} from '../shared/spec.js'
import type {JqFilter} from '../output/jq.js'
import type {FieldInfo} from '../output/field-paths.js'

/** What a bare --fields prints with --json. */
export interface FieldsListing {
  fields: string[]
}

/**
 * `--fields` with no value (last, or before another flag) becomes `--fields=`: the request for
 * the list of fields, which oclif would otherwise refuse as a flag missing its value.
 */
export function withBareFields(argv: readonly string[]): string[] {
  const end = argv.indexOf('--')
  return argv.map((arg, i) =>
    arg === '--fields' && (end === -1 || i < end) && (i === argv.length - 1 || argv[i + 1]?.startsWith('-'))
      ? '--fields='
      : arg,
  )
}

export type CommandFlags<T extends typeof Command> = Interfaces.InferredFlags<
  (typeof BaseCommand)['baseFlags'] & T['flags']
>
export type CommandArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

export abstract class BaseCommand<T extends typeof Command> extends Command {
  static override enableJsonFlag = true
  static override baseFlags = {
    profile: Flags.string({
      char: 'p',
      summary: 'Profile to use (env BK_PROFILE).',
      helpGroup: 'GLOBAL',
      helpValue: 'NAME',
    }),
    debug: Flags.boolean({
      summary: 'Trace HTTP requests on stderr, secrets redacted (env BK_DEBUG=1).',
      helpGroup: 'GLOBAL',
    }),
    jq: Flags.string({
      summary: 'Filter the JSON result with a jq expression (implies --json; runs once over the whole result).',
      helpGroup: 'GLOBAL',
      helpValue: 'EXPR',
    }),
  }

  protected flags!: CommandFlags<T>
  protected args!: CommandArgs<T>
  private sessionPromise: Promise<Session> | undefined
  private credentialsPromise: Promise<ResolvedCredentials> | undefined
  /** --jq, compiled in init() (the engine loads only when the flag is given). */
  private jqFilter: JqFilter | undefined
  /** BK_DEBUG, read in init(). */
  private debugVariable = false

  public override async init(): Promise<void> {
    for (const signal of INTERRUPTS) process.on(signal, this.onInterrupt)
    warnIfNodeUnsupported(this.config.pjson.engines?.node)
    // Before anything is printed: every secret this run learns is kept off stdout and stderr.
    const {guardStandardStreams, MIN_SEARCHED_SECRET_LENGTH, registerEnvironmentSecrets} =
      await import('../api/redact.js')
    for (const name of registerEnvironmentSecrets())
      this.warn(
        `${name} is shorter than ${MIN_SEARCHED_SECRET_LENGTH} characters, too short to be hidden wherever it appears in output (it would match ordinary data); bk still never shows it in a request's headers or form.`,
      )
    guardStandardStreams()
    await super.init()
    this.argv = withBareFields(this.argv)
    const {args, flags} = await this.parse({
      flags: this.ctor.flags,
      baseFlags: (super.ctor as typeof BaseCommand).baseFlags,
      enableJsonFlag: this.ctor.enableJsonFlag,
      args: this.ctor.args,
      strict: this.ctor.strict,
    })
    refuseBothForms(this.usageContext())
    this.debugVariable = debugFromEnv(process.env)
    this.flags = flags as CommandFlags<T>
    this.args = args as CommandArgs<T>
    const jq = (flags as {jq?: string}).jq
    if (jq !== undefined) {
      const {loadJqFilter} = await import('../output/jq.js')
      this.jqFilter = await loadJqFilter(jq)
    }
  }

  /** --json, or --jq (which filters the JSON result). */
  public override jsonEnabled(): boolean {
    return super.jsonEnabled() || this.jqGiven
  }

  /** Whether --jq is on the command line (before any `--`); readable before init() has parsed. */
  protected get jqGiven(): boolean {
    const end = this.argv.indexOf('--')
    return (end === -1 ? this.argv : this.argv.slice(0, end)).some((a) => a === '--jq' || a.startsWith('--jq='))
  }

  /**
   * The JSON result: through --jq when given; else as oclif prints it, in the colours of the user's
   * oclif theme. With no theme (or NO_COLOR on a terminal) there is no colour to add, and the
   * text is written directly: oclif tokenizes the document to colour it, about 15 times the cost
   * of JSON.stringify (200 ms for a 1.6 MB document). A JsonText is written, coloured or
   * filtered as it is, and an answer's exact numbers (JsonNumber) as received: its numbers never
   * pass through a double.
   */
  public override logJson(result: unknown): void {
    const text = result instanceof JsonText ? result.text : undefined
    const json = text === undefined ? this.printedKeys(result) : undefined
    if (this.jqFilter) {
      const out = this.jqFilter.run(text ?? stringifyExact(json))
      if (out.ok) {
        process.stdout.write(out.text)
      } else {
        this.writeJqFailure(out.error)
        process.exitCode = out.error.exitCode
      }
      return
    }
    const theme = this.config.theme?.json
    if (!theme || (process.stdout.isTTY && process.env.NO_COLOR))
      process.stdout.write((text ?? stringifyExact(json, 2)) + '\n')
    else ux.stdout(ux.colorizeJson(text ?? stringifyExact(json, 2), {pretty: false, theme}))
  }

  /**
   * Whether --json prints the service's answer exactly as received (`bk api`), keys and all,
   * rather than bk's documents with their keys in snake_case (src/shared/json-keys.ts).
   */
  protected readonly jsonAsReceived: boolean = false

  private printedKeys(value: unknown): unknown {
    return this.jsonAsReceived ? value : snakeCaseKeys(value)
  }

  /**
   * One JSON line of a long-running command's stream (`webhooks listen`, `emulator start`):
   * through --jq, value by value, when given; compact otherwise.
   */
  protected writeJsonLine(result: unknown): void {
    const value = this.printedKeys(result)
    if (!this.jqFilter) {
      process.stdout.write(JSON.stringify(value) + '\n')
      return
    }
    const out = this.jqFilter.run(JSON.stringify(value))
    if (out.ok) process.stdout.write(out.text)
    else this.writeJqFailure(out.error)
  }

  /** --jq failing on a result: for people (a script reading the filtered output gets nothing). */
  private writeJqFailure(error: BkError): void {
    process.stderr.write(`Error: ${error.message}\nHint: ${error.hint}\n`)
  }

  /**
   * Bare --fields: the fields a record has, one a line for people (`.…` after a free-form one),
   * or `{fields}` with --json.
   */
  protected listFields(catalog: readonly FieldInfo[]): FieldsListing {
    if (!this.jsonEnabled()) for (const f of catalog) this.log(f.open ? `${f.path}.…` : f.path)
    return {fields: catalog.map((f) => f.path)}
  }

  /** bk's config folder: BK_CONFIG_DIR, or oclif's per-user config folder. */
  protected get configDir(): string {
    return process.env.BK_CONFIG_DIR || this.config.configDir
  }

  protected get debugEnabled(): boolean {
    return Boolean((this.flags as {debug?: boolean} | undefined)?.debug) || this.debugVariable
  }

  /** Where credentials come from for this run (see src/auth/resolve.ts). */
  protected credentials(): Promise<ResolvedCredentials> {
    this.credentialsPromise ??= import('../auth/resolve.js').then(({resolveCredentials}) =>
      resolveCredentials({
        configDir: this.configDir,
        profileFlag: (this.flags as {profile?: string}).profile,
        businessFlag: (this.flags as {business?: string}).business,
      }),
    )
    return this.credentialsPromise
  }

  /**
   * What every HTTP client of this run is made with: the user agent, the request timeout
   * (BK_TIMEOUT, refused here when unreadable) and --debug traces.
   */
  protected get transportOptions(): {
    userAgent: string
    timeoutMs: number
    debug: ((line: string) => void) | undefined
  } {
    return {
      userAgent: this.config.userAgent,
      timeoutMs: requestTimeoutMs(),
      debug: this.debugEnabled ? (line) => process.stderr.write(`[debug] ${line}\n`) : undefined,
    }
  }

  /**
   * The API, ready to call; opened once per run and closed in finally(). Tokens are limited to
   * the resolved business, except for tenant-level commands (`tenantLevel`), which see the tenant.
   */
  protected session(options: {tenantLevel?: boolean} = {}): Promise<Session> {
    this.sessionPromise ??= (async () => {
      const credentials = await this.credentials()
      const {openSession} = await import('../auth/session.js')
      return openSession(credentials, {...this.transportOptions, tenantLevel: options.tenantLevel})
    })()
    return this.sessionPromise
  }

  /** The business to act on: --business, BK_BUSINESS_ID, or the profile's default. */
  protected async businessId(): Promise<string> {
    const credentials = await this.credentials()
    const id = credentials.businessId
    if (!id) {
      throw new InputError('No business given', {
        code: 'no_business',
        hint: 'Pass --business biz_…, set BK_BUSINESS_ID, or give the profile one with `bk profiles add NAME --business biz_…`.',
      })
    }
    if (!id.startsWith(ID_PREFIX.business))
      throw new InputError(
        `Invalid business id "${id}" (from ${credentials.origins.business ?? 'the profile'}): expected biz_…`,
      )
    return id
  }

  /**
   * The business when one is given anywhere, for offline work (a dry run) that needs no
   * credentials: --business, BK_BUSINESS_ID, or the profile's, if credentials resolve at all.
   */
  protected async businessIdIfGiven(): Promise<string | undefined> {
    const given = (this.flags as {business?: string}).business ?? process.env.BK_BUSINESS_ID
    return (
      given ??
      this.credentials().then(
        (c) => c.businessId,
        () => undefined,
      )
    )
  }

  /** Before a write: on a production profile, one line on stderr naming where it goes. */
  protected async announceWrite(what: string): Promise<void> {
    const c = await this.credentials()
    if (c.environment === 'production') {
      process.stderr.write(
        `PRODUCTION ${c.profileName ? `(profile ${c.profileName}) ` : ''}business ${c.businessId ?? '-'}: ${what}\n`,
      )
    }
  }

  /** Whether bk may ask the user anything: a TTY on stdin and stderr, and no CI. */
  protected get canPrompt(): boolean {
    return Boolean(process.stdin.isTTY && process.stderr.isTTY) && !process.env.CI
  }

  /**
   * Confirmation for a destructive action. With --yes it passes; with no TTY (or CI set) it is
   * an error naming --yes, never a prompt.
   */
  protected async confirm(question: string, yes: boolean | undefined): Promise<void> {
    if (yes) return
    if (!this.canPrompt) {
      const action = question.replace(/\?$/, '')
      throw new InputError(`Refusing to ${action[0]!.toLowerCase()}${action.slice(1)} without confirmation`, {
        code: 'confirmation_required',
        hint: 'Pass --yes to confirm.',
      })
    }
    const {confirm} = await import('./prompts.js')
    const ok = await confirm({message: question, default: false}, {output: process.stderr})
    // Answering no is not a failure: nothing was done, as asked.
    if (!ok) throw new BkError('Nothing changed', {code: 'declined', exitCode: ExitCode.ok})
  }

  /**
   * Partial success (exit 6), in one shape for every command that can partly fail: the command's
   * result as on success, plus `partial: {failed, unconfirmed, reasons}` with the first reasons
   * (README "Exit codes"). The reasons also go to stderr, for people and for CI logs, but for
   * those `shown` there already (bills import's row errors, as found). `total` is how many
   * there are in all, for a command that keeps only the first (bills import).
   */
  protected partial<T extends object>(
    result: T,
    what: Omit<PartialSuccess, 'reasons'>,
    reasons: string[],
    total = reasons.length,
    shown: ReadonlySet<string> = new Set(),
  ): T & {partial: PartialSuccess} {
    const first = reasons.slice(0, PARTIAL_REASONS)
    for (const r of first) if (!shown.has(r)) process.stderr.write(`  ${r}\n`)
    if (total > first.length) process.stderr.write(`  … and ${total - first.length} more\n`)
    process.exitCode = ExitCode.partial
    return {...result, partial: {...what, reasons: first}}
  }

  /** A line for people, on stderr, never in --json output. */
  /** A warning in bk's voice: one `Warning:` line on stderr, not oclif's indented ` ›   Warning:`. */
  public override warn(input: string | Error): string | Error {
    process.stderr.write(`Warning: ${typeof input === 'string' ? input : input.message}\n`)
    return input
  }

  protected note(line: string): void {
    if (!this.jsonEnabled()) process.stderr.write(line + '\n')
  }

  protected override async catch(
    err: Error & {oclif?: {exit?: number}; exitCode?: number; code?: string},
  ): Promise<unknown> {
    if (err instanceof Errors.ExitError) throw err
    // Whoever read stdout has stopped (`bk invoices list --all | head`): stop too, quietly, as
    // a command killed by SIGPIPE would; there is no one left to tell.
    if (err.code === 'EPIPE') throw new Errors.ExitError(0)
    const error = toBkError(err, this.usageContext())
    if (error.code === 'declined') {
      if (this.jsonEnabled()) process.stdout.write(JSON.stringify({changed: false}) + '\n')
      else process.stderr.write(`${error.message}.\n`)
      throw new Errors.ExitError(ExitCode.ok)
    }
    const {withFallbackHint} = await import('./fallback-hint.js')
    await this.report(
      withFallbackHint(await this.withConnectionHint(error), this.usageContext().id.split(':').join(' ')),
      err,
    )
    throw new Errors.ExitError(error.exitCode)
  }

  /** A connection failure to the base URL: the hint names it, what set it, and `bk doctor`. */
  private async withConnectionHint(error: BkError): Promise<BkError> {
    if (error.exitCode !== ExitCode.unavailable || !this.credentialsPromise) return error
    const credentials = await this.credentialsPromise.catch(() => undefined)
    if (!credentials) return error
    const {connectionHint} = await import('./connection-hint.js')
    const hint = connectionHint(error, credentials.baseUrl, credentials.origins.baseUrl)
    return hint ? withHint(error, hint) : error
  }

  /**
   * Ctrl-C, and SIGTERM (how CI systems cancel a step), for every command that does not handle
   * the signal itself: the outputs under way are given up (each FILE.partial removed, FILE left
   * as it was; a JSON array begun on stdout closed), the user is told which files, exit 130. A
   * command with its own listener for the signal (an import that stops between batches, a
   * listener, the pager while it runs for SIGINT) decides for itself.
   */
  private readonly onInterrupt = (signal: NodeJS.Signals): void => {
    if (process.listenerCount(signal) > 1) return
    void (async () => {
      const {abandonOpenOutputs} = await import('../output/sink.js')
      const files = await abandonOpenOutputs()
      const what = files.map((f) => `${f.file} ${f.existed ? 'left as it was' : 'not written'}`).join(', ')
      await this.report(new InterruptedError(`Interrupted${what ? `; ${what}` : ''}`))
      process.exit(ExitCode.interrupted)
    })()
  }

  /** Prints an error: one line and its hint on stderr, or the JSON error document on stdout. */
  private async report(error: BkError, err?: Error): Promise<void> {
    // Our messages never hold secrets; this guards against a service that echoes one back
    // (before init has guarded the streams, too).
    const {redactKnown, registerEnvironmentSecrets} = await import('../api/redact.js')
    registerEnvironmentSecrets()
    const clean = redactKnown
    if (process.env.GITHUB_ACTIONS === 'true')
      (await import('../ci/command-error.js')).annotateCommandError(this.id, clean(error.message))
    // With --jq alone the error is for people: a script reading the filtered output gets nothing.
    // Once a list has begun streaming to stdout (--all --json), stdout holds its one document,
    // closed where it stopped (src/output/sink.ts), and the error goes to stderr.
    const toStdout =
      this.jsonEnabled() &&
      !(this.jqGiven && !super.jsonEnabled()) &&
      !(await import('../output/sink.js')).stdoutBegun()
    if (toStdout) {
      process.stdout.write(clean(errorDocument(error)) + '\n')
    } else {
      process.stderr.write(clean(`Error: ${error.message}\n`) + (error.hint ? clean(`Hint: ${error.hint}\n`) : ''))
      if (this.debugEnabled && error.exitCode === ExitCode.unexpected && err?.stack)
        process.stderr.write(clean(err.stack) + '\n')
    }
  }

  /** This command's flags and arguments, to word a usage error with. */
  private usageContext(): UsageContext {
    const ctor = this.ctor as typeof BaseCommand
    return {
      bin: this.config.bin,
      id: this.id ?? ctor.id ?? '',
      flags: {...ctor.baseFlags, ...(ctor.enableJsonFlag ? {json: {}} : {}), ...ctor.flags},
      args: ctor.args ?? {},
      examples: ctor.examples as UsageContext['examples'],
      argv: this.argv,
    }
  }

  protected override async finally(err: Error | undefined): Promise<unknown> {
    for (const signal of INTERRUPTS) process.off(signal, this.onInterrupt)
    const session = await this.sessionPromise?.catch(() => undefined)
    await session?.close().catch(() => {})
    return super.finally(err)
  }
}

/** The signals that stop a command as Ctrl-C does: SIGTERM is how CI systems cancel a step. */
const INTERRUPTS = ['SIGINT', 'SIGTERM'] as const

/** How many reasons of failure a partial success lists (all are in the command's own output files). */
export const PARTIAL_REASONS = 5

/** The `partial` block of a command that partly failed (exit 6). */
export interface PartialSuccess {
  /** Items refused (by the service, or as invalid). */
  failed: number
  /** Items whose outcome bk could not know: never re-sent by bk. */
  unconfirmed: number
  /** The first reasons of failure, as people read them. */
  reasons: string[]
}

/** Maps anything thrown to a BkError: ours as they are, oclif's parse errors as usage errors. */
export function toBkError(err: Error & {oclif?: {exit?: number}; code?: string}, usage?: UsageContext): BkError {
  if (err instanceof BkError) return unwrapFlagError(err)
  if (err.name === 'AbortError' || err.message === 'SIGINT')
    return new BkError('Interrupted', {code: 'interrupted', exitCode: ExitCode.interrupted})
  if (err.name === 'ExitPromptError')
    return new BkError('Cancelled', {code: 'cancelled', exitCode: ExitCode.interrupted})
  if (isUsageError(err)) return usageError(err, usage ?? {bin: 'bk', id: '', flags: {}, args: {}, argv: []})
  return new BkError(err.message || String(err), {
    code: 'unexpected',
    exitCode: ExitCode.unexpected,
    hint: 'Run again with --debug for details; if it persists, report it.',
  })
}

/** The JSON error document: what went wrong, its code, the next step, and details. */
export function errorDocument(error: BkError): string {
  return JSON.stringify(
    snakeCaseKeys({
      error: error.message,
      code: error.code,
      hint: error.hint ?? null,
      details: error.details ?? null,
    }),
  )
}
