/**
 * An export written with --file, in the GitHub Actions step summary: which command wrote which
 * file, and how big it is. Nothing of the file's content (business data) goes there.
 */
import {statSync} from 'node:fs'

import {ciEnvironment, type CiEnvironment} from './environment.js'
import {counted} from '../shared/counts.js'
import {appendStepSummary, code} from './step-summary.js'

/** The command as typed: its words before the first flag (`invoices list`). */
function commandWords(argv: readonly string[]): string {
  const words: string[] = []
  for (const arg of argv) {
    if (!/^[a-z][a-z-]*$/.test(arg) || words.length === 3) break
    words.push(arg)
  }
  return words.join(' ')
}

export function summarizeExport(
  file: string,
  env: CiEnvironment = ciEnvironment(),
  argv: readonly string[] = process.argv.slice(2),
): void {
  if (!env.stepSummary) return
  const size = statSync(file, {throwIfNoEntry: false})?.size ?? 0
  appendStepSummary(`### bk ${commandWords(argv)}\n\n- Written: ${code(file)} (${counted(size, 'byte')})\n`, env)
}
