/**
 * oclif's parse errors ("Missing 1 required arg", "The following error occurred", "Nonexistent
 * flag") in bk's words: one line saying what is wrong, and a hint with the next step (the flag or
 * value meant, an example to copy, the help to read). Used for every command, bk's own and the
 * plugins' (src/main.ts).
 */
import {BkError, ExitCode} from '../shared/errors.js'
import {closestWord} from './closest.js'

/** What a usage error is worded from: the command as typed, and its flags and arguments. */
export interface UsageContext {
  bin: string
  /** The command's id, words separated by colons or spaces (`bills:import`). */
  id: string
  flags: Record<string, FlagInfo>
  args: Record<string, ArgInfo>
  examples?: readonly (string | {command: string})[] | undefined
  /** The arguments as typed, after the command's words. */
  argv: readonly string[]
}

interface FlagInfo {
  name?: string
  char?: string
  summary?: string
  description?: string
  helpValue?: string | string[]
  options?: readonly string[]
  multiple?: boolean
  allowNo?: boolean
  type?: string
}

interface ArgInfo {
  name?: string
  description?: string
  options?: readonly string[]
}

type ParseError = Error & {oclif?: {exit?: number}; args?: unknown[]; flags?: string[]}

/** Whether an error is oclif's refusal of the command line (rather than a failure of the command). */
export function isUsageError(err: Error & {oclif?: {exit?: number}}): boolean {
  return (
    /Parse|Flag|Arg|Validation|Constraint/.test(err.constructor?.name ?? '') ||
    (err.oclif?.exit === 2 && /^(Flag --|Parsing --|Unexpected flag )/.test(err.message))
  )
}

/**
 * An error bk throws from a flag's own parse (flags.ts), without the "Parsing --flag" and "See more
 * help" lines oclif wraps its message in: bk's message names the flag and says what to do.
 */
export function unwrapFlagError<E extends Error>(err: E): E {
  const m = /^Parsing --[\w-]+ \n\t([\s\S]*?)\nSee more help with --help$/.exec(err.message)
  if (m) err.message = m[1]!
  return err
}

/** A refusal of the command line as typed (exit 2, code usage): one line and a hint. */
export function commandLineError(message: string, hint: string): BkError {
  return new BkError(message, {code: 'usage', exitCode: ExitCode.usage, hint})
}

/** The usage error as a BkError: one line and a hint. */
export function usageError(err: ParseError, context: UsageContext): BkError {
  const command = `${context.bin} ${context.id.split(':').join(' ')}`
  const help = `\`${command} --help\``
  return commandLineError(...explain(err, context, command, help))
}

function explain(err: ParseError, context: UsageContext, command: string, help: string): [string, string] {
  const kind = err.constructor?.name ?? ''
  const text = plain(err.message)
  if (kind === 'NonExistentFlagsError' && Array.isArray(err.flags)) return unknownFlags(err.flags, context, help)
  if (kind === 'RequiredArgsError' && Array.isArray(err.args)) return missingArgs(err.args as ArgInfo[], context, help)
  if (kind === 'UnexpectedArgsError' && Array.isArray(err.args))
    return [
      `Unexpected argument${err.args.length === 1 ? '' : 's'} ${err.args.map((a) => quote(String(a))).join(', ')}`,
      `\`${command}\` takes ${argsUsage(context) || 'no arguments'}; quote a value that has spaces, and see ${help}.`,
    ]
  if (kind === 'FailedFlagValidationError' || kind === 'ViolatedFlagConstraintError') {
    const reasons = text
      .split('\n')
      .slice(1)
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('See more help'))
    const missing = reasons.flatMap((r) => /^Missing required flag ([\w-]+)$/.exec(r)?.[1] ?? [])
    if (missing.length) return missingFlags(missing, context, help)
    // oclif reports a conflict once from each side (--resume with --restart, --restart with --resume).
    const explained = [...new Map(reasons.map((r) => flagRule(r, help)).map((e) => [conflictKey(e[0]), e])).values()]
    if (explained.length) return [explained.map(([m]) => m).join('; '), explained[0]![1]]
  }
  let m: RegExpMatchArray | null
  if ((m = /^Expected --([\w-]+)=([\s\S]*) to be one of: (.*)$/.exec(firstLine(text))))
    return unknownValue(`value for --${m[1]}`, m[2]!, m[3]!.split(', '), help)
  if ((m = /^Expected ([\s\S]*) to be one of: (.*)$/.exec(firstLine(text)))) {
    const options = m[2]!.split(', ')
    const arg = Object.values(context.args).find((a) => a.options?.join(', ') === m![2])
    const about = arg?.description && trimDot(arg.description).length <= 30 ? trimDot(arg.description) : undefined
    return unknownValue(about?.toLowerCase() ?? arg?.name?.toUpperCase() ?? 'value', m[1]!, options, help)
  }
  if ((m = /^Flag --([\w-]+) expects one of these values: (.*)$/.exec(firstLine(text))))
    return [`--${m[1]} needs a value`, `Give one of: ${m[2]}.`]
  if ((m = /^Flag --([\w-]+) expects a value$/.exec(firstLine(text)))) {
    const flag = context.flags[m[1]!]
    return [`--${m[1]} needs a value`, `Give it as --${m[1]} ${helpValue(flag)}; see ${help}.`]
  }
  if ((m = /^Flag --([\w-]+) can only be specified once$/.exec(firstLine(text))))
    return [`--${m[1]} is given more than once`, `Give --${m[1]} once.`]
  if ((m = /^Parsing --([\w-]+)\s*\n\s*([\s\S]*?)(\nSee more help[\s\S]*)?$/.exec(text)))
    return invalidValue(`--${m[1]}`, m[2]!.trim(), help)
  if ((m = /^Unexpected flag (\S+)/.exec(text))) return unknownFlags([m[1]!], context, help)
  return [firstLine(text).replace(/\.$/, ''), `See ${help} for what it takes.`]
}

