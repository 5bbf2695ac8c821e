/**
 * Every rule of the local check, through the real binary: one `validate` run over one file per
 * rule, which must list every problem with its file, line and column, and exit 2.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {beforeAll, describe, expect, it} from 'vitest'

import {parseJsonOutput, runBk, tempDir, type BkResult} from '../helpers/bk.js'

const ok = (description: string, lines: string) =>
  `description: ${description}\ndatetime: 2026-03-01T09:00:00Z\nlines:\n${lines}`

/** name -> [YAML text, the line expected in stderr after "FILE:"]. */
const CASES: Record<string, [string, string]> = {
  unbalanced: [
    ok('Rent', '  - {ledger_id: ldg_a, debit: 100.00}\n  - {ledger_id: ldg_b, credit: 99.99}\n'),
    '3:1: entry 1 "Rent": does not balance: debits 100.00, credits 99.99, difference 0.01 (debits higher)',
  ],
  'no-debit': [
    ok('Only credits', '  - {ledger_id: ldg_a, credit: 5}\n  - {ledger_id: ldg_b, credit: 5}\n'),
    '3:1: entry 1 "Only credits": has no debit line; an entry needs at least one debit and one credit',
  ],
  'no-credit': [
    ok('Only debits', '  - {ledger_id: ldg_a, debit: 5}\n'),
    '3:1: entry 1 "Only debits": has no credit line',
  ],
  negative: [
    ok('Neg', '  - ledger_id: ldg_a\n    debit: -5.00\n  - {ledger_id: ldg_b, credit: 5.00}\n'),
    '5:12: entry 1 "Neg": line 1: debit "-5.00" is negative; amounts are positive',
  ],
  zero: [
    ok('Zero', '  - {ledger_id: ldg_a, debit: 0.00}\n  - {ledger_id: ldg_b, credit: 0.00}\n'),
    '4:31: entry 1 "Zero": line 1: debit "0.00" is zero; amounts must be greater than 0',
  ],
  separator: [
    ok('Comma', '  - {ledger_id: ldg_a, debit: "1,200.00"}\n  - {ledger_id: ldg_b, credit: 1200.00}\n'),
    '4:31: entry 1 "Comma": line 1: debit "1,200.00" is not a decimal amount (use a dot for decimals and no thousands separators)',
  ],
  exponent: [
    ok('Exp', '  - {ledger_id: ldg_a, debit: 1e3}\n  - {ledger_id: ldg_b, credit: 1000}\n'),
    '4:31: entry 1 "Exp": line 1: debit "1e3" is not a decimal amount (exponents are not accepted; write 1000)',
  ],
  // "true" holds an e, and is no exponent: the reason is the general one.
  boolean: [
    ok('Bool', '  - {ledger_id: ldg_a, debit: true}\n  - {ledger_id: ldg_b, credit: 5}\n'),
    '4:31: entry 1 "Bool": line 1: debit "true" is not a decimal amount (expected digits with an optional dot, such as 120.50)',
  ],
  // Digits and a dot are "digits with an optional dot": the message says what is wrong instead.
  'trailing-dot': [
    ok('Dot', '  - {ledger_id: ldg_a, debit: 5.}\n  - {ledger_id: ldg_b, credit: 5}\n'),
    '4:31: entry 1 "Dot": line 1: debit "5." ends with a dot: write 5 or 5.00',
  ],
  'leading-dot': [
    ok('Lead', '  - {ledger_id: ldg_a, debit: .5}\n  - {ledger_id: ldg_b, credit: 0.5}\n'),
    '4:31: entry 1 "Lead": line 1: debit ".5" starts with a dot: write 0.5',
  ],
  // A tagged scalar is quoted as written, not as the Date YAML made of it.
  timestamp: [
    'description: Tagged\ndatetime: !!timestamp 2026-03-01T09:00:00+02:00\nlines:\n  - {ledger_id: ldg_a, debit: 5}\n  - {ledger_id: ldg_b, credit: 5}\n',
    '2:23: entry 1 "Tagged": datetime "2026-03-01T09:00:00+02:00" is not in UTC (offset +02:00)',
  ],
  both: [
    ok('Both', '  - ledger_id: ldg_a\n    debit: 5\n    credit: 5\n  - {ledger_id: ldg_b, credit: 5}\n'),
    '6:5: entry 1 "Both": line 1: has both a debit and a credit; a line is one or the other',
  ],
  mixed: [
    ok('Mixed', '  - ledger_id: ldg_a\n    debit: 5\n    amount: 5\n  - {ledger_id: ldg_b, credit: 5}\n'),
    '6:5: entry 1 "Mixed": line 1: mixes debit: with debit_credit/amount; use one form',
  ],
  'bad-side': [
    ok('Side', '  - {ledger_id: ldg_a, debit_credit: debet, amount: 5}\n  - {ledger_id: ldg_b, credit: 5}\n'),
    '4:38: entry 1 "Side": line 1: debit_credit "debet" must be debit or credit',
  ],
  'amount-alone': [
    ok('Alone', '  - {ledger_id: ldg_a, amount: 5}\n  - {ledger_id: ldg_b, credit: 5}\n'),
    '4:24: entry 1 "Alone": line 1: amount is given without debit_credit (debit or credit)',
  ],
  'no-ledger': [
    ok('NoLedger', '  - {description: coffee, debit: 5}\n  - {ledger_id: ldg_b, credit: 5}\n'),
    '4:5: entry 1 "NoLedger": line 1: ledger_id is missing',
  ],
  'bad-ledger': [
    ok('BadLedger', '  - {ledger_id: acc_1, debit: 5}\n  - {ledger_id: ldg_b, credit: 5}\n'),
    '4:17: entry 1 "BadLedger": line 1: ledger_id "acc_1" is not a ledger id (expected ldg_…)',
  ],
  'bad-tag': [
    ok('Tag', '  - {ledger_id: ldg_a, debit: 5, tag_value_ids: [tv_ok, tag_1]}\n  - {ledger_id: ldg_b, credit: 5}\n'),
    '4:57: entry 1 "Tag": line 1: tag value id "tag_1" is not a tag value id (expected tv_…)',
  ],
  'tag-not-list': [
    ok('TagList', '  - {ledger_id: ldg_a, debit: 5, tag_value_ids: tv_1}\n  - {ledger_id: ldg_b, credit: 5}\n'),
    '4:49: entry 1 "TagList": line 1: tag_value_ids must be a list of tag value ids',
  ],
  'no-datetime': [
    'description: NoDate\nlines:\n  - {ledger_id: ldg_a, debit: 5}\n  - {ledger_id: ldg_b, credit: 5}\n',
    '1:1: entry 1 "NoDate": datetime is missing; write it in UTC',
  ],
  'bad-date': [
    'description: Feb30\ndatetime: 2026-02-30T10:00:00Z\nlines:\n  - {ledger_id: ldg_a, debit: 5}\n  - {ledger_id: ldg_b, credit: 5}\n',
    '2:11: entry 1 "Feb30": datetime "2026-02-30T10:00:00Z" is not a real date and time',
  ],
  offset: [
    'description: Paris\ndatetime: 2026-03-01T09:30:00+01:00\nlines:\n  - {ledger_id: ldg_a, debit: 5}\n  - {ledger_id: ldg_b, credit: 5}\n',
    '2:11: entry 1 "Paris": datetime "2026-03-01T09:30:00+01:00" is not in UTC (offset +01:00); write it in UTC: 2026-03-01T08:30:00Z',
  ],
  'no-zone': [
    'description: Local\ndatetime: 2026-03-01T09:30\nlines:\n  - {ledger_id: ldg_a, debit: 5}\n  - {ledger_id: ldg_b, credit: 5}\n',
    '2:11: entry 1 "Local": datetime "2026-03-01T09:30" has no time zone; add Z for UTC (2026-03-01T09:30:00Z)',
  ],
  typo: [
    ok('Typo', '  - ledger_id: ldg_a\n    debti: 5\n  - {ledger_id: ldg_b, credit: 5}\n'),
    '5:5: entry 1 "Typo": line 1: unknown key "debti" in a line; did you mean debit?',
  ],
  'entry-typo': [
    'description: Typo2\ndatetme: 2026-03-01T09:30:00Z\ndatetime: 2026-03-01T09:30:00Z\nlines:\n  - {ledger_id: ldg_a, debit: 5}\n  - {ledger_id: ldg_b, credit: 5}\n',
    '2:1: entry 1 "Typo2": unknown key "datetme" in an entry; did you mean datetime?',
  ],
  duplicate: [
    ok('Dup', '  - ledger_id: ldg_a\n    debit: 5\n    debit: 6\n  - {ledger_id: ldg_b, credit: 5}\n'),
    '6:5: entry 1 "Dup": line 1: debit appears twice in a line; write each key once',
  ],
  syntax: ['entries:\n  - description: [unclosed\n    datetime: 2026-03-01T09:30:00Z\n', ': YAML syntax:'],
  empty: ['# nothing here\n', '1:1: the file holds no journal entry'],
  'second-entry': [
    'entries:\n  - description: Fine\n    datetime: 2026-03-01T00:00:00Z\n    lines:\n      - {ledger_id: ldg_a, debit: 1}\n      - {ledger_id: ldg_b, credit: 1}\n  - description: Broken\n    datetime: 2026-03-01T00:00:00Z\n    lines:\n      - {ledger_id: ldg_a, debit: 1}\n      - {ledger_id: ldg_b, credit: 2}\n',
    '9:5: entry 2 "Broken": does not balance: debits 1.00, credits 2.00, difference 1.00 (credits higher)',
  ],
}

