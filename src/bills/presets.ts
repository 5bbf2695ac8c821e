/**
 * The shipped presets (`maps/*.yaml`) and what each needs from the user, read from the comment
 * block at the top of each file (its "Needs from you:" section), so the file stays the one place
 * that says it.
 */
import {readdirSync, readFileSync} from 'node:fs'

import {presetFolder} from './map-file.js'

export interface PresetInfo {
  name: string
  /** The package and layout, from the file's first comment line. */
  title: string
  /** Each flag the preset needs, as its comment states it. */
  needs: string[]
}

export function listPresets(): PresetInfo[] {
  const folder = presetFolder()
  return readdirSync(folder)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((file) => {
      const comments: string[] = []
      for (const line of readFileSync(`${folder}${file}`, 'utf8').split('\n')) {
        if (!line.startsWith('#')) break
        comments.push(line.replace(/^# ?/, ''))
      }
      const start = comments.findIndex((l) => /^Needs from you:/.test(l))
      const needs: string[] = []
      for (const l of start === -1 ? [] : comments.slice(start + 1)) {
        if (l.trim() === '') break
        // A flag starts an entry; deeper-indented lines continue it.
        if (/^\s{2,3}--/.test(l)) needs.push(l.trim().replace(/\s{2,}/g, '  '))
        else if (needs.length > 0 && /^\s{4,}/.test(l)) needs[needs.length - 1] += ` ${l.trim()}`
      }
      return {name: file.replace(/\.yaml$/, ''), title: comments[0]?.replace(/:.*$/, '') ?? '', needs}
    })
}