function unknownFlags(typed: string[], context: UsageContext, help: string): [string, string] {
  const names = typed.map((f) => f.replace(/=.*$/, ''))
  const message = `Unknown flag${names.length === 1 ? '' : 's'} ${names.join(', ')}`
  const known = Object.entries(context.flags).flatMap(([name, f]) => [
    `--${name}`,
    ...(f.allowNo ? [`--no-${name}`] : []),
  ])
  const guess = names[0]!.startsWith('--') ? closestWord(names[0]!, [...known, '--help']) : undefined
  return [message, guess ? `Did you mean ${guess}? ${help} lists the flags.` : `${help} lists the flags there are.`]
}

function missingArgs(missing: ArgInfo[], context: UsageContext, help: string): [string, string] {
  const named = missing.map((a) => (a.name ?? 'argument').toUpperCase())
  const about = missing.length === 1 && missing[0]!.description ? `: ${trimDot(missing[0]!.description)}` : ''
  const message = `Missing ${named.join(' and ')}${about}`
  // A flag that takes several values swallows the words after it (`--lookup a=b.csv bills.csv`).
  const greedy = Object.entries(context.flags)
    .filter(([name, f]) => f.multiple && context.argv.some((a) => a === `--${name}` || a.startsWith(`--${name}=`)))
    .map(([name]) => `--${name}`)
  if (greedy.length)
    return [
      message,
      `Put ${named.join(' ')} before ${greedy.join(', ')} (which takes several values), or after \`--\`.`,
    ]
  const example = firstExample(context)
  return [message, example ? `For example: \`${example}\`; see ${help}.` : `See ${help} for what it takes.`]
}

function missingFlags(names: string[], context: UsageContext, help: string): [string, string] {
  const described = names.map((name) => {
    const summary = context.flags[name]?.summary
    return `--${name}${summary ? ` (${trimDot(summary)})` : ''}`
  })
  const given = names.map((name) => `--${name} ${helpValue(context.flags[name])}`).join(' ')
  return [`Missing ${orList(described, 'and')}`, `Give ${names.length === 1 ? 'it' : 'them'} as ${given}; see ${help}.`]
}

/**
 * A value outside a fixed list that a command checks itself (an argument whose list is too long
 * for oclif's `options` display): the same error and hint as oclif's refusal would get.
 */
export function unknownChoice(what: string, value: string, options: readonly string[], command: string): BkError {
  return commandLineError(...unknownValue(what, value, [...options], `\`${command} --help\``))
}

/**
 * A boolean flag given both ways (`--enabled --no-enabled`): oclif lets the last one win, which
 * would carry out a slip of the user's; bk asks for the one meant, before anything is sent.
 */
export function refuseBothForms(context: UsageContext): void {
  const end = context.argv.indexOf('--')
  const typed = new Set(end === -1 ? context.argv : context.argv.slice(0, end))
  for (const [name, flag] of Object.entries(context.flags))
    if (flag.allowNo && typed.has(`--${name}`) && typed.has(`--no-${name}`))
      throw commandLineError(
        `--${name} and --no-${name} cannot be given together`,
        `Keep the one you mean; \`${context.bin} ${context.id.split(':').join(' ')} --help\` says what it does.`,
      )
}

function unknownValue(what: string, value: string, options: string[], help: string): [string, string] {
  const guess = closestWord(value, options)
  // A short closed list is shown whole; a long one only when no guess points the way.
  const list =
    options.length <= 6 || (!guess && options.length <= 20)
      ? ` It takes ${options.join(', ')}.`
      : ` ${help} lists the ${options.length} there are.`
  return [`Unknown ${what}: ${quote(value)}`, `${guess ? `Did you mean ${guess}?` : ''}${list}`.trim()]
}

