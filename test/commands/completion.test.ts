/**
 * Bash completion as a user gets it: `bk autocomplete create` writes the completion function (the
 * one the .deb installs, docs/install.md), and bash runs it for a line typed so far. Each topic,
 * command and flag is offered once.
 */
import {spawnSync} from 'node:child_process'
import {join} from 'node:path'

import {beforeAll, describe, expect, it} from 'vitest'

import {runBk, tempDir} from '../helpers/bk.js'

let script: string
beforeAll(async () => {
  const cache = tempDir('bk-completion-')
  const created = await runBk(['autocomplete', 'create'], {env: {BK_CACHE_DIR: cache}})
  expect(created.code, created.stderr).toBe(0)
  script = join(cache, 'autocomplete', 'functions', 'bash', 'bk.bash')
})

/** What bash offers for `line` (the words typed so far; a trailing space starts a new word). */
function offered(line: string): string[] {
  const run = spawnSync(
    'bash',
    [
      '--norc',
      '-c',
      'source "$1"; read -ra COMP_WORDS <<< "$2"; [[ "$2" == *" " ]] && COMP_WORDS+=(""); ' +
        'COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _bk_autocomplete; printf "%s\\n" "${COMPREPLY[@]}"',
      'bash',
      script,
      line,
    ],
    {encoding: 'utf8'},
  )
  expect(run.status, run.stderr).toBe(0)
  return run.stdout.split('\n').filter(Boolean)
}

describe('bash completion', () => {
  it('offers each topic and command once, at the top and under a topic', () => {
    const top = offered('bk ')
    expect(top).toEqual([...new Set(top)])
    expect(top.filter((w) => w === 'bills')).toEqual(['bills'])
    expect(top).toEqual(expect.arrayContaining(['api', 'auth', 'bills', 'doctor', 'invoices', 'webhooks']))
    expect(offered('bk b')).toEqual(['bills', 'businesses'])
    expect(offered('bk bills ')).toEqual(['import', 'lookups', 'maps', 'record', 'unconfirmed'])
    expect(offered('bk bills maps ')).toEqual(['init', 'show'])
  })

  it('offers a command its flags, once each', () => {
    const flags = offered('bk bills import --')
    expect(flags).toEqual([...new Set(flags)])
    expect(flags).toEqual(expect.arrayContaining(['--dry-run', '--map', '--lookup', '--resume']))
    expect(offered('bk bills import --dr')).toEqual(['--dry-run'])
  })

  it('offers a command its flags after an argument or another flag', () => {
    expect(offered('bk bills import bills.csv --dr')).toEqual(['--dry-run'])
    expect(offered('bk bills import --dry-run --ma')).toEqual(['--map', '--max-errors'])
    expect(offered('bk bills import bills.csv --map xero --lo')).toEqual(['--lookup'])
    expect(offered('bk invoices list --status paid --')).toEqual(expect.arrayContaining(['--all', '--summary']))
  })

  it('leaves file names to bash where it offers nothing (a FILE argument)', () => {
    expect(offered('bk bills import ./bills')).toEqual([])
    // `-o default`: with no answer from the function, bash completes a file name.
    const registered = spawnSync('bash', ['--norc', '-c', 'source "$1"; complete -p bk', 'bash', script], {
      encoding: 'utf8',
    })
    expect(registered.status, registered.stderr).toBe(0)
    expect(registered.stdout).toMatch(/^complete -o default -F _bk_autocomplete bk$/m)
  })
})
