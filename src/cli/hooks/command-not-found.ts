/**
 * An unknown command: one plain error line naming the closest command, exit 2. Never a prompt
 * and never running the guess: a typo of a read could otherwise run a write (`rules receipts
 * sett` → `set`). With --json the error is the usual JSON document on stdout.
 */
import type {Hook} from '@oclif/core/hooks'

import {ExitCode} from '../../shared/errors.js'
import {editDistance} from '../closest.js'

/**
 * Words other tools use for what bk spells differently (`gh auth login`, `heroku login`,
 * `docker version`): the bk command line that does it.
 */
const OTHER_TOOLS_WORDS: Record<string, string> = {
  login: 'auth login',
  logout: 'auth logout',
  whoami: 'auth status',
  status: 'auth status',
  token: 'auth token',
  version: '--version',
  config: 'profiles list',
  configure: 'profiles add',
  init: 'profiles add',
  setup: 'profiles add',
  use: 'profiles use',
  completion: 'autocomplete',
  completions: 'autocomplete',
}

const hook: Hook<'command_not_found'> = async function (opts) {
  const typed = [...opts.id.split(':'), ...wordsBeforeFlags(opts.argv ?? [])]
  const visible = opts.config.commands.filter((c) => !c.hidden).flatMap((c) => [c.id, ...c.aliases])
  // Else a topic (`bk invoice` → `bk invoices`, which lists its commands): only when no command is
  // close, since a topic is compared over fewer words (`invoices lst` is a command's typo).
  const topics = opts.config.topics.filter((t) => !t.hidden).map((t) => t.name)
  const bin = opts.config.bin
  const reordered = commandFirst(opts.id, opts.argv ?? [], visible)
  const suggestion =
    reordered ??
    OTHER_TOOLS_WORDS[opts.id] ??
    (underItsTopic(typed, visible) ?? closestCommand(typed, visible) ?? closestCommand(typed, topics))
      ?.split(':')
      .join(' ')
  const given = opts.id.split(':').join(' ')
  const message = reordered
    ? `"${bin} ${given}" is not a ${bin} command: flags go after the command, as in "${bin} ${reordered}"`
    : `"${bin} ${given}" is not a ${bin} command${suggestion ? `; did you mean "${bin} ${suggestion}"?` : ''}`
  const topic = opts.config.findTopic(opts.id.split(':')[0] ?? '') ? ` ${opts.id.split(':')[0]}` : ''
  const hint = suggestion
    ? `Run \`${bin} ${suggestion}\`, or \`${bin} help${topic}\` for the commands there are.`
    : `Run \`${bin} help${topic}\` for the commands there are.`
  if (opts.id === '--json' || (opts.argv ?? []).includes('--json')) {
    process.stdout.write(
      JSON.stringify({
        error: message,
        code: 'command_not_found',
        hint,
        details: {command: given, suggestion: suggestion ?? null},
      }) + '\n',
    )
  } else {
    process.stderr.write(`Error: ${message}\nHint: ${hint}\n`)
  }
  this.exit(ExitCode.usage)
}

export default hook

/**
 * `bk -p prod invoices list`: a flag given before the command (as `git -C` or `gh -R` take
 * them). The same line with the command first, when the words after the flag (and its value,
 * if it has one) name a command.
 */
function commandFirst(id: string, argv: string[], commandIds: string[]): string | undefined {
  if (!id.startsWith('-')) return undefined
  const shown = (arg: string) => (/[\s"'$]/.test(arg) ? JSON.stringify(arg) : arg)
  for (let value = 0; value <= 1; value++) {
    const rest = argv.slice(value)
    for (let n = Math.min(3, rest.length); n > 0; n--) {
      if (!commandIds.includes(rest.slice(0, n).join(':'))) continue
      return [...rest.slice(0, n), id, ...argv.slice(0, value), ...rest.slice(n)].map(shown).join(' ')
    }
  }
  return undefined
}

function wordsBeforeFlags(argv: string[]): string[] {
  const words: string[] = []
  for (const arg of argv) {
    if (arg.startsWith('-')) break
    words.push(arg)
  }
  return words
}

/**
 * `bk maps init`, `bk receipts set`: a command named without the topic (or topics) it is under.
 * The command whose last words are the first words typed, when only one command has the longest
 * such match: `bk list` is under too many topics to guess.
 */
export function underItsTopic(typed: string[], commandIds: string[]): string | undefined {
  let found = new Set<string>()
  let longest = 0
  for (const id of commandIds) {
    const words = id.split(':')
    // The longest tail first: drop as few of the command's leading words as will match.
    for (let drop = 1; drop < words.length; drop++) {
      const tail = words.slice(drop)
      if (tail.length < longest) break
      if (!tail.every((word, i) => typed[i] === word)) continue
      if (tail.length > longest) found = new Set()
      longest = tail.length
      found.add(id)
      break
    }
  }
  return found.size === 1 ? [...found][0] : undefined
}

/**
 * The command closest to what was typed, compared word for word over as many words as the
 * command has; none when even the closest differs in more than a third of its letters.
 */
export function closestCommand(typed: string[], commandIds: string[]): string | undefined {
  let best: {id: string; distance: number} | undefined
  for (const id of commandIds) {
    const words = id.split(':')
    const distance = editDistance(typed.slice(0, words.length).join(' '), words.join(' '))
    if (!best || distance < best.distance) best = {id, distance}
  }
  if (!best) return undefined
  return best.distance <= Math.max(2, Math.floor(best.id.length / 3)) ? best.id : undefined
}
