/**
 * Issue 30, tried as a new user would from the README: each mistake below once ended in an
 * `Error:` line with no next step, or in the wrong error. Each is now one `Error:` line naming
 * what and where, and one `Hint:` line saying the fix, through the real binary.
 */
import {mkdirSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runBk, tempDir, type BkResult} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

/** The two lines on stderr, nothing on stdout. */
function twoLines(result: BkResult): {error: string; hint: string} {
  expect(result.stdout).toBe('')
  expect(result.stderr, result.stderr).toMatch(/^Error: [^\n]+\nHint: [^\n]+\n$/)
  const [error, hint] = result.stderr.split('\n') as [string, string]
  return {error, hint}
}

describe('files that are not there', () => {
  it.each([
    ['bills', 'import', 'missing.csv'],
    ['bills', 'import', 'missing.csv', '--dry-run'],
    ['journal-entries', 'validate', 'missing.yaml'],
  ])('bk %s %s %s: names the folder a relative path is read from', async (...args) => {
    const cwd = tempDir('bk-messages-')
    const result = await runBk(args, {env: envFor(emulator), cwd})
    expect(result.code).toBe(2)
    const {error, hint} = twoLines(result)
    expect(error).toBe(`Error: Cannot read ${args[2]}: no such file`)
    expect(hint).toBe(`Hint: Check the path: it is read from the current folder, ${cwd}.`)
  })

  it('webhooks verify --body missing.json: in words, not a Node error code', async () => {
    const cwd = tempDir('bk-messages-')
    const result = await runBk(['webhooks', 'verify', '--id', 'x', '--signature', 'y', '--body', 'missing.json'], {
      env: envFor(emulator),
      cwd,
    })
    expect(result.code).toBe(2)
    expect(twoLines(result)).toEqual({
      error: 'Error: Cannot read --body file missing.json: no such file',
      hint: `Hint: Check the path: it is read from the current folder, ${cwd}.`,
    })
  })

  it('a folder given as the bills file: name a file in it', async () => {
    const cwd = tempDir('bk-messages-')
    mkdirSync(join(cwd, 'exports'))
    const result = await runBk(['bills', 'import', 'exports'], {env: envFor(emulator), cwd})
    expect(result.code).toBe(2)
    expect(twoLines(result)).toEqual({
      error: 'Error: exports is a folder, not a CSV file',
      hint: 'Hint: Name a CSV file in that folder.',
    })
  })
})

describe('values of flags and arguments', () => {
  it('a due date that is not one: the form to write', async () => {
    const result = await runBk(['invoices', 'list', '--due-from', '2026-13-01'], {env: envFor(emulator)})
    expect(result.code).toBe(2)
    expect(twoLines(result).hint).toBe('Hint: Give the day as YYYY-MM-DD: --due-from 2026-03-01.')
  })

  it('an --as-of that is not a date: the form to write', async () => {
    const result = await runBk(['invoices', 'aging', '--as-of', 'yesterday'], {env: envFor(emulator)})
    expect(result.code).toBe(2)
    expect(twoLines(result).hint).toBe('Hint: Give the day as YYYY-MM-DD: --as-of 2026-06-30.')
  })

  it('an id of the wrong kind: the prefix it needs', async () => {
    const result = await runBk(['transactions', 'get', 'nope'], {env: envFor(emulator)})
    expect(result.code).toBe(2)
    expect(twoLines(result)).toEqual({
      error: 'Error: Invalid transaction id "nope": expected an id starting with txn_',
      hint: 'Hint: Give the whole transaction id as the service wrote it: txn_ and what follows.',
    })
  })
})

describe('names from a fixed list', () => {
  it('--map with a mistyped preset: the preset meant, not a file that is not there', async () => {
    const result = await runBk(['bills', 'import', 'examples/bills.csv', '--map', 'xer', '--dry-run'], {
      env: envFor(emulator),
    })
    expect(result.code).toBe(2)
    expect(twoLines(result)).toEqual({
      error: 'Error: --map xer: no preset and no map file has that name',
      hint: 'Hint: Did you mean --map xero? `bk bills maps` lists the presets; a map of your own is given as the path to its .yaml file.',
    })
  })

  it('webhooks replay --status with a status that is not one: the values it takes', async () => {
    const result = await runBk(['webhooks', 'replay', '--status', 'bogus'], {env: envFor(emulator)})
    expect(result.code).toBe(2)
    expect(twoLines(result)).toEqual({
      error: 'Error: Unknown notification status in --status: "bogus"',
      hint: 'Hint: It takes pending, sent, error.',
    })
  })

  it('refunds list --status with a slip of typing: the status meant, before any request', async () => {
    const result = await runBk(['refunds', 'list', '--status', 'completed,pendng'], {env: envFor(emulator)})
    expect(result.code).toBe(2)
    expect(twoLines(result)).toEqual({
      error: 'Error: Unknown refund status in --status: "pendng"',
      hint: 'Hint: Did you mean pending? It takes pending, completed, voided.',
    })
  })
})

describe("the service's refusals", () => {
  it('an id the service does not know (404): check the id and the business', async () => {
    const result = await runBk(['transactions', 'get', 'txn_nope'], {env: envFor(emulator)})
    expect(result.code).toBe(4)
    const {error, hint} = twoLines(result)
    expect(error).toContain('Transaction txn_nope not found')
    expect(hint).toBe(
      'Hint: Check the id, and that it belongs to the business the command used (`bk auth status` shows which; --business changes it).',
    )
  })

  it('a value the service refuses (422): the hint says what to change', async () => {
    const result = await runBk(['invoices', 'list', '--status', 'bogus'], {env: envFor(emulator)})
    expect(result.code).toBe(5)
    const {error, hint} = twoLines(result)
    expect(error).toContain('"bogus" is not one of')
    expect(hint).toBe(
      'Hint: The service refused the request as sent: change what the error names and run the command again.',
    )
  })
})

describe('profiles', () => {
  it('removing a profile that does not exist says so, rather than asking to confirm', async () => {
    const result = await runBk(['profiles', 'remove', 'nope'])
    expect(result.code).toBe(2)
    expect(twoLines(result)).toEqual({
      error: 'Error: No profile named "nope": there are no profiles yet',
      hint: 'Hint: Add a profile with `bk profiles add NAME --env sandbox --client-id ID --base-url URL`.',
    })
  })

  it('--client-secret-stdin with nothing on stdin: how to pipe the secret', async () => {
    const result = await runBk(
      [
        'profiles',
        'add',
        'x',
        '--env',
        'local',
        '--base-url',
        emulator.baseUrl,
        '--client-id',
        'c',
        '--client-secret-stdin',
      ],
      {input: ''},
    )
    expect(result.code).toBe(2)
    expect(twoLines(result)).toEqual({
      error: 'Error: --client-secret-stdin was given but standard input was empty',
      hint: 'Hint: Pipe the secret in, e.g. `printf %s "$SECRET" | bk profiles add … --client-secret-stdin`.',
    })
  })
})
