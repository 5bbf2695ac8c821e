/**
 * The format of a command's output: --output when given, else the --file name's extension
 * (`.csv`, `.ndjson`, `.json`), else a table on a terminal and JSON otherwise. A file whose name
 * says nothing of its format needs --output: bk never writes JSON into `report.txt` unasked, nor
 * into `invoices.csv`.
 */
import {extname} from 'node:path'

import {InputError} from '../shared/errors.js'
import type {OutputFormat} from './list-writer.js'

const BY_EXTENSION: Record<string, OutputFormat> = {
  '.csv': 'csv',
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
  '.json': 'json',
}

/** The formats a file can be written in, the most asked for first. */
const PREFERRED: readonly OutputFormat[] = ['csv', 'ndjson', 'json']

function orList(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`
}

/** How a result line names a format: `as CSV`. */
export const FORMAT_NAMES: Record<OutputFormat, string> = {table: 'a table', json: 'JSON', ndjson: 'NDJSON', csv: 'CSV'}

export interface OutputChoice<F extends OutputFormat> {
  output?: F | undefined
  file?: string | undefined
}

/** Whether the output goes to a file (not stdout). */
export function writesFile(flags: {file?: string | undefined}): boolean {
  return flags.file !== undefined && flags.file !== '-'
}

/**
 * The format to write in, checked before anything is fetched. `json` is --json (or --jq);
 * `formats` are the --output values the command takes.
 */
export function chooseFormat<F extends OutputFormat>(flags: OutputChoice<F>, json: boolean, formats: readonly F[]): F {
  const file = writesFile(flags) ? flags.file : undefined
  const named = file === undefined ? undefined : (BY_EXTENSION[extname(file).toLowerCase()] ?? null)
  const choices = PREFERRED.filter((f) => (formats as readonly OutputFormat[]).includes(f))
  if (json) {
    if (flags.output !== undefined && flags.output !== 'json')
      throw new InputError(`--json prints JSON, not --output ${flags.output}`, {
        hint: `Drop --json to write ${FORMAT_NAMES[flags.output]}, or drop --output.`,
        details: {flag: '--output', value: flags.output},
      })
    if (file !== undefined && named && named !== 'json')
      throw new InputError(`--json writes JSON, not the ${FORMAT_NAMES[named]} that --file ${file} names`, {
        hint: 'Drop --json (the name gives the format), or name the file .json.',
        details: {flag: '--file', value: file},
      })
    return 'json' as F
  }
  if (flags.output !== undefined) return flags.output
  if (file !== undefined) {
    if (!named || !(formats as readonly OutputFormat[]).includes(named))
      throw new InputError(
        named
          ? `--file ${file}: this command does not write ${FORMAT_NAMES[named]}`
          : `--file ${file}: cannot tell the format from the name`,
        {
          hint: `Add --output ${orList(choices)}, or end the name in ${orList(choices.map((f) => `.${f}`))}.`,
          details: {flag: '--file', value: file},
        },
      )
    return named as F
  }
  return (Boolean(process.stdout.isTTY) && formats.includes('table' as F) ? 'table' : 'json') as F
}
