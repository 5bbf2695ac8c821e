/**
 * Where bk starts, bundled or not: oclif's run and error handling alone (the full @oclif/core
 * index loads far more than `bk --version` needs), with compiled code only.
 */
import {flush} from '@oclif/core/flush'
import {handle} from '@oclif/core/handle'
import {run} from '@oclif/core/run'
import {settings} from '@oclif/core/settings'
import {fileURLToPath} from 'node:url'

import {isUsageError} from './cli/usage-errors.js'

/** Runs the command line; `dir` is any file or folder inside the package (its package.json rules). */
export async function main(dir: string): Promise<void> {
  // Never look for a tsconfig.json or ts-node: what runs is always compiled, and the lookup costs
  // file reads on every start (oclif does it whenever NODE_ENV is "test" or "development").
  settings.enableAutoTranspile = false
  // With CI set nothing may prompt; @oclif/plugin-not-found asks "did you mean…?" whenever stdin
  // is a TTY, so tell it (and everyone else) that there is none.
  if (process.env.CI && process.stdin.isTTY) process.stdin.isTTY = false
  // bk takes no user-installed plugins: no reading of the data folder's package.json for them.
  const root = dir.startsWith('file:') ? fileURLToPath(dir) : dir
  const argv = process.argv.slice(2)
  try {
    await run(argv, {root, userPlugins: false})
    void flush()
  } catch (error) {
    // bk's own commands word their usage errors themselves (BaseCommand.catch); the plugins' are
    // worded here the same way, never as oclif's raw text.
    const err = error as Error & {oclif?: {exit?: number}}
    if (isUsageError(err) && err.constructor?.name !== 'ExitError') {
      const {reportPluginUsageError} = await import('./cli/plugin-usage-error.js')
      reportPluginUsageError(err, root, argv)
      return
    }
    // `bk help nosuch`: oclif's help has no hook of its own for a command it does not know; the
    // command line without `help` gets the unknown command's hook, in bk's words (exit 2).
    if (argv[0] === 'help' && /^Command \S+ not found\.$/.test(err.message)) {
      await run(argv.slice(1), {root, userPlugins: false}).catch(handle)
      return
    }
    await handle(err)
  }
}
