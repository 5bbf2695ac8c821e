/**
 * The map of the code stays whole: every source file under src/ is named, by its base name
 * (`created-record.ts`), in the README.md of its folder or of a folder above it within src/, or in
 * docs/architecture.md. A file added without its line fails here (docs/architecture.md, "Every
 * file named").
 */
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {dirname, join, relative} from 'node:path'
import {describe, expect, it} from 'vitest'

import {ROOT} from '../helpers/bk.js'

const SRC = join(ROOT, 'src')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.md') ? [] : [path]
  })
}

/** Whether `text` names `file` as a word of its own: `api.ts` is not named by `emulator-api.ts`. */
function names(text: string, file: string): boolean {
  const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return new RegExp(`(?<![\\w.-])${escaped}(?![\\w-])`).test(text)
}

/** The READMEs that may name a file: its folder's and each folder's above it, up to src/. */
function readmesFor(file: string): string[] {
  const texts: string[] = []
  for (let dir = dirname(file); dir.startsWith(SRC); dir = dirname(dir)) {
    const readme = join(dir, 'README.md')
    if (existsSync(readme)) texts.push(readFileSync(readme, 'utf8'))
  }
  return texts
}

describe('every source file is named in a folder README or docs/architecture.md', () => {
  it('reads a name only as a word of its own', () => {
    expect(names('- `created-record.ts`: the record', 'created-record.ts')).toBe(true)
    expect(names('see routes/index.ts.', 'index.ts')).toBe(true)
    expect(names('`emulator-api.ts`', 'api.ts')).toBe(false)
    expect(names('`api.tsx`', 'api.ts')).toBe(false)
  })

  it('finds no file left unnamed', () => {
    const architecture = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8')
    const files = sourceFiles(SRC)
    expect(files.length).toBeGreaterThan(100)
    const unnamed = files
      .filter((file) => {
        const base = file.slice(dirname(file).length + 1)
        return ![architecture, ...readmesFor(file)].some((text) => names(text, base))
      })
      .map((file) => relative(ROOT, file))
    expect(unnamed, `name each in its folder's README.md (or docs/architecture.md):\n${unnamed.join('\n')}`).toEqual([])
  })
})
