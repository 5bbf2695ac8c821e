/**
 * The example exports under examples/exports/, found rather than listed: each folder's bill
 * files (any file with its expected bodies beside it), its map (the preset of the folder's name, or
 * its map.yaml), and the import command its README gives for a file, as flags.
 */
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {ROOT} from '../helpers/bk.js'

export const EXPORTS = join(ROOT, 'examples', 'exports')

export interface ExampleExport {
  folder: string
  file: string
  path: string
  expected: string
  /** A preset of the folder's name, if bk ships one. */
  preset: string | undefined
  /** The map the README imports it with: a preset's name or the folder's map.yaml. */
  map: string
  /** The README's flags for this file (without the file and --map), if it gives a command for it. */
  flags: string[] | undefined
}

export function exampleExports(): ExampleExport[] {
  const out: ExampleExport[] = []
  for (const folder of readdirSync(EXPORTS, {withFileTypes: true})) {
    if (!folder.isDirectory()) continue
    const dir = join(EXPORTS, folder.name)
    const preset = existsSync(join(ROOT, 'maps', `${folder.name}.yaml`)) ? folder.name : undefined
    const commands = readmeCommands(dir)
    for (const file of readdirSync(dir).sort()) {
      // An export is any file with its expected bodies beside it: .csv, MYOB's .txt, Manager.io's
      // .tsv, QuickBooks Desktop's .iif. Lookup files and a lines file have none.
      if (file.endsWith('.json') || file.endsWith('.md') || file.endsWith('.yaml')) continue
      const stem = file.replace(/\.[^.]+$/, '')
      const own = join(dir, `${stem}.expected.json`)
      // A folder's first example, bills.csv, may keep its bodies in plain expected.json.
      const expected = existsSync(own) || stem !== 'bills' ? own : join(dir, 'expected.json')
      if (!existsSync(expected)) continue
      const command = commands.get(file)
      const mapFlag = command?.[command.indexOf('--map') + 1]
      // A file the README imports with the folder's map.yaml is the map language's example, not the preset's.
      const filePreset = mapFlag?.endsWith('.yaml') ? undefined : preset
      out.push({
        folder: folder.name,
        file,
        path: join(dir, file),
        expected,
        preset: filePreset,
        map: mapFlag ?? preset ?? join(dir, 'map.yaml'),
        flags: command && withoutMap(command),
      })
    }
  }
  return out
}

/** The `bk bills import` commands of a folder's README, by file, as words (paths made absolute). */
function readmeCommands(dir: string): Map<string, string[]> {
  const out = new Map<string, string[]>()
  const readme = join(dir, 'README.md')
  if (!existsSync(readme)) return out
  const blocks = readFileSync(readme, 'utf8').match(/```sh\n[\s\S]*?```/g) ?? []
  for (const block of blocks) {
    const text = block.replace(/^```sh\n|```$/g, '').replace(/\\\n\s*/g, ' ')
    for (const line of text.split('\n')) {
      // Shell quoting as the README writes it ('--delimiter ';'): the word without its quotes.
      const words = line
        .trim()
        .split(/\s+/)
        .map((w) => w.replace(/^'(.*)'$/, '$1'))
      if (words[0] !== 'bk' || words[1] !== 'bills' || words[2] !== 'import') continue
      const abs = words.map((w) =>
        w.replace(/(^|=)(examples\/exports\/)/, (_m, pre: string) => `${pre}${ROOT}/examples/exports/`),
      )
      const file = abs[3]!.split('/').pop()!
      out.set(file, abs.slice(4))
    }
  }
  return out
}

function withoutMap(words: string[]): string[] {
  const i = words.indexOf('--map')
  return i === -1 ? words : [...words.slice(0, i), ...words.slice(i + 2)]
}

/** The value of a flag in a list of words. */
export function flagValue(flags: readonly string[], name: string): string | undefined {
  const i = flags.indexOf(name)
  return i === -1 ? undefined : flags[i + 1]
}
