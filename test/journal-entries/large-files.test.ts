/**
 * Journal-entry files are read piece by piece, with memory bounded by the entry rather than the
 * file: a file several times larger than bk's heap validates, every problem still named by the
 * line and column it has in the whole file (across the pieces the file is read and parsed in,
 * and a character cut in two by a piece), and a long list of problems is cut.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {beforeAll, describe, expect, it} from 'vitest'

import {parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'

/** The byte at which bk's second read of a file begins (src/journal-entries/files.ts READ_SIZE). */
const READ_SIZE = 256 * 1024

function entry(i: number, description = `Entrée ${i} €`, credit = `${i}.10`): string {
  return (
    `  - description: ${description}\n    datetime: 2026-03-01T09:00:00Z\n    lines:\n` +
    `      - {ledger_id: ldg_demo_expenses, debit: ${i}.10, tag_value_ids: [tv_a${i}]}\n` +
    `      - ledger_id: ldg_demo_cash\n        credit: ${credit}\n`
  )
}

interface Built {
  text: string
  count: number
  /** "line:column: message" of each planted problem, in file order. */
  expected: string[]
}

/**
 * About `bytes` of entries; with `plant`, broken entries here and there (each problem's place is
 * computed as the text is built). A `€` always straddles the end of the first read.
 */
function build(bytes: number, plant: boolean): Built {
  const parts = ['entries:\n']
  let size = Buffer.byteLength(parts[0] as string)
  let lines = 1
  let count = 0
  const expected: string[] = []
  const add = (text: string) => {
    parts.push(text)
    size += Buffer.byteLength(text)
    lines += text.split('\n').length - 1
    count++
  }
  let straddled = false
  while (size < bytes) {
    const i = count + 1
    const first = lines + 1 // the line of this entry's "- description"
    if (!straddled && size + 400 > READ_SIZE) {
      // Pad the description so that its € (3 bytes) begins one byte before the end of the first read.
      const head = `  - description: `
      const pad = READ_SIZE - 1 - size - Buffer.byteLength(head)
      add(entry(i, `${'x'.repeat(pad)}€ straddles`))
      straddled = true
    } else if (plant && i % 997 === 0) {
      add(entry(i, `Unbalanced ${i}`, `${i}.11`))
      expected.push(
        `${first + 2}:5: entry ${i} "Unbalanced ${i}": does not balance: debits ${i}.10, credits ${i}.11, difference 0.01 (credits higher)`,
      )
    } else if (plant && i % 1409 === 0) {
      add(entry(i, `Twice ${i}`).replace('    lines:\n', '    datetime: 2026-03-01T09:00:00Z\n    lines:\n'))
      expected.push(`${first + 2}:5: entry ${i} "Twice ${i}": datetime appears twice in an entry; write each key once`)
    } else if (plant && i % 1811 === 0) {
      add(entry(i).replace(`credit: ${i}.10`, `credit: ${i}.10: more`))
      expected.push(`${first + 5}:17: entry ${i}: YAML syntax: Nested mappings are not allowed in compact mappings`)
    } else {
      add(entry(i))
    }
  }
  return {text: parts.join(''), count, expected}
}

let dir: string
beforeAll(() => {
  dir = tempDir('bk-je-large-')
})

describe('journal-entries files larger than a piece', () => {
  it('name every problem at its line and column in the whole file, read from a file or stdin', async () => {
    const built = build(1_200_000, true)
    expect(built.expected.length).toBeGreaterThan(4)
    const file = join(dir, 'planted.yaml')
    writeFileSync(file, built.text)
    for (const [args, input, label] of [
      [[file], undefined, file],
      [['-'], built.text, '<stdin>'],
    ] as const) {
      const result = await runBk(['journal-entries', 'validate', ...args, '--json'], input ? {input} : {})
      expect(result.code, result.stderr).toBe(2)
      const problems = parseJsonOutput<{details: {problems: Array<{text: string}>}}>(result).details.problems
      expect(problems.length, JSON.stringify(problems, null, 1)).toBe(built.expected.length)
      problems.forEach((p, i) => expect(p.text).toContain(`${label}:${built.expected[i]}`))
    }
  })

  it('validate a clean file, counting every entry and line, the € cut by a read kept whole', async () => {
    const built = build(700_000, false)
    const file = join(dir, 'clean.yaml')
    writeFileSync(file, built.text)
    const result = await runBk(['journal-entries', 'validate', file, '--json'])
    expect(result.code, result.stderr).toBe(0)
    expect(parseJsonOutput(result)).toEqual({
      valid: true,
      files: [{file, entries: built.count, lines: 2 * built.count}],
    })
    // A non-UTF-8 byte deep in the file is named at its line and column.
    const bad = Buffer.from(built.text.replace(`Entrée ${built.count - 1} €`, `Entr\u00e9e ${built.count - 1} X`))
    const at = bad.indexOf(`Entr\u00e9e ${built.count - 1} X`) + 4
    bad[at] = 0xe9 // é in Windows-1252
    bad[at + 1] = 0x65 // e: the two UTF-8 bytes of é become "\xe9e"
    writeFileSync(file, bad)
    const line = built.text.slice(0, built.text.indexOf(`Entrée ${built.count - 1} €`)).split('\n').length
    const broken = await runBk(['journal-entries', 'validate', file])
    expect(broken.code).toBe(2)
    expect(broken.stderr).toContain(`${file}:${line}:22: holds bytes that are not UTF-8`)
  })

  it('validate a file several times larger than the heap bk is given', async () => {
    // 4 MB of entries against a 48 MB heap: read whole, its syntax tree alone needs several times that.
    const built = build(4_000_000, false)
    const file = join(dir, 'large.yaml')
    writeFileSync(file, built.text)
    const result = await runBk(['journal-entries', 'validate', file, '--json'], {
      env: {NODE_OPTIONS: '--max-old-space-size=48'},
      timeoutMs: 180_000,
    })
    expect(result.code, result.stderr.slice(0, 2000)).toBe(0)
    expect(parseJsonOutput(result)).toEqual({
      valid: true,
      files: [{file, entries: built.count, lines: 2 * built.count}],
    })
  }, 240_000)
  it('cut a long list of problems with "… and N more"', async () => {
    const text = 'entries:\n' + Array.from({length: 250}, (_, i) => entry(i + 1, `Off ${i + 1}`, '0.01')).join('')
    const file = join(dir, 'many.yaml')
    writeFileSync(file, text)
    const result = await runBk(['journal-entries', 'validate', file])
    expect(result.code).toBe(2)
    const listed = result.stderr.split('\n').filter((l) => l.startsWith(`${file}:`))
    expect(listed.length).toBe(100)
    expect(result.stderr).toContain('… and 150 more problems, not listed')
    expect(result.stderr).toContain('Error: 250 problems in 1 file')
    const json = await runBk(['journal-entries', 'validate', file, '--json'])
    const details = parseJsonOutput<{details: {problems: unknown[]; more: number}}>(json).details
    expect(details.problems.length).toBe(100)
    expect(details.more).toBe(150)
  })
})
