/**
 * A mistyped command is never run as its closest match: bk names the suggestion in one plain
 * error line (or the --json error) and exits 2, on a terminal too.
 */
import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'

import {parseJsonOutput, runBk} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'
import {plain, runBkTty} from '../helpers/tty.js'

vi.setConfig({testTimeout: 240_000})

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

const TYPO = ['rules', 'receipts', 'sett', '--threshold', '10', '--yes']

describe('a mistyped command', () => {
  it('on a terminal, Enter at whatever is shown runs nothing; exit 2 with the suggestion', async () => {
    const result = await runBkTty(TYPO, {
      env: envFor(emulator),
      answers: [
        {when: /sett/, send: '\r'},
        {when: /\?/, send: 'y\r'},
      ],
    })
    expect(result.code, result.stdout).toBe(2)
    expect(plain(result.stdout)).toContain('did you mean "bk rules receipts set"?')
    expect(emulator.state.receiptConfigs.size).toBe(0)
  })

  it('under CI: one plain error line with the suggestion, exit 2', async () => {
    const result = await runBk(TYPO, {env: {...envFor(emulator), CI: '1'}})
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(
      /^Error: "bk rules receipts sett" is not a bk command; did you mean "bk rules receipts set"\?\n/,
    )
    // eslint-disable-next-line no-control-regex
    expect(result.stderr).not.toMatch(/\u001B\[/)
    expect(result.stdout).toBe('')
    expect(emulator.state.receiptConfigs.size).toBe(0)
  })

  it('with --json: the error document names the suggestion', async () => {
    const result = await runBk(['invoices', 'lst', '--json'], {env: envFor(emulator)})
    expect(result.code).toBe(2)
    expect(parseJsonOutput(result)).toEqual({
      error: '"bk invoices lst" is not a bk command; did you mean "bk invoices list"?',
      code: 'command_not_found',
      hint: 'Run `bk invoices list`, or `bk help invoices` for the commands there are.',
      details: {command: 'invoices lst', suggestion: 'invoices list'},
    })
  })

  it('far from every command: no suggestion', async () => {
    const result = await runBk(['zzzzzz'], {env: envFor(emulator)})
    expect(result.code).toBe(2)
    expect(result.stderr).toBe(
      'Error: "bk zzzzzz" is not a bk command\nHint: Run `bk help` for the commands there are.\n',
    )
  })

  it('a topic mistyped alone: the topic, whose commands it lists', async () => {
    const result = await runBk(['invoice'])
    expect(result.code).toBe(2)
    expect(result.stderr).toBe(
      'Error: "bk invoice" is not a bk command; did you mean "bk invoices"?\n' +
        'Hint: Run `bk invoices`, or `bk help` for the commands there are.\n',
    )
    const command = await runBk(['invoice', 'list'])
    expect(command.stderr).toContain('did you mean "bk invoices list"?')
  })

  it('a command named without its topic: the command under it', async () => {
    const maps = await runBk(['maps', 'init', 'export.csv'])
    expect(maps.code).toBe(2)
    expect(maps.stderr).toBe(
      'Error: "bk maps init export.csv" is not a bk command; did you mean "bk bills maps init"?\n' +
        'Hint: Run `bk bills maps init`, or `bk help` for the commands there are.\n',
    )
    expect((await runBk(['receipts', 'set', '--enabled'])).stderr).toContain('did you mean "bk rules receipts set"?')
    // Under more than one topic: no guess from the topic, the closest command as before.
    expect((await runBk(['list'])).stderr).not.toContain('did you mean "bk invoices list"?')
  })

  it("help for a command that does not exist: the same words, not oclif's", async () => {
    const result = await runBk(['help', 'invoices', 'lst'])
    expect(result.code).toBe(2)
    expect(result.stderr).toBe(
      'Error: "bk invoices lst" is not a bk command; did you mean "bk invoices list"?\n' +
        'Hint: Run `bk invoices list`, or `bk help invoices` for the commands there are.\n',
    )
    const far = await runBk(['help', 'nosuch'])
    expect(far.code).toBe(2)
    expect(far.stderr).toBe('Error: "bk nosuch" is not a bk command\nHint: Run `bk help` for the commands there are.\n')
  })

  it('a flag before the command: the same line with the command first', async () => {
    const result = await runBk(['-p', 'loc', 'invoices', 'list', '--limit', '2'], {env: envFor(emulator)})
    expect(result.code).toBe(2)
    expect(result.stderr).toBe(
      'Error: "bk -p" is not a bk command: flags go after the command, as in "bk invoices list -p loc --limit 2"\n' +
        'Hint: Run `bk invoices list -p loc --limit 2`, or `bk help` for the commands there are.\n',
    )
    const json = await runBk(['--json', 'invoices', 'list'], {env: envFor(emulator)})
    expect(json.code).toBe(2)
    expect(parseJsonOutput(json)).toMatchObject({
      error: '"bk --json" is not a bk command: flags go after the command, as in "bk invoices list --json"',
      details: {suggestion: 'invoices list --json'},
    })
  })
})
