/**
 * `bk journal-entries create` through the real binary against the emulator: what reaches the
 * service (exact decimal strings), nothing sent when one entry is invalid, and the journal that
 * makes a re-run never post an entry twice.
 */
import {existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {DEMO_IDS} from '../../src/emulator/seed.js'
import {parseJsonOutput, runBk, spawnBk, tempDir} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'
import {recordingProxy, type RecordedRequest} from '../helpers/recording-proxy.js'

const L = DEMO_IDS.ledgers
const BIZ = DEMO_IDS.business

let emulator: RunningEmulator
let dir: string
beforeAll(async () => {
  emulator = await start()
  dir = tempDir('bk-je-create-')
})
afterAll(() => emulator.close())

const entries = () => emulator.state.journalEntries.all(BIZ)
const byDescription = (d: string) => entries().filter((e) => e.description === d)

function entryYaml(description: string, debit: string, credit: string, extra = ''): string {
  return `  - description: ${description}\n    datetime: 2026-03-01T09:00:00Z\n    lines:\n      - {ledger_id: ${L.expenses}, debit: ${debit}${extra}}\n      - {ledger_id: ${L.cash}, credit: ${credit}}\n`
}

function write(name: string, text: string): string {
  const file = join(dir, name)
  writeFileSync(file, text)
  return file
}

describe('bk journal-entries create', () => {
  it('sends the exact decimal strings of the file and prints the created je_ ids', async () => {
    const file = write(
      'exact.yaml',
      `entries:
  - description: Exact rent
    datetime: 2026-03-01T09:00:00Z
    lines:
      - {ledger_id: ${L.expenses}, debit: 120.50, description: March rent}
      - {ledger_id: ${L.cash}, debit_credit: credit, amount: "120.50"}
  - description: Exact float
    datetime: 2026-03-02
    lines:
      - {ledger_id: ${L.software}, debit: 0.1}
      - {ledger_id: ${L.software}, debit: 0.2}
      - {ledger_id: ${L.cash}, credit: 0.3}
  - description: Exact huge
    datetime: 2026-03-03T00:00:00+00:00
    lines:
      - {ledger_id: ${L.expenses}, debit: 12345678901234567890.12}
      - {ledger_id: ${L.revenue}, credit: 12345678901234567890.12}
`,
    )
    const result = await runBk(['journal-entries', 'create', file], {env: envFor(emulator)})
    expect(result.code, result.stderr).toBe(0)
    const ids = result.stdout
      .trim()
      .split('\n')
      .map((l) => l.split(/\s+/)[0])
    expect(ids).toHaveLength(3)
    for (const id of ids) expect(id).toMatch(/^je_/)
    expect(result.stderr).toContain('3 created, 0 already created, 0 failed, 0 unconfirmed')

    const [rent] = byDescription('Exact rent')
    expect(rent?.id).toBe(ids[0])
    expect(rent?.line_entries?.map((l) => [l.ledger_id, l.debit_credit, l.amount, l.description])).toEqual([
      [L.expenses, 'debit', '120.50', 'March rent'],
      [L.cash, 'credit', '120.50', ''],
    ])
    const [float] = byDescription('Exact float')
    expect(float?.datetime).toBe('2026-03-02T00:00:00Z')
    expect(float?.line_entries?.map((l) => l.amount)).toEqual(['0.1', '0.2', '0.3'])
    const [huge] = byDescription('Exact huge')
    expect(huge?.datetime).toBe('2026-03-03T00:00:00Z')
    expect(huge?.line_entries?.map((l) => l.amount)).toEqual(['12345678901234567890.12', '12345678901234567890.12'])
    expect(JSON.stringify(entries())).not.toContain('0.30000000000000004')

    // The journal beside the file records each created id.
    const journal = readFileSync(`${file}.bk-journal`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as {status?: string; id?: string; business_id?: string})
    expect(journal[0]?.business_id).toBe(BIZ)
    expect(journal.filter((r) => r.status === 'created').map((r) => r.id)).toEqual(ids)

    // Running the same file again is refused, naming --resume and --restart; nothing is sent.
    const again = await runBk(['journal-entries', 'create', file], {env: envFor(emulator)})
    expect(again.code).toBe(2)
    expect(again.stderr).toContain('was posted before')
    expect(again.stderr).toContain('--resume')
    expect(again.stderr).toContain('--restart')
    expect(byDescription('Exact rent')).toHaveLength(1)

    // --resume posts nothing more: every entry is already created.
    const resumed = await runBk(['journal-entries', 'create', file, '--resume', '--json'], {env: envFor(emulator)})
    expect(resumed.code, resumed.stderr).toBe(0)
    const out = parseJsonOutput<{created: unknown[]; skipped: Array<{index: number; id: string}>}>(resumed)
    expect(out.created).toEqual([])
    expect(out.skipped.map((s) => s.id)).toEqual(ids)
    expect(byDescription('Exact rent')).toHaveLength(1)
    expect(byDescription('Exact huge')).toHaveLength(1)
  })

  it('a five-entry file whose third entry is invalid sends nothing and keeps no journal', async () => {
    const before = entries().length
    const text =
      'entries:\n' + [1, 2, 3, 4, 5].map((n) => entryYaml(`Five ${n}`, '10.00', n === 3 ? '9.99' : '10.00')).join('')
    const file = write('five.yaml', text)
    const result = await runBk(['journal-entries', 'create', file], {env: envFor(emulator)})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(
      `${file}:14:5: entry 3 "Five 3": does not balance: debits 10.00, credits 9.99, difference 0.01`,
    )
    expect(result.stderr).toContain('1 problem in 1 file; nothing was sent')
    expect(result.stdout).toBe('')
    expect(entries().length).toBe(before)
    expect(existsSync(`${file}.bk-journal`)).toBe(false)
  })

  it('refuses a --performed-by no request header can carry, before anything is sent or journaled', async () => {
    const file = write('performed.yaml', 'entries:\n' + entryYaml('Performed CR', '5.00', '5.00'))
    const billsFile = write(
      'performed.csv',
      'number,vendor_id,line_amount,line_ledger_id\nP-1,ven_demo_office,5,ldg_demo_expenses\n',
    )
    const bills = () => emulator.state.bills.all(BIZ).filter((b) => b.number === 'P-1')
    for (const args of [
      ['journal-entries', 'create', file],
      ['bills', 'import', billsFile],
    ]) {
      // A line break pasted with the value ($(cat who.txt) keeps a CR).
      const result = await runBk([...args, '--performed-by', 'user-42\r'], {env: envFor(emulator), cwd: dir})
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toContain(
        'Error: --performed-by "user-42\\r" holds U+000D at position 8: it is sent as a request header',
      )
      expect(result.stderr).not.toContain('Parsing --')
    }
    expect(byDescription('Performed CR')).toEqual([])
    expect(bills()).toEqual([])
    expect(existsSync(`${file}.bk-journal`)).toBe(false)
    expect(existsSync(`${billsFile}.bk-journal`)).toBe(false)
  })

  it('validates every file before sending any: an invalid second file stops the first', async () => {
    const before = entries().length
    const good = write('first-good.yaml', 'entries:\n' + entryYaml('Multi good', '1', '1'))
    const bad = write('second-bad.yaml', 'entries:\n' + entryYaml('Multi bad', '1', '1', ', debti: 2'))
    const result = await runBk(['journal-entries', 'create', good, bad], {env: envFor(emulator)})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(
      `${bad}:5:50: entry 1 "Multi bad": line 1: unknown key "debti" in a line; did you mean debit?`,
    )
    expect(entries().length).toBe(before)
  })

  it('refuses a journal it could not write before posting anything, naming it', async () => {
    const before = entries().length
    const file = write('unjournaled.yaml', 'entries:\n' + entryYaml('No journal', '1', '1'))
    const result = await runBk(['journal-entries', 'create', file, '--journal', join(dir, 'no-such-folder', 'j')], {
      env: envFor(emulator),
    })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(
      `--journal ${join(dir, 'no-such-folder', 'j')}: the folder ${join(dir, 'no-such-folder')} does not exist`,
    )
    expect(entries().length).toBe(before)
  })

  it('posts the others when the service rejects one; --resume after the fix posts only that one', async () => {
    const text =
      'entries:\n' +
      entryYaml('Partial 1', '5', '5') +
      entryYaml('Partial 2', '6', '6').replaceAll(L.expenses, 'ldg_unknown') +
      entryYaml('Partial 3', '7', '7')
    const file = write('partial.yaml', text)
    const first = await runBk(['journal-entries', 'create', file], {env: envFor(emulator)})
    expect(first.code, first.stderr).toBe(6)
    expect(first.stderr).toMatch(
      /failed {2}.*partial\.yaml entry 2 "Partial 2": lines\[0\]\.ledger_id: ledger ldg_unknown not found/,
    )
    expect(first.stderr).toContain('2 created, 0 already created, 1 failed, 0 unconfirmed')
    expect(byDescription('Partial 1')).toHaveLength(1)
    expect(byDescription('Partial 2')).toHaveLength(0)
    expect(byDescription('Partial 3')).toHaveLength(1)

    writeFileSync(file, text.replaceAll('ldg_unknown', L.expenses))
    const resumed = await runBk(['journal-entries', 'create', file, '--resume'], {env: envFor(emulator)})
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(resumed.stdout.trim().split('\n')).toHaveLength(1)
    expect(resumed.stdout).toContain('partial.yaml entry 2 "Partial 2"')
    for (const d of ['Partial 1', 'Partial 2', 'Partial 3']) expect(byDescription(d)).toHaveLength(1)
  })

  it('--resume refuses a file whose posted entries changed', async () => {
    const file = write('changed.yaml', 'entries:\n' + entryYaml('Changed 1', '5', '5'))
    const posted = await runBk(['journal-entries', 'create', file], {env: envFor(emulator)})
    expect(posted.code, posted.stderr).toBe(0)
    writeFileSync(file, 'entries:\n' + entryYaml('Changed 1', '6', '6'))
    const result = await runBk(['journal-entries', 'create', file, '--resume'], {env: envFor(emulator)})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('changed since it was posted: entry 1 differs')
    expect(byDescription('Changed 1')).toHaveLength(1)
  })

  it('never re-sends an entry whose answer was lost (journal left at sending)', async () => {
    const file = write('lost.yaml', 'entries:\n' + entryYaml('Lost 1', '5', '5') + entryYaml('Lost 2', '6', '6'))
    // What a crash between the POST and its answer leaves behind.
    const {fingerprint} = await import('../../src/journal-entries/resume-log.js')
    const {loadJournalEntries} = await import('../../src/journal-entries/load.js')
    const loaded = loadJournalEntries(readFileSync(file, 'utf8'), file)
    writeFileSync(
      `${file}.bk-journal`,
      [
        {
          kind: 'bk-journal-entries',
          version: 1,
          business_id: BIZ,
          base_url: emulator.baseUrl,
          started_at: '2026-03-01T00:00:00Z',
        },
        {index: 1, fingerprint: fingerprint(loaded.entries[0]!.input), status: 'sending', at: '2026-03-01T00:00:01Z'},
      ]
        .map((r) => JSON.stringify(r))
        .join('\n') + '\n',
    )
    const result = await runBk(['journal-entries', 'create', file, '--resume'], {env: envFor(emulator)})
    expect(result.code).toBe(6)
    expect(result.stderr).toContain('unconfirmed  ' + file + ' entry 1')
    expect(result.stderr).toContain('1 created, 0 already created, 0 failed, 1 unconfirmed')
    expect(byDescription('Lost 1')).toHaveLength(0)
    expect(byDescription('Lost 2')).toHaveLength(1)
  })

  it('--restart forgets the journal and posts again', async () => {
    const file = write('restart.yaml', 'entries:\n' + entryYaml('Restart 1', '5', '5'))
    const posted = await runBk(['journal-entries', 'create', file], {env: envFor(emulator)})
    expect(posted.code, posted.stderr).toBe(0)
    const refused = await runBk(['journal-entries', 'create', file, '--restart'], {env: envFor(emulator)})
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/post again 1 entry it records as created and 0 unconfirmed/)
    expect(byDescription('Restart 1')).toHaveLength(1)
    const result = await runBk(['journal-entries', 'create', file, '--restart', '--yes'], {env: envFor(emulator)})
    expect(result.code, result.stderr).toBe(0)
    expect(byDescription('Restart 1')).toHaveLength(2)
  })

  it('--restart gets past a damaged journal', async () => {
    const file = write('damaged.yaml', 'entries:\n' + entryYaml('Damaged 1', '6', '6'))
    writeFileSync(`${file}.bk-journal`, '{"kind": "bk-journal-entries", "vers\n{"index": 0}\n')
    const refused = await runBk(['journal-entries', 'create', file], {env: envFor(emulator)})
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('--restart')
    const result = await runBk(['journal-entries', 'create', file, '--restart', '--yes'], {env: envFor(emulator)})
    expect(result.code, result.stderr).toBe(0)
    expect(byDescription('Damaged 1')).toHaveLength(1)
  })

  it('refuses one file given twice under two spellings', async () => {
    const file = write('twice.yaml', 'entries:\n' + entryYaml('Twice 1', '7', '7'))
    const result = await runBk(['journal-entries', 'create', file, join(dir, '.', 'twice.yaml')], {
      env: envFor(emulator),
    })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('given twice')
    expect(byDescription('Twice 1')).toHaveLength(0)
  })

  it('knows a file by its real path: a link to it is refused beside it, and shares its journal', async () => {
    const file = write('linked.yaml', 'entries:\n' + entryYaml('Linked 1', '7', '7'))
    const link = join(dir, 'link-to-linked.yaml')
    symlinkSync('linked.yaml', link)
    const both = await runBk(['journal-entries', 'create', file, link], {env: envFor(emulator)})
    expect(both.code).toBe(2)
    expect(both.stderr).toContain(`${file} and ${link} are one file, given twice`)
    expect(byDescription('Linked 1')).toHaveLength(0)

    const once = await runBk(['journal-entries', 'create', file], {env: envFor(emulator)})
    expect(once.code, once.stderr).toBe(0)
    const again = await runBk(['journal-entries', 'create', link], {env: envFor(emulator)})
    expect(again.code).toBe(2)
    expect(again.stderr).toContain(`its journal ${file}.bk-journal records 1 created entry`)
    expect(byDescription('Linked 1')).toHaveLength(1)
  })

  it('reads stdin with -, says no journal is kept, and prints JSON with --json', async () => {
    const input =
      'description: Stdin entry\ndatetime: 2026-03-05T10:00:00Z\nlines:\n' +
      `  - {ledger_id: ${L.travel}, debit: 42.10}\n  - {ledger_id: ${L.cash}, credit: 42.10}\n`
    const plain = await runBk(['journal-entries', 'create', '-'], {env: envFor(emulator), input})
    expect(plain.code, plain.stderr).toBe(0)
    expect(plain.stderr).toContain('no journal is kept')
    const json = await runBk(['journal-entries', 'create', '-', '--json'], {
      env: envFor(emulator),
      input: input.replace('Stdin entry', 'Stdin json'),
    })
    expect(json.code, json.stderr).toBe(0)
    const out = parseJsonOutput<{created: Array<{file: string; index: number; id: string}>}>(json)
    expect(out.created).toEqual([
      {file: '<stdin>', index: 1, description: 'Stdin json', id: byDescription('Stdin json')[0]?.id},
    ])
    expect(byDescription('Stdin json')[0]?.line_entries?.map((l) => l.amount)).toEqual(['42.10', '42.10'])
    const resume = await runBk(['journal-entries', 'create', '-', '--resume'], {env: envFor(emulator), input})
    expect(resume.code).toBe(2)
    expect(resume.stderr).toContain('--resume and --restart need a journal: stdin (-) has none')
    expect(resume.stderr).toContain('--journal FILE')
  })

  it('keeps a journal for stdin with --journal, so a re-run with --resume skips what was posted', async () => {
    const journal = join(dir, 'stdin.bk-journal')
    const input = `entries:\n${entryYaml('Journaled stdin', '3.30', '3.30')}`
    const first = await runBk(['journal-entries', 'create', '-', '--journal', journal], {env: envFor(emulator), input})
    expect(first.code, first.stderr).toBe(0)
    expect(first.stderr).not.toContain('no journal is kept')
    const refused = await runBk(['journal-entries', 'create', '-', '--journal', journal], {
      env: envFor(emulator),
      input,
    })
    expect(refused.code, refused.stderr).toBe(2)
    const resumed = await runBk(['journal-entries', 'create', '-', '--journal', journal, '--resume'], {
      env: envFor(emulator),
      input,
    })
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(resumed.stderr).toContain('skip  <stdin> entry 1: already created as je_')
    expect(byDescription('Journaled stdin')).toHaveLength(1)
  })

  it('--dry-run validates and sends nothing, with no credentials needed', async () => {
    const before = entries().length
    const file = write('dry.yaml', 'entries:\n' + entryYaml('Dry 1', '5', '5'))
    const result = await runBk(['journal-entries', 'create', file, '--dry-run'])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain('1 entry valid; nothing sent (--dry-run)')
    expect(entries().length).toBe(before)
    expect(existsSync(`${file}.bk-journal`)).toBe(false)
  })

  it('refuses a datetime whose year is not plausible, naming file, line, field and value', async () => {
    const file = write(
      'years.yaml',
      'entries:\n' +
        entryYaml('Padded', '5', '5').replace('2026-03-01T09:00:00Z', '0026-03-01') +
        entryYaml('Zero', '5', '5').replace('2026-03-01T09:00:00Z', '0000-01-01T00:00:00Z'),
    )
    const result = await runBk(['journal-entries', 'create', file, '--dry-run'])
    expect(result.code).toBe(2)
    const expected = (year: string) =>
      `has the year ${year}, which is not plausible for a journal entry (expected 1900 to 2199): check for a two-digit year or a typo`
    expect(result.stderr).toContain(`${file}:3:15: entry 1 "Padded": datetime "0026-03-01" ${expected('0026')}`)
    expect(result.stderr).toContain(`${file}:8:15: entry 2 "Zero": datetime "0000-01-01T00:00:00Z" ${expected('0000')}`)
  })

  it('sends tag value ids, and a business given with --business', async () => {
    const tags = emulator.state.tagFields.get(DEMO_IDS.otherBusiness)
    const eng = tags?.get('department')?.get('engineering') as string
    const apollo = tags?.get('project')?.get('apollo') as string
    const ledger = (key: keyof typeof L) => `${L[key]}_${DEMO_IDS.otherBusiness.slice(9)}`
    const file = write(
      'tags.yaml',
      `description: Tagged
datetime: 2026-03-06T08:00:00Z
lines:
  - ledger_id: ${ledger('software')}
    debit: 99.99
    tag_value_ids: [${eng}, ${apollo}]
  - ledger_id: ${ledger('cash')}
    credit: 99.99
`,
    )
    const result = await runBk(
      ['journal-entries', 'create', file, '--business', DEMO_IDS.otherBusiness, '--performed-by', 'ext-user-7'],
      {env: envFor(emulator, null)},
    )
    expect(result.code, result.stderr).toBe(0)
    const [tagged] = emulator.state.journalEntries.all(DEMO_IDS.otherBusiness).filter((e) => e.description === 'Tagged')
    expect(tagged?.line_entries?.[0]?.tag_value_ids).toEqual([eng, apollo])
    expect(tagged?.line_entries?.[1]?.tag_value_ids).toEqual([])
  })

  it('takes a YAML null (~, null) as no value, like an empty one; a quoted "null" is text', async () => {
    const file = write(
      'nulls.yaml',
      `entries:
  - description: ~
    datetime: 2026-03-08T08:00:00Z
    lines:
      - {ledger_id: ${L.expenses}, debit: 3.25, description: null, tag_value_ids: ~}
      - {ledger_id: ${L.cash}, credit: 3.25, description: NULL, tag_value_ids: null}
  - description: null
    datetime: 2026-03-08T09:00:00Z
    lines:
      - {ledger_id: ${L.expenses}, debit: 3.26, description: "null"}
      - {ledger_id: ${L.cash}, credit: 3.26, description: '~'}
`,
    )
    const result = await runBk(['journal-entries', 'create', file, '--json'], {env: envFor(emulator)})
    expect(result.code, result.stderr).toBe(0)
    const {created} = parseJsonOutput<{created: Array<{id: string; description?: string | null}>}>(result)
    expect(created.map((c) => c.description ?? null)).toEqual([null, null])
    const sent = created.map(({id}) => entries().find((e) => e.id === id))
    expect(sent.map((e) => e?.description)).toEqual(['', ''])
    expect(sent.map((e) => e?.line_entries?.map((l) => l.description))).toEqual([
      ['', ''],
      ['null', '~'],
    ])
    expect(sent[0]?.line_entries?.map((l) => l.tag_value_ids)).toEqual([[], []])
  })

  it("sends an amount's value: leading zeros dropped, the decimals written kept", async () => {
    const file = write(
      'zeros.yaml',
      `description: Leading zeros
datetime: 2026-03-09T08:00:00Z
lines:
  - {ledger_id: ${L.expenses}, debit: 010}
  - {ledger_id: ${L.expenses}, debit_credit: debit, amount: "00.50"}
  - {ledger_id: ${L.cash}, credit: 0010.500}
`,
    )
    const result = await runBk(['journal-entries', 'create', file], {env: envFor(emulator)})
    expect(result.code, result.stderr).toBe(0)
    const [sent] = byDescription('Leading zeros')
    expect(sent?.line_entries?.map((l) => l.amount)).toEqual(['10', '0.50', '10.500'])
  })
})

