/**
 * An unknown command: one plain error line naming the closest command, exit 2. Never a prompt
 * and never running the guess: a typo of a read could otherwise run a write (`rules receipts
 * sett` → `set`). With --json the error is the usual JSON document on stdout.
 */
import type {Hook} from '@oclif/core/hooks'

import {ExitCode} from '../../shared/errors.js'

const hook: Hook<'command_not_found'> = async function (opts) {
  const typed = [...opts.id.split(':'), ...wordsBeforeFlags(opts.argv ?? [])]
  const visible = opts.config.commands.filter((c) => !c.hidden).flatMap((c) => [c.id, ...c.aliases])
  const suggestion = closestCommand(typed, visible)
  const bin = opts.config.bin
  const given = opts.id.split(':').join(' ')
  const message = `"${bin} ${given}" is not a ${bin} command${suggestion ? `; did you mean "${bin} ${suggestion.split(':').join(' ')}"?` : ''}`
  const topic = opts.config.findTopic(opts.id.split(':')[0] ?? '') ? ` ${opts.id.split(':')[0]}` : ''
  const hint = `Run \`${bin} help${topic}\` for the commands there are.`
  if ((opts.argv ?? []).includes('--json')) {
    process.stdout.write(
      JSON.stringify({
        error: message,
        code: 'command_not_found',
        details: {command: given, suggestion: suggestion?.split(':').join(' ') ?? null},
      }) + '\n',
    )
  } else {
    process.stderr.write(`Error: ${message}\nHint: ${hint}\n`)
  }
  this.exit(ExitCode.usage)
}

export default hook

function wordsBeforeFlags(argv: string[]): string[] {
  const words: string[] = []
  for (const arg of argv) {
    if (arg.startsWith('-')) break
    words.push(arg)
  }
  return words
}

/**
 * The command closest to what was typed, compared word for word over as many words as the
 * command has; none when even the closest differs in more than a third of its letters.
 */
export function closestCommand(typed: string[], commandIds: string[]): string | undefined {
  let best: {id: string; distance: number} | undefined
  for (const id of commandIds) {
    const words = id.split(':')
    const distance = levenshtein(typed.slice(0, words.length).join(' '), words.join(' '))
    if (!best || distance < best.distance) best = {id, distance}
  }
  if (!best) return undefined
  return best.distance <= Math.max(2, Math.floor(best.id.length / 3)) ? best.id : undefined
}

function levenshtein(a: string, b: string): number {
  let previous = Array.from({length: b.length + 1}, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]!
}
