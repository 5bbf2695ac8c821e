/**
 * Flag builders shared by commands, so each flag reads and behaves the same everywhere.
 */
import {Flags} from '@oclif/core'

import {OUTPUT_FORMATS} from './output/list-writer.js'

export const businessFlag = () =>
  Flags.string({
    char: 'b',
    summary: "Business id (biz_…); defaults to the profile's business or BK_BUSINESS_ID.",
    helpValue: 'biz_…',
  })

/** --jwks of `webhooks verify` and `webhooks listen`. */
export const jwksFlag = () =>
  Flags.string({
    summary: "Key set to use instead of the service's: a JWKS/JWK/PEM file or a URL.",
    helpValue: 'FILE|URL',
  })

export const yesFlag = () =>
  Flags.boolean({char: 'y', summary: 'Do it without asking for confirmation (needed with no TTY).'})

/** --output, --file, --all, --limit, --page-size, --page-token, --raw-csv. */
export const listFlags = (maxPageSize = 100) => ({
  output: Flags.option({
    options: OUTPUT_FORMATS,
    char: 'o',
    summary: 'Output format; a table on a terminal, json otherwise.',
  })(),
  file: Flags.string({summary: 'Write the output to this file (- for stdout).', helpValue: 'PATH'}),
  all: Flags.boolean({summary: 'Fetch every page (streamed; memory stays flat).', exclusive: ['limit', 'page-token']}),
  limit: Flags.integer({summary: 'Stop after this many items.', min: 1}),
  'page-size': Flags.integer({summary: `Items per request (1 to ${maxPageSize}).`, min: 1, max: maxPageSize}),
  'page-token': Flags.string({summary: 'Start from this cursor (next or previous token of an earlier --json page).'}),
  'raw-csv': Flags.boolean({summary: 'Write CSV cells verbatim, without the spreadsheet-formula guard.'}),
})

/** A comma-separated flag value (--status, --events) as a list, empty items and repeats dropped; undefined when it names nothing. */
export function splitList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  return items.length ? [...new Set(items)] : undefined
}
