/**
 * Reads the input files (`-` is stdin) and validates every entry of every file, so that the
 * commands can list every problem at once and refuse to send anything when there is one.
 */
import {readFile} from 'node:fs/promises'
import {resolve} from 'node:path'

import {InputError} from '../errors.js'
import {decodeUtf8} from '../utf8.js'
import {formatProblem, loadJournalEntries, type LoadResult, type Problem} from './load.js'

export const STDIN = '-'

export interface FileSummary {
  file: string
  entries: number
  lines: number
}

export interface Validation {
  results: LoadResult[]
  problems: Problem[]
  files: FileSummary[]
}

export async function validateFiles(paths: readonly string[], readStdin: () => Promise<Buffer>): Promise<Validation> {
  if (paths.length === 0)
    throw new InputError('No file given', {hint: 'Pass one or more YAML files, or - to read stdin.'})
  if (paths.filter((p) => p === STDIN).length > 1) throw new InputError('- (stdin) can be given only once')
  const seen = new Set<string>()
  const results: LoadResult[] = []
  for (const path of paths) {
    // Two spellings of one file (b.yaml, ./b.yaml) are the same entries.
    const key = path === STDIN ? STDIN : resolve(path)
    if (seen.has(key)) throw new InputError(`${path} is given twice; its entries would be posted twice`)
    seen.add(key)
    let bytes: Buffer
    try {
      bytes = path === STDIN ? await readStdin() : await readFile(path)
    } catch (error) {
      const e = error as NodeJS.ErrnoException
      const why = e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'it is a folder' : e.message
      throw new InputError(`Cannot read ${path}: ${why}`, {code: 'unreadable_file'})
    }
    const label = path === STDIN ? '<stdin>' : path
    results.push(loadJournalEntries(decodeUtf8(bytes, label), label))
  }
  return {
    results,
    problems: results.flatMap((r) => r.problems),
    files: results.map((r) => ({
      file: r.file,
      entries: r.count,
      lines: r.entries.reduce((n, e) => n + e.input.lines.length, 0),
    })),
  }
}

/** The error for a validation with problems; `print` gets each problem as one line first. */
export function problemsError(v: Validation, print: (line: string) => void, nothingSent: boolean): InputError {
  for (const p of v.problems) print(formatProblem(p))
  const n = v.problems.length
  const files = new Set(v.problems.map((p) => p.file)).size
  return new InputError(
    `${n} problem${n === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'}${nothingSent ? '; nothing was sent' : ''}`,
    {
      code: 'invalid_journal_entries',
      details: {problems: v.problems.map((p) => ({...p, text: formatProblem(p)}))},
      hint: 'Fix the lines named above, then run the command again.',
    },
  )
}

export async function readAllStdin(): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}
