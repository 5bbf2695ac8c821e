/**
 * Flag builders shared by commands, so each flag reads and behaves the same everywhere.
 */
import * as Flags from '@oclif/core/flags'

import type {FieldInfo} from '../output/field-paths.js'
import {InputError} from '../shared/errors.js'
import {codePoint} from '../shared/code-point.js'
import {headerProblem} from '../api/header-value.js'
import {OUTPUT_FORMATS} from '../output/list-writer.js'
import {unknownChoice} from './usage-errors.js'

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

/**
 * --performed-by, sent as a request header: a value no header can carry (a line break pasted
 * with it) is refused before anything is sent, instead of failing each request as it goes out.
 */
export const performedByFlag = (summary: string) =>
  Flags.string({
    summary,
    helpValue: 'ID',
    async parse(value) {
      const bad = headerProblem(value, {word: false})
      if (bad) {
        const at = codePoint(bad.char)
        throw new InputError(
          `--performed-by ${JSON.stringify(value)} holds ${at} at position ${bad.index + 1}: it is sent as a request header, which carries printable ASCII only`,
          {hint: 'Give the id without it (a line break pasted with a value is the usual cause); nothing was sent.'},
        )
      }
      return value
    },
  })

export const yesFlag = () =>
  Flags.boolean({char: 'y', summary: 'Do it without asking for confirmation (needed with no TTY).'})

/** --fields of list and get commands; `--fields` alone lists the fields (BaseCommand.listFields). */
export const fieldsFlag = () =>
  Flags.string({
    summary: 'Only these fields, in this order (a path such as lines.amount goes into arrays); alone, list them.',
    helpValue: 'a,b,c.d',
  })

/** --no-pager: a long table is written straight to the terminal instead of through PAGER. */
export const noPagerFlag = () =>
  Flags.boolean({summary: 'Do not send a long table through the pager (PAGER, else less -FRX).'})

/** --output, --file, --all, --limit, --page-size, --page-token, --raw-csv, --fields, --no-pager. */
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
  fields: fieldsFlag(),
  'no-pager': noPagerFlag(),
})

/** --summary of invoices list and refunds list. */
export const summaryFlag = () =>
  Flags.boolean({
    summary: 'Also count the records and total their amounts per status and currency (stderr; in the JSON result).',
  })

/** The --fields paths, checked before any request; undefined without --fields. */
export async function chosenFields(
  value: string | undefined,
  catalog: readonly FieldInfo[],
  what: string,
  command: string,
): Promise<string[] | undefined> {
  if (value === undefined) return undefined
  const {parseFields} = await import('../output/field-paths.js')
  return parseFields(value, catalog, what, `\`bk ${command} --fields\` lists the fields.`)
}

/** A comma-separated flag value (--status, --events) as a list, empty items and repeats dropped; undefined when it names nothing. */
export function splitList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  return items.length ? [...new Set(items)] : undefined
}

/**
 * A comma-separated flag of a closed list (--status, --events) as its values; a value not in the
 * list is a usage error naming the one meant, before anything is sent (it would match nothing).
 */
export function closedList<T extends string>(
  value: string | undefined,
  options: readonly T[],
  what: string,
  command: string,
): T[] | undefined {
  const items = splitList(value)
  const unknown = items?.find((item) => !(options as readonly string[]).includes(item))
  if (unknown !== undefined) throw unknownChoice(what, unknown, options, command)
  return items as T[] | undefined
}

/**
 * The flags that say how a bills file is read (`bills import`, `emulator fixtures --from-csv`):
 * a map or preset, lookups, and the formats that beat the map.
 */
export function billReadingFlags() {
  return {
    map: Flags.string({
      summary: "How to read an accounting package's export: a YAML map, or a preset (bk bills maps).",
      helpValue: 'FILE.yaml|PRESET',
    }),
    lookup: Flags.string({
      summary: 'Ids for the names or codes a column holds: a CSV of value,id (repeatable).',
      helpValue: 'FIELD=FILE.csv',
      multiple: true,
    }),
    'date-format': Flags.string({
      summary:
        'How the file writes dates (beats the map): DD/MM/YYYY, MM/DD/YYYY, DD.MM.YYYY, YYYY-MM-DD or a pattern.',
      description:
        'A pattern is made of D, DD, M, MM, YY (20YY), YYYY and DDMM, with / - . or nothing between them, such as DD-MM-YYYY or MM/DD/YY.',
      helpValue: 'PATTERN',
    }),
    year: Flags.integer({
      summary: 'The year of dates the file writes without one (a date format such as DDMM).',
      helpValue: 'YYYY',
      min: 1900,
      max: 2999,
    }),
    'number-format': Flags.string({
      summary: 'How the file writes numbers (beats the map).',
      options: ['1234.56', '1,234.56', '1.234,56', '1 234,56'],
    }),
    delimiter: Flags.string({summary: 'The field separator (beats the map).', options: [',', ';', 'tab']}),
    encoding: Flags.string({
      summary: "The file's character encoding (beats the map).",
      options: ['utf-8', 'windows-1252', 'latin1'],
    }),
  }
}
