/**
 * The README's examples, run as written against the emulator, so that an example that stops
 * working fails here rather than in a user's first five minutes.
 *
 * The rule: every ```sh block of README.md is run, line by line, unless the line just before its
 * opening fence (blank lines aside) is a comment `<!-- not run by test/docs/readme-examples.test.ts:
 * REASON -->` (an install, a prompt, a server that runs until Ctrl-C, a keychain). In a block that
 * is run every command line must start with `bk ` (a line ending in `\` continues on the next), so
 * that nothing in it is silently left out; each must exit 0.
 *
 * They run in order, one working folder (a copy of examples/) and one config folder for all, as
 * a reader going down the page would, through bash with `bk` on PATH. The credentials are the
 * emulator's, in the environment: what the README's first five minutes set up as a profile (that
 * step itself needs an OS keychain, so it is marked not run).
 */
import {cpSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {ROOT, runShellLine, tempDir} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

const NOT_RUN = /^<!-- not run by test\/docs\/readme-examples\.test\.ts: (.+) -->$/

interface Example {
  /** The command line as written (continuations joined). */
  line: string
  /** Its line number in the file. */
  at: number
}

/** The examples of a README's text, by the rule above; a run block with another command throws. */
function readmeExamples(text: string): {run: Example[]; notRun: Array<{reason: string; at: number}>} {
  const lines = text.split('\n')
  const run: Example[] = []
  const notRun: Array<{reason: string; at: number}> = []
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== '```sh') continue
    let before = i - 1
    while (before >= 0 && lines[before]!.trim() === '') before--
    const marker = before >= 0 ? NOT_RUN.exec(lines[before]!.trim()) : null
    const end = lines.indexOf('```', i + 1)
    if (end === -1) throw new Error(`README line ${i + 1}: a code block that is never closed`)
    if (marker) notRun.push({reason: marker[1]!, at: i + 1})
    else run.push(...blockCommands(lines.slice(i + 1, end), i + 2))
    i = end
  }
  return {run, notRun}
}

function blockCommands(block: string[], firstLine: number): Example[] {
  const out: Example[] = []
  for (let j = 0; j < block.length; j++) {
    const at = firstLine + j
    let line = block[j]!
    while (line.endsWith('\\') && j + 1 < block.length) line = line.slice(0, -1) + block[++j]!
    const command = line.trim()
    if (command === '' || command.startsWith('#')) continue
    if (!command.startsWith('bk '))
      throw new Error(
        `README line ${at}: "${command}" is in a block the README test runs but is not a bk command; ` +
          'mark the block <!-- not run by test/docs/readme-examples.test.ts: REASON --> or make it one',
      )
    out.push({line: command, at})
  }
  return out
}

describe('the rule that picks the README examples', () => {
  const sample = [
    '<!-- not run by test/docs/readme-examples.test.ts: it serves until Ctrl-C -->',
    '```sh',
    'bk emulator start',
    '```',
    '',
    '```sh',
    'bk invoices list \\',
    '  --limit 1   # a comment',
    '# a comment line',
    '```',
    '```json',
    '{"bk ": 1}',
    '```',
  ].join('\n')

  it('runs unmarked sh blocks, joins continued lines, and skips marked blocks with their reason', () => {
    const {run, notRun} = readmeExamples(sample)
    expect(run).toEqual([{line: 'bk invoices list   --limit 1   # a comment', at: 7}])
    expect(notRun).toEqual([{reason: 'it serves until Ctrl-C', at: 2}])
  })

  it('refuses a command other than bk in a block it runs', () => {
    expect(() => readmeExamples('```sh\nnpm ci\n```')).toThrow(/line 2: "npm ci" is in a block the README test runs/)
  })
})

describe('README.md examples', () => {
  const {run, notRun} = readmeExamples(readFileSync(join(ROOT, 'README.md'), 'utf8'))
  let emulator: RunningEmulator
  let cwd: string
  let configDir: string

  beforeAll(async () => {
    emulator = await start()
    cwd = tempDir('bk-readme-')
    cpSync(join(ROOT, 'examples'), join(cwd, 'examples'), {recursive: true})
    configDir = tempDir('bk-readme-config-')
  })
  afterAll(() => emulator?.close())

  it('has examples to run, and says why each block it skips is skipped', () => {
    expect(run.length).toBeGreaterThanOrEqual(20)
    for (const block of notRun) expect(block.reason.length).toBeGreaterThan(10)
  })

  it.each(run)('line $at: $line', async ({line}) => {
    const result = await runShellLine(line, {cwd, configDir, env: envFor(emulator)})
    expect(
      result.code,
      `\`${line}\` exited ${result.code ?? result.signal}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`,
    ).toBe(0)
  })
})