describe('examples/journal-entries.yaml', () => {
  it('validates, and posts to the demo business exactly as written', async () => {
    const {copyFileSync} = await import('node:fs')
    const {ROOT} = await import('../helpers/bk.js')
    const file = join(dir, 'example.yaml')
    copyFileSync(join(ROOT, 'examples', 'journal-entries.yaml'), file)
    const valid = await runBk(['journal-entries', 'validate', file])
    expect(valid.code, valid.stderr).toBe(0)
    expect(valid.stdout).toContain('3 entries, 7 lines, all balanced')
    const created = await runBk(['journal-entries', 'create', file, '--json'], {env: envFor(emulator)})
    expect(created.code, created.stderr).toBe(0)
    expect(parseJsonOutput<{created: unknown[]}>(created).created).toHaveLength(3)
    const [card] = byDescription('Card payment for software and a train ticket')
    expect(card?.line_entries?.map((l) => [l.ledger_id, l.debit_credit, l.amount])).toEqual([
      [L.software, 'debit', '49.90'],
      [L.travel, 'debit', '37.60'],
      [L.cash, 'credit', '87.50'],
    ])
    expect(byDescription('Saturday market takings')[0]?.datetime).toBe('2026-03-07T00:00:00Z')
  })
})

describe('journal-entries create: refusals by the service', () => {
  it('stops with exit 3 on a token without journal_entry:create; a re-run needs no --resume since nothing was created', async () => {
    const file = join(dir, 'scope.yaml')
    writeFileSync(file, 'entries:\n' + entryYaml('Scope 1', '5', '5') + entryYaml('Scope 2', '5', '5'))
    const before = entries().length
    const denied = await runBk(['journal-entries', 'create', file], {
      env: {...envFor(emulator), BK_SCOPES: 'bill:create'},
    })
    expect(denied.code, denied.stderr).toBe(3)
    expect(denied.stderr).toContain('Token lacks the scope journal_entry:create')
    expect(denied.stderr).toContain('0 created, 0 already created, 1 failed, 0 unconfirmed')
    expect(entries().length).toBe(before)
    const again = await runBk(['journal-entries', 'create', file, '--debug', '--performed-by', 'ext-user-7'], {
      env: envFor(emulator),
    })
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).toContain('"x-external-entity-id":"ext-user-7"')
    expect(byDescription('Scope 1')).toHaveLength(1)
    expect(byDescription('Scope 2')).toHaveLength(1)
  })

  it('exits 5 when the service rejects every entry', async () => {
    const file = join(dir, 'all-rejected.yaml')
    writeFileSync(file, 'entries:\n' + entryYaml('Rejected 1', '5', '5').replaceAll(L.expenses, 'ldg_missing'))
    const result = await runBk(['journal-entries', 'create', file, '--json'], {env: envFor(emulator)})
    expect(result.code).toBe(5)
    const body = parseJsonOutput<{code: string; details: {failed: Array<{index: number; error: string}>}}>(result)
    expect(body.details.failed).toEqual([
      expect.objectContaining({index: 1, error: expect.stringContaining('ledger ldg_missing not found') as string}),
    ])
    expect(byDescription('Rejected 1')).toHaveLength(0)
  })

  it('goes on to its end when its stderr is closed while it posts: each entry once, lock gone, exit 6', async () => {
    // Every tenth entry is rejected by the service, each rejection a line on stderr as it comes.
    const rejected = (i: number) => i % 10 === 1
    const text = Array.from({length: 30}, (_, i) => {
      const entry = entryYaml(`Closed ${i + 1}`, '1', '1')
      return rejected(i + 1) ? entry.replaceAll(L.expenses, 'ldg_missing') : entry
    })
    const folder = tempDir('bk-je-closed-')
    const file = join(folder, 'closed.yaml')
    writeFileSync(file, 'entries:\n' + text.join(''))
    // The posts wait until stderr is closed, so the close falls before the first answer.
    const isPost = (r: RecordedRequest) => r.method === 'POST'
    const proxy = await recordingProxy(emulator.baseUrl, isPost)
    try {
      const child = spawnBk(['journal-entries', 'create', file], {
        env: {...envFor(emulator), BK_BASE_URL: proxy.baseUrl},
      })
      child.stdin.end()
      let stdout = ''
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
      const exited = new Promise<number | null>((resolve) => child.once('close', resolve))
      await proxy.whenRequest(isPost)
      child.stderr.destroy()
      proxy.release()
      expect(await exited).toBe(6)
      for (let i = 1; i <= 30; i++) expect(byDescription(`Closed ${i}`), `entry ${i}`).toHaveLength(rejected(i) ? 0 : 1)
      expect(stdout.match(/^je_\w+ {2}/gm)).toHaveLength(27)
      expect(readdirSync(folder).filter((f) => f.endsWith('.lock'))).toEqual([])
      // The journal ends each entry created or failed: none is left sending (unconfirmed).
      const last = new Map<number, string>()
      for (const line of readFileSync(`${file}.bk-journal`, 'utf8').trim().split('\n').slice(1)) {
        const record = JSON.parse(line) as {index: number; status: string}
        last.set(record.index, record.status)
      }
      expect([...last.values()].filter((s) => s !== 'created' && s !== 'failed')).toEqual([])
      expect(last.size).toBe(30)
    } finally {
      await proxy.close()
    }
  })
})
