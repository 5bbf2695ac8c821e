/**
 * Every usage error of every command (oclif.manifest.json) is one `Error:` line and one `Hint:`
 * line in bk's words, never oclif's text; the --json document carries the hint too. And the
 * mistakes people make most get the flag, value or command they meant.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it, vi} from 'vitest'

import {parseJsonOutput, ROOT, runBk, type BkResult} from '../helpers/bk.js'

vi.setConfig({testTimeout: 600_000})

interface ManifestFlag {
  name: string
  type: string
  required?: boolean
  options?: string[]
  exclusive?: string[]
  allowNo?: boolean
}
interface ManifestCommand {
  id: string
  hidden?: boolean
  flags: Record<string, ManifestFlag>
  args: Record<string, {name: string; required?: boolean; options?: string[]}>
}

// Hidden commands are the plugins' internals (`autocomplete create` parses nothing).
const commands = Object.values(
  (JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, ManifestCommand>})
    .commands,
).filter((c) => !c.hidden)

/** oclif's own wording, none of which may reach a user. */
const OCLIF_WORDING =
  /Missing \d+ required arg|The following errors? occurred|cannot also be provided|Nonexistent flag|See more help|to be one of|must be provided|Missing required flag|Note: --|›/

function expectBkUsageError(result: BkResult, line: string): void {
  expect(result.code, `${line}\n${result.stderr}`).toBe(2)
  expect(result.stderr, line).toMatch(/^Error: [^\n]+\nHint: [^\n]+\n$/)
  expect(result.stderr, line).not.toMatch(OCLIF_WORDING)
  expect(result.stdout, line).toBe('')
}

function words(c: ManifestCommand): string[] {
  return c.id.split(':')
}

/** A value each required argument accepts. */
function requiredArgs(c: ManifestCommand): string[] {
  return Object.values(c.args)
    .filter((a) => a.required)
    .map((a) => a.options?.[0] ?? 'x')
}

function flagWithValue(f: ManifestFlag): string[] {
  return f.type === 'boolean' ? [`--${f.name}`] : [`--${f.name}`, f.options?.[0] ?? '1']
}

/** Runs every command line, a few at a time. */
async function runAll(lines: string[][]): Promise<Map<string[], BkResult>> {
  const results = new Map<string[], BkResult>()
  const queue = [...lines]
  await Promise.all(
    Array.from({length: 3}, async () => {
      for (let line = queue.shift(); line; line = queue.shift()) results.set(line, await runBk(line))
    }),
  )
  return results
}

