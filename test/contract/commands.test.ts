/**
 * The command surface as a contract: every command with its flags and arguments. A change to
 * the surface is a visible diff of command-snapshot.json (update with `npx vitest run -u`).
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {ROOT} from '../helpers/bk.js'

interface ManifestFlag {
  name: string
  type: string
  char?: string
  required?: boolean
  multiple?: boolean
  options?: string[]
  allowNo?: boolean
  default?: unknown
}
interface ManifestCommand {
  id: string
  flags: Record<string, ManifestFlag>
  args: Record<string, {name: string; required?: boolean}>
  enableJsonFlag?: boolean
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, ManifestCommand>
}

describe('command surface', () => {
  it('matches the committed snapshot', async () => {
    const surface = Object.values(manifest.commands)
      .sort((a, b) => a.id.localeCompare(b.id))
      .map((c) => ({
        id: c.id,
        args: Object.values(c.args).map((a) => `${a.name}${a.required ? '' : '?'}`),
        flags: Object.values(c.flags)
          .sort((a, b) => a.name.localeCompare(b.name))
          .map((f) =>
            [
              `--${f.name}`,
              f.char ? `-${f.char}` : '',
              f.type,
              f.required ? 'required' : '',
              f.multiple ? 'multiple' : '',
              f.allowNo ? 'allowNo' : '',
              f.options ? `(${f.options.join('|')})` : '',
            ]
              .filter(Boolean)
              .join(' '),
          ),
      }))
    await expect(JSON.stringify(surface, null, 2) + '\n').toMatchFileSnapshot('./command-snapshot.json')
  })

  it('every list and get command takes --fields, and every command with --json takes --jq', () => {
    const commands = Object.values(manifest.commands).filter((c) => !c.id.startsWith('autocomplete') && c.id !== 'help')
    const listOrGet = commands.filter((c) => /:(list|get|show)$/.test(c.id))
    expect(listOrGet.map((c) => c.id)).toEqual(
      expect.arrayContaining(['businesses:list', 'invoices:list', 'refunds:list', 'transactions:get', 'profiles:list']),
    )
    expect(listOrGet.filter((c) => !c.flags.fields).map((c) => c.id)).toEqual([])
    expect(commands.filter((c) => c.flags.json && !c.flags.jq).map((c) => c.id)).toEqual([])
  })

  it('every command supports --json and --profile', () => {
    const missing = Object.values(manifest.commands)
      .filter((c) => !c.id.startsWith('autocomplete') && c.id !== 'help')
      .filter((c) => !c.flags.json || !c.flags.profile)
      .map((c) => c.id)
    expect(missing).toEqual([])
  })
})