let dir: string
let result: BkResult
beforeAll(async () => {
  dir = tempDir('bk-je-validate-')
  for (const [name, [text]] of Object.entries(CASES)) writeFileSync(join(dir, `${name}.yaml`), text)
  result = await runBk(['journal-entries', 'validate', ...Object.keys(CASES).map((n) => join(dir, `${n}.yaml`))])
})

describe('bk journal-entries validate: every rule, with file, line and column', () => {
  it('exits 2 and prints nothing on stdout', () => {
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toMatch(new RegExp(`^Error: \\d+ problems in ${Object.keys(CASES).length} files$`, 'm'))
  })

  for (const [name, [, expected]] of Object.entries(CASES)) {
    it(name, () => {
      const lines = result.stderr.split('\n').filter((l) => l.startsWith(join(dir, `${name}.yaml`) + ':'))
      expect(lines.length, result.stderr).toBeGreaterThan(0)
      expect(
        lines.some((l) => l.includes(`${name}.yaml:${expected}`) || (expected.startsWith(':') && l.includes(expected))),
        lines.join('\n'),
      ).toBe(true)
    })
  }

  it('a valid file passes, the amounts never going through a float', async () => {
    const file = join(dir, 'good.yaml')
    writeFileSync(
      file,
      'entries:\n  - description: Float\n    datetime: 2026-03-01\n    lines:\n      - {ledger_id: ldg_a, debit: 0.1}\n      - {ledger_id: ldg_a, debit: 0.2}\n      - {ledger_id: ldg_b, debit_credit: credit, amount: 0.3}\n',
    )
    const good = await runBk(['journal-entries', 'validate', file])
    expect(good.code, good.stderr).toBe(0)
    expect(good.stdout).toContain('good.yaml: 1 entry, 3 lines, all balanced')
    const json = await runBk(['journal-entries', 'validate', file, '--json'])
    expect(parseJsonOutput(json)).toEqual({valid: true, files: [{file, entries: 1, lines: 3}]})
  })

  it('--json lists every problem with line and column; - reads stdin', async () => {
    const json = await runBk(['journal-entries', 'validate', '-', '--json'], {
      input: (CASES.both as [string, string])[0],
    })
    expect(json.code).toBe(2)
    const body = parseJsonOutput<{
      code: string
      details: {problems: Array<{file: string; line: number; column: number; entry: number; message: string}>}
    }>(json)
    expect(body.code).toBe('invalid_journal_entries')
    expect(body.details.problems).toEqual([
      expect.objectContaining({file: '<stdin>', line: 6, column: 5, entry: 1, description: 'Both'}),
    ])
    expect(json.stderr).toBe('')
  })

  it("shows a description's line breaks and control characters on the problem's one line, never raw", async () => {
    const file = join(dir, 'controls.yaml')
    writeFileSync(
      file,
      'entries:\n' +
        '  - description: "ctrl \\x01 \\x1b[31m"\n    datetime: 2026-03-01\n    lines:\n      - {ledger_id: ldg_a, debit: 1}\n      - {ledger_id: ldg_b, credit: 2}\n' +
        '  - description: "two\\nlines"\n    datetime: 2026-03-01\n    lines:\n      - {ledger_id: ldg_a, debit: 1}\n      - {ledger_id: ldg_b, credit: 3}\n',
    )
    const result = await runBk(['journal-entries', 'validate', file])
    expect(result.code).toBe(2)
    // eslint-disable-next-line no-control-regex -- no control character but the line breaks may reach stderr
    expect(result.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/)
    expect(result.stderr.split('\n').filter((l) => l.startsWith(file))).toEqual([
      `${file}:4:5: entry 1 "ctrl \uFFFD \uFFFD[31m": does not balance: debits 1.00, credits 2.00, difference 1.00 (credits higher)`,
      `${file}:9:5: entry 2 "two lines": does not balance: debits 1.00, credits 3.00, difference 2.00 (credits higher)`,
    ])
  })

  it('refuses a file whose bytes are not UTF-8 (saved as Windows-1252), naming line and column', async () => {
    const file = join(dir, 'latin1.yaml')
    writeFileSync(
      file,
      Buffer.from(ok('Crème', '  - {ledger_id: ldg_a, debit: 1}\n  - {ledger_id: ldg_b, credit: 1}\n'), 'latin1'),
    )
    const result = await runBk(['journal-entries', 'validate', file])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(
      `${file}:1:16: holds bytes that are not UTF-8 (shown as \uFFFD in "description: Cr\uFFFDme")`,
    )
  })

  it('names a file that cannot be read', async () => {
    const missing = await runBk(['journal-entries', 'validate', join(dir, 'nope.yaml')])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain(`Cannot read ${join(dir, 'nope.yaml')}: no such file`)
  })
})
