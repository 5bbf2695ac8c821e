/**
 * The shipped presets (`maps/*.yaml`) and what each needs from the user: the flags of its
 * `needs:` key (which bills import enforces) and `optional:` key, so the map is the one place
 * that says it; its title and sources come from the comment block at the top of the file.
 */
import {existsSync, readdirSync, readFileSync} from 'node:fs'

import {InputError} from '../shared/errors.js'
import {loadBillMap, presetFolder} from './map-file.js'

export interface PresetInfo {
  name: string
  /** The package and layout, from the file's first comment line. */
  title: string
  /** Each flag the preset needs (`--flag  what it means`), then those that may help, marked optional. */
  needs: string[]
}

/** A preset in full, for `bk bills maps show`: its sources, and the map as shipped. */
export interface PresetDetails extends PresetInfo {
  /** Where each layout it reads is documented (its "Sources:" comment section). */
  sources: string[]
  file: string
  text: string
}

/** The presets' names, from the files in maps/. */
export function presetNames(): string[] {
  return readdirSync(presetFolder())
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => f.replace(/\.yaml$/, ''))
}

export async function listPresets(): Promise<PresetInfo[]> {
  const folder = presetFolder()
  return Promise.all(
    presetNames().map(async (name) => {
      const {title, needs} = await readPreset(folder, `${name}.yaml`)
      return {name, title, needs}
    }),
  )
}

/** One preset by name, or an error listing the presets. */
export async function presetDetails(name: string): Promise<PresetDetails> {
  const folder = presetFolder()
  if (!/^[a-z0-9-]+$/.test(name) || !existsSync(`${folder}${name}.yaml`))
    throw new InputError(`No preset named "${name}"`, {
      hint: `The presets: ${presetNames().join(', ')}.`,
    })
  return readPreset(folder, `${name}.yaml`)
}

async function readPreset(folder: string, file: string): Promise<PresetDetails> {
  const map = await loadBillMap(file.replace(/\.yaml$/, ''))
  const flag = (f: string) => (f.startsWith('lookup ') ? `--lookup ${f.slice(7)}=FILE.csv` : `--${f}`)
  const text = readFileSync(`${folder}${file}`, 'utf8')
  const comments: string[] = []
  for (const line of text.split('\n')) {
    if (!line.startsWith('#')) break
    comments.push(line.replace(/^# ?/, ''))
  }
  return {
    name: file.replace(/\.yaml$/, ''),
    title: comments[0]?.replace(/:.*$/, '') ?? '',
    needs: [
      ...[...map.needs].map(([f, what]) => `${flag(f)}  ${what}`),
      ...[...map.optional].map(([f, what]) => `${flag(f)}  optional: ${what}`),
    ],
    sources: section(comments, /^Sources:/, /^\s{2,3}\S/),
    file: `${folder}${file}`,
    text,
  }
}

/** The entries of a comment section: each starts at `entry`; deeper-indented lines continue it. */
function section(comments: string[], heading: RegExp, entry: RegExp): string[] {
  const start = comments.findIndex((l) => heading.test(l))
  const entries: string[] = []
  for (const l of start === -1 ? [] : comments.slice(start + 1)) {
    if (l.trim() === '') break
    if (entry.test(l)) entries.push(l.trim().replace(/\s{2,}/g, '  '))
    else if (entries.length > 0 && /^\s{4,}/.test(l)) entries[entries.length - 1] += ` ${l.trim()}`
  }
  return entries
}
