/**
 * `bk journal-entries create --resume` resumes a journal only where it was begun: two emulators
 * are two environments (two base URLs), and what one journal records as created exists in one.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {DEMO_IDS} from '../../src/emulator/seed.js'
import {parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

const L = DEMO_IDS.ledgers
const BIZ = DEMO_IDS.business

let first: RunningEmulator
let second: RunningEmulator
let dir: string
beforeAll(async () => {
  ;[first, second] = await Promise.all([start(), start()])
  dir = tempDir('bk-je-target-')
})
afterAll(async () => {
  await Promise.all([first.close(), second.close()])
})

const entriesAt = (emulator: RunningEmulator) => emulator.state.journalEntries.all(BIZ)

/** A one-entry file, posted to the first emulator, its journal beside it. */
async function postedToFirst(name: string): Promise<string> {
  const file = join(dir, name)
  writeFileSync(
    file,
    `description: ${name}\ndatetime: 2026-03-01\nlines:\n  - {ledger_id: ${L.expenses}, debit: 7}\n  - {ledger_id: ${L.cash}, credit: 7}\n`,
  )
  const posted = await runBk(['journal-entries', 'create', file], {env: envFor(first)})
  expect(posted.code, posted.stderr).toBe(0)
  return file
}

describe('journal-entries create --resume and the base URL', () => {
  it('refuses a journal begun at another base URL, naming both, and posts nothing there', async () => {
    const file = await postedToFirst('moved.yaml')
    expect(first.baseUrl).not.toBe(second.baseUrl)

    const resumed = await runBk(['journal-entries', 'create', file, '--resume'], {env: envFor(second)})
    expect(resumed.code).toBe(2)
    expect(resumed.stderr).toContain(
      `The journal ${file}.bk-journal is of entries posted to ${first.baseUrl}, not ${second.baseUrl}`,
    )
    expect(resumed.stderr).toContain('Resume with the same profile or base URL, or pass --journal')
    expect(resumed.stderr).not.toContain('already created')
    expect(entriesAt(second)).toHaveLength(0)

    // Where it was begun, it resumes as before: the entry is known, nothing is posted again.
    const home = await runBk(['journal-entries', 'create', file, '--resume', '--json'], {env: envFor(first)})
    expect(home.code, home.stderr).toBe(0)
    expect(parseJsonOutput<{skipped: unknown[]; created: unknown[]}>(home)).toMatchObject({
      created: [],
      skipped: [{index: 1}],
    })
    expect(entriesAt(first).filter((e) => e.description === 'moved.yaml')).toHaveLength(1)

    // A journal of its own posts the file to the other environment.
    const apart = await runBk(['journal-entries', 'create', file, '--journal', join(dir, 'second.bk-journal')], {
      env: envFor(second),
    })
    expect(apart.code, apart.stderr).toBe(0)
    expect(entriesAt(second).map((e) => e.description)).toEqual(['moved.yaml'])
  })

  it('refuses a journal of an older bk, which has no base URL, and resumes once its line is added', async () => {
    const file = await postedToFirst('older.yaml')
    const journal = `${file}.bk-journal`
    const [header, ...records] = readFileSync(journal, 'utf8').trimEnd().split('\n')
    const {base_url: baseUrl, ...older} = JSON.parse(header!) as Record<string, unknown>
    expect(baseUrl).toBe(first.baseUrl)
    writeFileSync(journal, [JSON.stringify(older), ...records].join('\n') + '\n')

    const refused = await runBk(['journal-entries', 'create', file, '--resume', '--json'], {env: envFor(second)})
    expect(refused.code).toBe(2)
    const error = parseJsonOutput<{error: string; code: string; hint: string}>(refused)
    expect(error.code).toBe('journal_without_base_url')
    expect(error.error).toContain(`The journal ${journal} was begun by an older bk`)
    expect(error.hint).toContain(`add "base_url":"${second.baseUrl}" to its first line`)
    expect(entriesAt(second).filter((e) => e.description === 'older.yaml')).toHaveLength(0)

    // The line the hint gives, for the environment it was begun in, lets it resume there.
    writeFileSync(journal, [JSON.stringify({...older, base_url: first.baseUrl}), ...records].join('\n') + '\n')
    const home = await runBk(['journal-entries', 'create', file, '--resume'], {env: envFor(first)})
    expect(home.code, home.stderr).toBe(0)
    expect(home.stderr).toContain('0 created, 1 already created')
  })

  it('lets a journal of failures only, begun for a mistyped business, go to the right one', async () => {
    const file = join(dir, 'typo.yaml')
    const header = () =>
      JSON.parse(readFileSync(`${file}.bk-journal`, 'utf8').split('\n')[0]!) as Record<string, unknown>
    writeFileSync(
      file,
      `description: typo.yaml\ndatetime: 2026-03-01\nlines:\n  - {ledger_id: ${L.expenses}, debit: 7}\n  - {ledger_id: ${L.cash}, credit: 7}\n`,
    )
    const mistyped = await runBk(['journal-entries', 'create', file, '--business', 'biz_nope'], {env: envFor(first)})
    expect(mistyped.code, mistyped.stderr).toBe(4)
    expect(header()).toMatchObject({business_id: 'biz_nope'})

    // A run that a later file refuses posts nothing and leaves that journal as it was.
    const posted = await postedToFirst('posted.yaml')
    const refused = await runBk(['journal-entries', 'create', file, posted], {env: envFor(first)})
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(`${posted} was posted before`)
    expect(header()).toMatchObject({business_id: 'biz_nope'})
    expect(entriesAt(first).filter((e) => e.description === 'typo.yaml')).toHaveLength(0)

    // Nothing reached biz_nope: the plain re-run posts to the business given, and the journal says so.
    const fixed = await runBk(['journal-entries', 'create', file], {env: envFor(first)})
    expect(fixed.code, fixed.stderr).toBe(0)
    expect(entriesAt(first).filter((e) => e.description === 'typo.yaml')).toHaveLength(1)
    expect(header()).toMatchObject({business_id: BIZ, base_url: first.baseUrl})
  })

  it('still refuses a journal begun for another business', async () => {
    const file = await postedToFirst('other-business.yaml')
    const resumed = await runBk(['journal-entries', 'create', file, '--resume', '--business', 'biz_other'], {
      env: envFor(first),
    })
    expect(resumed.code).toBe(2)
    expect(resumed.stderr).toContain(`The journal ${file}.bk-journal is of entries posted to ${BIZ}, not biz_other`)
    expect(resumed.stderr).toContain(`Resume with --business ${BIZ}`)
  })
})