describe('usage errors of every command', () => {
  it('has commands to walk', () => {
    expect(commands.length).toBeGreaterThan(30)
  })

  it('an unknown flag: one Error and one Hint line, in bk words; with --json, the hint in the document', async () => {
    const lines = commands.flatMap((c) => [
      [...words(c), ...requiredArgs(c), '--no-such-flag'],
      [...words(c), ...requiredArgs(c), '--no-such-flag', '--json'],
    ])
    for (const [line, result] of await runAll(lines)) {
      if (!line.includes('--json')) {
        expectBkUsageError(result, line.join(' '))
        expect(result.stderr).toContain('Error: Unknown flag')
        continue
      }
      expect(result.code, line.join(' ')).toBe(2)
      const doc = parseJsonOutput<{error: string; code: string; hint: string}>(result)
      expect(doc.code, line.join(' ')).toBe('usage')
      expect(doc.hint, line.join(' ')).toMatch(/--help/)
      expect(JSON.stringify(doc)).not.toMatch(OCLIF_WORDING)
    }
  })

  it('a missing argument names it and gives an example or the help', async () => {
    const lines = commands.filter((c) => Object.values(c.args).some((a) => a.required)).map((c) => words(c))
    expect(lines.length).toBeGreaterThan(5)
    for (const [line, result] of await runAll(lines)) {
      expectBkUsageError(result, line.join(' '))
      expect(result.stderr).toMatch(/^Error: Missing [A-Z]+/)
    }
  })

  it('a missing flag names it and how to give it', async () => {
    const lines = commands
      .filter((c) => Object.values(c.flags).some((f) => f.required))
      .map((c) => [...words(c), ...requiredArgs(c)])
    expect(lines.length).toBeGreaterThan(2)
    for (const [line, result] of await runAll(lines)) {
      expectBkUsageError(result, line.join(' '))
      expect(result.stderr).toMatch(/^Error: Missing --[a-z]/)
      expect(result.stderr).toMatch(/\nHint: Give (it|them) as --/)
    }
  })

  it('conflicting flags name both', async () => {
    const lines = commands.flatMap((c) => {
      const required = Object.values(c.flags)
        .filter((f) => f.required)
        .flatMap(flagWithValue)
      return Object.values(c.flags)
        .filter((f) => f.exclusive?.length && c.flags[f.exclusive[0]!])
        .map((f) => [
          ...words(c),
          ...requiredArgs(c),
          ...required,
          ...flagWithValue(f),
          ...flagWithValue(c.flags[f.exclusive![0]!]!),
        ])
    })
    expect(lines.length).toBeGreaterThan(5)
    for (const [line, result] of await runAll(lines)) {
      expectBkUsageError(result, line.join(' '))
      expect(result.stderr).toMatch(/^Error: --[a-z-]+ and --[a-z-]+ cannot be used together\n/)
    }
  })

  it('a boolean flag given both ways is refused, not settled by the last', async () => {
    // Without the check, `webhooks listen --register --no-register` would start listening.
    const lines = commands.flatMap((c) => {
      const required = Object.values(c.flags)
        .filter((f) => f.required)
        .flatMap(flagWithValue)
      return Object.values(c.flags)
        .filter((f) => f.allowNo)
        .map((f) => [...words(c), ...requiredArgs(c), ...required, `--${f.name}`, `--no-${f.name}`])
    })
    expect(lines.map((line) => line.slice(0, 2).join(' '))).toEqual(['rules receipts', 'webhooks listen'])
    for (const [line, result] of await runAll(lines)) {
      expectBkUsageError(result, line.join(' '))
      const flag = line.at(-2)!
      expect(result.stderr).toContain(`Error: ${flag} and --no-${flag.slice(2)} cannot be given together\n`)
    }
  })
})

describe('did you mean', () => {
  it.each([
    [['bills', 'import', 'bills.csv', '--dryrun'], 'Error: Unknown flag --dryrun\nHint: Did you mean --dry-run?'],
    [['invoices', 'list', '--stauts', 'paid'], 'Error: Unknown flag --stauts\nHint: Did you mean --status?'],
    [['invoices', 'list', '--limt', '3'], 'Error: Unknown flag --limt\nHint: Did you mean --limit?'],
    [
      ['emulator', 'trigger', 'RECIEPT_MATCHED'],
      'Error: Unknown event type: "RECIEPT_MATCHED"\nHint: Did you mean RECEIPT_MATCHED?',
    ],
    [['invoices', 'list', '--output', 'cvs'], 'Error: Unknown value for --output: "cvs"\nHint: Did you mean csv?'],
    [['login'], 'Error: "bk login" is not a bk command; did you mean "bk auth login"?\nHint: Run `bk auth login`'],
    [['version'], 'Error: "bk version" is not a bk command; did you mean "bk --version"?\nHint: Run `bk --version`'],
  ])('bk %j', async (line, expected) => {
    const result = await runBk(line)
    expectBkUsageError(result, line.join(' '))
    expect(result.stderr.startsWith(expected), result.stderr).toBe(true)
  })

  it('an argument swallowed by a flag of several values: put it before, or after --', async () => {
    const result = await runBk(['bills', 'import', '--lookup', 'vendor_id=vendors.csv', 'bills.csv'])
    expectBkUsageError(result, 'bills import --lookup')
    expect(result.stderr).toContain('Hint: Put FILE before --lookup (which takes several values), or after `--`.')
  })
})
