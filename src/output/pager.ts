/**
 * A long listing on a terminal goes through the user's pager, as git and gh do: BK_PAGER, else
 * PAGER, else `less -FRX` (quit at once when it fits one screen, keep colours, leave the text on
 * the screen). An empty value or `cat` means no pager; so does --no-pager. While the pager runs,
 * Ctrl-C belongs to it (less uses it to stop a search), so bk ignores SIGINT until it exits.
 */
import {spawn} from 'node:child_process'
import {accessSync, constants} from 'node:fs'
import {delimiter, join} from 'node:path'

import {terminalHeight} from './terminal.js'

const DEFAULT_PAGER = 'less -FRX'

/** The pager command to run, or undefined for none. */
export function pagerCommand(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const chosen = env.BK_PAGER ?? env.PAGER
  if (chosen !== undefined) {
    const command = chosen.trim()
    return command === '' || command === 'cat' ? undefined : command
  }
  return onPath('less', env) ? DEFAULT_PAGER : undefined
}

function onPath(name: string, env: NodeJS.ProcessEnv): boolean {
  return (env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, name), constants.X_OK)
      return true
    } catch {
      return false
    }
  })
}

/** Whether `text` should be paged: stdout is a terminal, paging is on, and it is taller than the screen. */
export function wantsPager(text: string, enabled: boolean): boolean {
  if (!enabled || !process.stdout.isTTY || process.platform === 'win32') return false
  const rows = terminalHeight()
  if (rows === undefined) return false
  let lines = 0
  for (let at = text.indexOf('\n'); at !== -1 && lines < rows; at = text.indexOf('\n', at + 1)) lines++
  return lines >= rows
}

/**
 * Writes `text` through the pager. Resolves false when the pager could not be started or failed
 * (exited with a code other than 0: a command not found, a pager that cannot open the terminal),
 * having said so on stderr, so the caller writes the listing itself: a failing pager must not
 * swallow it. A pager the user quits early (q in less) exits 0.
 */
export function throughPager(text: string, command: string): Promise<boolean> {
  return new Promise((resolve) => {
    const ignore = () => {}
    process.on('SIGINT', ignore)
    const child = spawn('/bin/sh', ['-c', command], {
      stdio: ['pipe', 'inherit', 'inherit'],
      env: {...process.env, LESS: process.env.LESS ?? 'FRX'},
    })
    let settled = false
    const done = (shown: boolean) => {
      if (settled) return
      settled = true
      process.off('SIGINT', ignore)
      resolve(shown)
    }
    const failed = (why: string) => {
      if (!settled)
        process.stderr.write(`bk: the pager (${command}) failed (${why}); the listing follows without it.\n`)
      done(false)
    }
    child.on('error', (error) => failed(error.message))
    // The user may quit before reading everything: the rest of the text is not wanted.
    child.stdin.on('error', () => {})
    // Ended by a signal (Ctrl-C in a pager that does not take it) is the user's doing: not a failure.
    child.on('close', (code) => {
      if (code === 0 || code === null) done(true)
      else failed(code === 127 ? 'command not found' : `exit ${code}`)
    })
    child.stdin.end(text)
  })
}
