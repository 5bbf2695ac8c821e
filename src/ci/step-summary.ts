/**
 * The markdown a GitHub Actions step shows on the run page: appended to $GITHUB_STEP_SUMMARY
 * (several commands in one step each add theirs). Counts, first reasons and file names only;
 * every text passes the secret filter that guards stdout and stderr.
 */
import {appendFileSync} from 'node:fs'

import {redactKnown} from '../api/redact.js'
import {ciEnvironment, type CiEnvironment} from './environment.js'

/** Appends a section to the step summary; false when there is none (not GitHub, or no file). */
export function appendStepSummary(markdown: string, env: CiEnvironment = ciEnvironment()): boolean {
  if (!env.stepSummary) return false
  try {
    appendFileSync(env.stepSummary, redactKnown(markdown.endsWith('\n') ? markdown : markdown + '\n'))
    return true
  } catch (error) {
    // The summary is a courtesy to the reader of the run page: it never fails the command.
    process.stderr.write(`Warning: cannot write the step summary ${env.stepSummary}: ${(error as Error).message}\n`)
    return false
  }
}

/** Text inside a table cell or list item: no line breaks, no table separators, no HTML. */
export function inline(text: string): string {
  return text
    .replace(/\r?\n|\r/g, ' ')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('|', '\\|')
}

/** A file name as code: a backtick inside it lengthens the fence (CommonMark code spans). */
export function code(text: string): string {
  const flat = text.replace(/\r?\n|\r/g, ' ')
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length))
  const fence = '`'.repeat(longest + 1)
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : ''
  return `${fence}${pad}${flat}${pad}${fence}`
}

/** A one-row markdown table of counts. */
export function countsTable(counts: ReadonlyArray<readonly [string, string | number]>): string {
  return [
    `| ${counts.map(([name]) => name).join(' | ')} |`,
    `|${counts.map(() => '---:').join('|')}|`,
    `| ${counts.map(([, value]) => inline(String(value))).join(' | ')} |`,
  ].join('\n')
}

/** The first reasons as a list, with how many more there are. */
export function reasonsList(reasons: readonly string[], total: number, limit = 5): string {
  if (reasons.length === 0) return ''
  const shown = reasons.slice(0, limit)
  const more = total - shown.length
  return [...shown.map((r) => `- ${inline(r)}`), ...(more > 0 ? [`- … and ${more} more`] : [])].join('\n')
}

/**
 * How a run that sends items ended, for its heading: `done` only when every item was created
 * (now or by an earlier run), `failed` when every item sent was refused, `partly done` when
 * some were refused or are unconfirmed; `created` counts those created before too.
 */
export function runState(r: {
  interrupted: boolean
  stopped: boolean
  created: number
  failed: number
  unconfirmed: number
}): string {
  if (r.interrupted) return 'interrupted'
  if (r.stopped) return 'stopped'
  if (r.failed + r.unconfirmed === 0) return 'done'
  return r.created + r.unconfirmed === 0 ? 'failed' : 'partly done'
}
