/**
 * A usage error of a command bk does not define (`autocomplete`, `help`), which never reaches
 * BaseCommand.catch: worded as bk's own are, from the command as oclif.manifest.json has it.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {ExitCode} from '../shared/errors.js'
import {usageError, type UsageContext} from './usage-errors.js'
import {errorDocument} from './base-command.js'

interface ManifestCommand {
  id: string
  flags: UsageContext['flags']
  args: UsageContext['args']
  examples?: UsageContext['examples']
}

/** Prints the error as bk's commands do and sets exit code 2. */
export function reportPluginUsageError(err: Error, root: string, argv: readonly string[]): void {
  let commands: Record<string, ManifestCommand> = {}
  try {
    commands = (JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8')) as {commands: typeof commands})
      .commands
  } catch {
    // No manifest: the error is worded without the command's flags.
  }
  const firstFlag = argv.findIndex((a) => a.startsWith('-'))
  const words = firstFlag === -1 ? argv : argv.slice(0, firstFlag)
  let taken = words.length
  while (taken > 0 && !commands[words.slice(0, taken).join(':')]) taken--
  const command = commands[words.slice(0, taken).join(':')]
  const error = usageError(err, {
    bin: 'bk',
    id: command?.id ?? words.slice(0, 1).join(':'),
    flags: command?.flags ?? {},
    args: command?.args ?? {},
    examples: command?.examples,
    argv: argv.slice(taken),
  })
  if (argv.includes('--json')) process.stdout.write(errorDocument(error) + '\n')
  else process.stderr.write(`Error: ${error.message}\nHint: ${error.hint}\n`)
  process.exitCode = ExitCode.usage
}
