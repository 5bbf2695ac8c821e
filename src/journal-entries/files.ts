/**
 * Reads the input files (`-` is stdin) and validates every entry of every file, so that the
 * commands can list every problem at once and refuse to send anything when there is one.
 */
import {realpathSync} from 'node:fs'
import {open, type FileHandle} from 'node:fs/promises'
import {resolve} from 'node:path'

import {InputError} from '../shared/errors.js'
import {counted} from '../shared/counts.js'
import {decodeUtf8Pieces} from '../files/utf8-stream.js'
import {formatProblem, JournalEntriesReader, type LoadResult, type Problem} from './load.js'
import {unreadableBecause, unreadableHint} from '../files/file-errors.js'

export const STDIN = '-'

export interface FileSummary {
  file: string
  entries: number
  lines: number
}

export interface Validation {
  results: LoadResult[]
  /** The problems kept (the first MAX_KEPT_PROBLEMS of each file). */
  problems: Problem[]
  /** How many more were found. */
  omittedProblems: number
  files: FileSummary[]
}

export interface ValidateOptions {
  /** Keep the valid entries to post them (create); validate needs only counts. Default true. */
  keepEntries?: boolean | undefined
}

/** How many bytes are read at a time: a file is never held whole. */
const READ_SIZE = 256 * 1024

export async function validateFiles(
  paths: readonly string[],
  stdin: () => AsyncIterable<Buffer>,
  options: ValidateOptions = {},
): Promise<Validation> {
  if (paths.length === 0)
    throw new InputError('No file given', {hint: 'Pass one or more YAML files, or - to read stdin.'})
  if (paths.filter((p) => p === STDIN).length > 1) throw new InputError('- (stdin) can be given only once')
  const seen = new Map<string, string>()
  const results: LoadResult[] = []
  for (const path of paths) {
    // Two names of one file (b.yaml, ./b.yaml, a link to b.yaml) are the same entries.
    const key = path === STDIN ? STDIN : realPath(path)
    const first = seen.get(key)
    if (first !== undefined) {
      const named = first === path ? `${path} is` : `${first} and ${path} are one file,`
      throw new InputError(`${named} given twice; its entries would be posted twice`, {hint: 'Name each file once.'})
    }
    seen.set(key, path)
    const label = path === STDIN ? '<stdin>' : path
    const reader = new JournalEntriesReader(label, options)
    const bytes = path === STDIN ? stdin() : readPieces(path)
    for await (const text of decodeUtf8Pieces(bytes, label)) reader.push(text)
    results.push(reader.end())
  }
  return {
    results,
    problems: results.flatMap((r) => r.problems),
    omittedProblems: results.reduce((n, r) => n + r.omittedProblems, 0),
    files: results.map((r) => ({file: r.file, entries: r.count, lines: r.lines})),
  }
}

/** The file a path names, links followed; a path that names none is left to the reading to report. */
function realPath(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return resolve(path)
  }
}

/** The bytes of a file, a piece at a time; a file that cannot be read is an InputError naming it. */
async function* readPieces(path: string): AsyncGenerator<Buffer> {
  let handle: FileHandle | undefined
  try {
    handle = await open(path, 'r')
    for (;;) {
      const buffer = Buffer.allocUnsafe(READ_SIZE)
      const {bytesRead} = await handle.read(buffer, 0, READ_SIZE, null)
      if (bytesRead === 0) return
      yield buffer.subarray(0, bytesRead)
    }
  } catch (error) {
    throw new InputError(`Cannot read ${path}: ${unreadableBecause(error)}`, {
      code: 'unreadable_file',
      hint: unreadableHint(path, error),
    })
  } finally {
    await handle?.close()
  }
}

/** Problems printed (and listed in --json) before "… and N more": a long list helps nobody. */
export const MAX_LISTED_PROBLEMS = 100

/** The error for a validation with problems; `print` gets each problem listed as one line first. */
export function problemsError(v: Validation, print: (line: string) => void, nothingSent: boolean): InputError {
  const listed = v.problems.slice(0, MAX_LISTED_PROBLEMS)
  const n = v.problems.length + v.omittedProblems
  const more = n - listed.length
  for (const p of listed) print(formatProblem(p))
  if (more > 0) print(`… and ${counted(more, 'more problem')}, not listed`)
  const files = new Set(v.problems.map((p) => p.file)).size
  return new InputError(
    `${counted(n, 'problem')} in ${counted(files, 'file')}${nothingSent ? '; nothing was sent' : ''}`,
    {
      code: 'invalid_journal_entries',
      details: {problems: listed.map((p) => ({...p, text: formatProblem(p)})), ...(more > 0 ? {more} : {})},
      hint:
        more > 0
          ? 'Fix the lines named above and run the command again to see the rest.'
          : 'Fix the lines named above, then run the command again.',
    },
  )
}

/** Standard input, as the pieces it arrives in. */
export async function* stdinPieces(): AsyncGenerator<Buffer> {
  for await (const chunk of process.stdin) yield chunk as Buffer
}
