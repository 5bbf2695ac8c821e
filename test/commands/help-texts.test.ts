/**
 * Help says what bk does, as bk spells it: every example with its `$ ` prompt, flags under their
 * own names (`bk api` pages with --paginate, not --all), no `…...` after a value, and the command
 * reference (docs/commands.md) with commands written as they are typed, never `topic:command`.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it, vi} from 'vitest'

import {ROOT, runBk} from '../helpers/bk.js'

vi.setConfig({testTimeout: 240_000})

interface ManifestCommand {
  id: string
  hidden?: boolean
  pluginName?: string
  examples?: Array<string | {command: string}>
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
  commands: Record<string, ManifestCommand>
}
const ours = Object.values(manifest.commands).filter((c) => !c.hidden && !c.id.startsWith('autocomplete'))

describe('help texts', () => {
  it('every example of bk commands shows the $ prompt', async () => {
    const texts = JSON.parse(readFileSync(join(ROOT, 'dist', 'help.json'), 'utf8')) as {texts: Record<string, string>}
    for (const c of ours.filter((c) => c.id !== 'help')) {
      const text = texts.texts[c.id.split(':').join(' ')]
      expect(text, c.id).toBeDefined()
      // The examples end where the next section (a topic's COMMANDS) begins.
      const examples = (text!.split('\nEXAMPLES\n')[1] ?? '').split(/\n[A-Z][A-Z ]+\n/)[0]!
      for (const line of examples.split('\n').filter((l) => l.trim()))
        expect(line, `${c.id}: ${line}`).toMatch(/^ {2}\$ | {4}/)
    }
  })

  it('bk api names --paginate, the flag it has, and never --all', async () => {
    const help = await runBk(['api', '--help'])
    expect(help.stdout).toContain('--paginate')
    expect(help.stdout).not.toContain('--all')
  })

  it('a value flag given several times reads ID..., not ID,…...', async () => {
    const help = await runBk(['documents', 'unlink', '--help'])
    expect(help.stdout).not.toContain('…...')
    expect(help.stdout).toContain('--from ID...')
  })

  it('no usage line offers an empty alternative', async () => {
    const help = await runBk(['bills', 'import', '--help'])
    const usage = help.stdout.split('\nARGUMENTS')[0]!.replace(/\n\s+/g, ' ')
    expect(usage).toContain('[--resume | --restart]')
    expect(usage).not.toMatch(/\| \]|\[ \||\[\]/)
    // The same in every command's help, as built.
    const texts = JSON.parse(readFileSync(join(ROOT, 'dist', 'help.json'), 'utf8')) as {texts: Record<string, string>}
    for (const [id, text] of Object.entries(texts.texts))
      expect(text.split('\nARGUMENTS')[0]!.split('\nFLAGS')[0]!.replace(/\n\s+/g, ' '), id).not.toMatch(
        /\| \]|\[ \||\[\]/,
      )
  })

  it('lists of values break between words, never inside one', async () => {
    const help = await runBk(['emulator', 'trigger', '--help'])
    const words = new Set(help.stdout.split(/[\s,.|()]+/))
    for (const type of ['AGGREGATOR_ACCOUNT_EXPIRED', 'BUSINESS_CREATED', 'STATEMENT_IMPORTED'])
      expect(words.has(type), `${type} whole in:\n${help.stdout}`).toBe(true)
  })

  it('docs/commands.md writes commands as they are typed', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'commands.md'), 'utf8')
    expect(doc.match(/bk [a-z-]+:[a-z-]+/g) ?? []).toEqual([])
    expect(doc).toContain('## `bk journal-entries create FILE... [FLAGS]`')
  })
})
