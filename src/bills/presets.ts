/**
 * The shipped presets (`maps/*.yaml`) and what each needs from the user, read from the comment
 * block at the top of each file (its "Needs from you:" section), so the file stays the one place
 * that says it.
 */
import {existsSync, readdirSync, readFileSync} from 'node:fs'

import {InputError} from '../shared/errors.js'
import {presetFolder} from './map-file.js'

export interface PresetInfo {
  name: string
  /** The package and layout, from the file's first comment line. */
  title: string
  /** Each flag the preset needs, as its comment states it. */
  needs: string[]
}

/** A preset in full, for `bk bills maps show`: its sources, and the map as shipped. */
export interface PresetDetails extends PresetInfo {
  /** Where each layout it reads is documented (its "Sources:" comment section). */
  sources: string[]
  file: string
  text: string
}

export function listPresets(): PresetInfo[] {
  const folder = presetFolder()
  return readdirSync(folder)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((file) => {
      const {name, title, needs} = readPreset(folder, file)
      return {name, title, needs}
    })
}

/** One preset by name, or an error listing the presets. */
export function presetDetails(name: string): PresetDetails {
  const folder = presetFolder()
  if (!/^[a-z0-9-]+$/.test(name) || !existsSync(`${folder}${name}.yaml`))
    throw new InputError(`No preset named "${name}"`, {
      hint: `The presets: ${listPresets()
        .map((p) => p.name)
        .join(', ')}.`,
    })
  return readPreset(folder, `${name}.yaml`)
}

function readPreset(folder: string, file: string): PresetDetails {
  const text = readFileSync(`${folder}${file}`, 'utf8')
  const comments: string[] = []
  for (const line of text.split('\n')) {
    if (!line.startsWith('#')) break
    comments.push(line.replace(/^# ?/, ''))
  }
  return {
    name: file.replace(/\.yaml$/, ''),
    title: comments[0]?.replace(/:.*$/, '') ?? '',
    needs: section(comments, /^Needs from you:/, /^\s{2,3}--/),
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