function invalidValue(flag: string, reason: string, help: string): [string, string] {
  let m: RegExpMatchArray | null
  if ((m = /^Expected an integer but received: (.*)$/.exec(reason)))
    return [`${flag} must be a whole number, not ${quote(m[1]!)}`, `Give it as ${flag} 10, for example.`]
  if ((m = /^Expected an integer greater than or equal to (\S+) but received: (.*)$/.exec(reason)))
    return [`${flag} must be at least ${m[1]}, not ${quote(m[2]!)}`, `Give ${flag} ${m[1]} or more.`]
  if ((m = /^Expected an integer less than or equal to (\S+) but received: (.*)$/.exec(reason)))
    return [`${flag} must be at most ${m[1]}, not ${quote(m[2]!)}`, `Give ${flag} ${m[1]} or less.`]
  return [`Invalid ${flag}: ${trimDot(firstLine(reason))}`, `See ${help} for what it takes.`]
}

/** One reason of oclif's flag validation, in bk's words. */
function flagRule(reason: string, help: string): [string, string] {
  let m: RegExpMatchArray | null
  if ((m = /^(--[\w-]+)(?:=\S*)? cannot also be provided when using (--[\w-]+)$/.exec(reason)))
    return [`${m[2]} and ${m[1]} cannot be used together`, `Give one of them; ${help} says what each does.`]
  if ((m = /^All of the following must be provided when using (--[\w-]+): (.*)$/.exec(reason)))
    return [`${m[1]} needs ${orList(m[2]!, 'and')}`, `Add ${orList(m[2]!, 'and')}, or leave out ${m[1]}.`]
  if ((m = /^One of the following must be provided when using (--[\w-]+): (.*)$/.exec(reason)))
    return [`${m[1]} needs ${orList(m[2]!, 'or')}`, `Add ${orList(m[2]!, 'or')}, or leave out ${m[1]}.`]
  if ((m = /^Only the following can be provided when using (--[\w-]+): (.*)$/.exec(reason)))
    return [`${m[1]} goes only with ${orList(m[2]!, 'and')}`, `Leave out the other flags; see ${help}.`]
  if ((m = /^Exactly one of the following must be provided: (.*)$/.exec(reason)))
    return [`Give exactly one of ${orList(m[1]!, 'or')}`, `See ${help} for what each does.`]
  if ((m = /^At least one of the following must be provided: (.*)$/.exec(reason)))
    return [`Give at least one of ${orList(m[1]!, 'or')}`, `See ${help} for what each does.`]
  return [trimDot(reason), `See ${help} for what it takes.`]
}

/** The same text for `--a and --b cannot…` and `--b and --a cannot…`. */
function conflictKey(message: string): string {
  const m = /^(--[\w-]+) and (--[\w-]+) (cannot be used together)$/.exec(message)
  return m ? [m[1], m[2]].sort().join(' ') : message
}

/** `FILE`, `METHOD PATH`, `[NAME]`: the arguments a command takes, as its usage line shows them. */
function argsUsage(context: UsageContext): string {
  return Object.entries(context.args)
    .map(([name, a]) => {
      const word = (a.name ?? name).toUpperCase()
      return (a as {required?: boolean}).required ? word : `[${word}]`
    })
    .join(' ')
}

function firstExample(context: UsageContext): string | undefined {
  for (const e of context.examples ?? []) {
    const text = (typeof e === 'string' ? e : e.command)
      .replaceAll('<%= config.bin %>', context.bin)
      .replaceAll('<%= command.id %>', context.id.split(':').join(' '))
      .replace(/^\$ /, '')
    if (text.startsWith(`${context.bin} `) && !text.includes('\n')) return text
  }
  return undefined
}

function helpValue(flag: FlagInfo | undefined): string {
  const value = Array.isArray(flag?.helpValue) ? flag.helpValue[0] : flag?.helpValue
  if (value) return value
  if (flag?.options?.length) return flag.options.join('|')
  return 'VALUE'
}

/** `a, b or c`; a list oclif wrote (`--a, --b`) is split at its commas. */
function orList(list: string | string[], word: 'and' | 'or'): string {
  const items = typeof list === 'string' ? list.split(', ') : list
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} ${word} ${items.at(-1)}`
}

function quote(value: string): string {
  return JSON.stringify(value)
}

function trimDot(text: string): string {
  return text.trim().replace(/\.$/, '')
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim()
}

/** The text without terminal colours (oclif dims the reasons of a failed validation). */
function plain(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001B\[[0-9;]*m/g, '')
}
