import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

const HEADER =
  'number,vendor_id,description,issued_at,due_at,currency,line_description,line_amount,line_ledger_id,metadata,line_metadata,tag:department'
const row = (over: Partial<Record<string, string>> = {}) => {
  const base: Record<string, string> = {
    number: 'X',
    vendor_id: 'ven_demo_office',
    description: 'd',
    issued_at: '2026-01-05',
    due_at: '',
    currency: 'EUR',
    line_description: 'l',
    line_amount: '10.00',
    line_ledger_id: 'ldg_demo_expenses',
    metadata: '',
    line_metadata: '',
    'tag:department': '',
  }
  return HEADER.split(',')
    .map((c) => over[c] ?? base[c])
    .join(',')
}

function csvFile(lines: string[], name = 'bills.csv'): {dir: string; name: string} {
  const dir = tempDir('bk-bills-')
  writeFileSync(join(dir, name), lines.join('\n') + '\n')
  return {dir, name}
}

describe('bk bills import --dry-run: every rule names the line, column and value', () => {
  it('lists each problem with its physical line and exits 2, sending nothing', async () => {
    const lines = [
      HEADER, // 1
      row({number: 'A-1', due_at: '2026-02-05T10:00:00Z'}), // 2 valid
      row({number: 'A-2', vendor_id: 'vendor_x'}), // 3
      row({number: 'A-3', issued_at: '2026-02-30'}), // 4
      row({number: 'A-4', issued_at: '2026-01-05T10:00:00'}), // 5
      row({number: 'A-5', currency: 'EURO'}), // 6
      row({number: 'A-6', currency: 'ABC'}), // 7
      row({number: 'A-7', line_amount: '"12,50"'}), // 8
      row({number: 'A-8', line_amount: 'free'}), // 9: an e, and no exponent
      row({number: 'A-9', line_amount: '1e3'}), // 10
      row({number: 'A-10', line_amount: '"1,234.50"'}), // 11
      row({number: 'A-11', line_amount: '1234567890.1234567'}), // 12
      row({number: 'A-12', line_ledger_id: 'ledger_x'}), // 13
      row({number: 'A-13', line_ledger_id: ''}), // 14
      row({number: 'A-14', metadata: '"{bad"'}), // 15
      row({number: 'A-15', line_metadata: '[1]'}), // 16
      row({number: 'A-16', 'tag:department': 'engineering=6;sales=5'}), // 17
      row({number: 'A-17'}), // 18
      row({number: 'A-17', currency: 'USD'}), // 19
      'A-18,ven_demo_office,d', // 20
      row({number: ''}), // 21
      row({number: 'A-1'}), // 22
      row({number: 'A-19', 'tag:department': '=5'}), // 23
      row({number: 'A-20', due_at: 'tomorrow'}), // 24
      row({number: 'A-21', 'tag:department': 'a=b=1'}), // 25
      row({number: 'A-22', 'tag:department': 'engineering=1;engineering=2'}), // 26
    ]
    const {dir, name} = csvFile(lines)
    const result = await runBk(['bills', 'import', name, '--dry-run', '--max-errors', '100'], {
      env: envFor(emulator),
      cwd: dir,
    })
    expect(result.code).toBe(2)
    const expected = [
      'bills.csv:3: column vendor_id: "vendor_x" is not an id starting with ven_',
      'bills.csv:4: column issued_at: "2026-02-30" is not a real date',
      'bills.csv:5: column issued_at: "2026-01-05T10:00:00" has no time zone',
      'bills.csv:6: column currency: "EURO" is not an ISO 4217 currency code',
      'bills.csv:7: column currency: "ABC" is not an ISO 4217 currency code',
      'bills.csv:8: column line_amount: "12,50" is not a decimal amount (use a dot for decimals and no thousands separators',
      'bills.csv:9: column line_amount: "free" is not a decimal amount (expected digits',
      'bills.csv:10: column line_amount: "1e3" is not a decimal amount (exponents are not accepted; write 1000)',
      'bills.csv:11: column line_amount: "1,234.50" is not a decimal amount (use a dot for decimals and no thousands separators',
      'bills.csv:12: column line_amount: "1234567890.1234567" has more than 15 significant digits',
      'bills.csv:13: column line_ledger_id: "ledger_x" is not an id starting with ldg_',
      'bills.csv:14: column line_ledger_id: is empty: expected an id starting with ldg_',
      'bills.csv:15: column metadata: "{bad" is not valid JSON',
      'bills.csv:16: column line_metadata: "[1]" is not a JSON object',
      'bills.csv:17: column tag:department: "engineering=6;sales=5" allocates 11 in total, more than the bill total 10',
      'bills.csv:19: column currency: "USD" differs from line 18 ("EUR") of the same bill A-17',
      'bills.csv:20: has 3 columns, but the header (line 1) has 12',
      'bills.csv:21: column number: is empty: expected the bill number',
      'bills.csv:22: column number: "A-1" reappears after another bill began: bill A-1 (vendor ven_',
      'bills.csv:23: column tag:department: "=5" has an allocation "=5" without a value',
      'bills.csv:24: column due_at: "tomorrow" is not an ISO 8601 date or datetime',
      'bills.csv:25: column tag:department: "a=b=1" has an allocation "a=b=1" with more than one "="',
      'bills.csv:26: column tag:department: "engineering=1;engineering=2" allocates to "engineering" twice',
    ]
    for (const line of expected) expect(result.stderr).toContain(line)
    expect(result.stderr).not.toMatch(/bills\.csv:(2|18):/)
    expect(result.stderr).toContain('Error: 23 problems in bills.csv (23 of 24 bills invalid); nothing was sent')
    expect(emulator.state.bills.count()).toBe(0)
  })

  it('--json gives the errors as data, and --max-errors bounds the list', async () => {
    const {dir, name} = csvFile([
      HEADER,
      row({number: 'B-1', line_amount: 'x'}),
      row({number: 'B-2', line_amount: 'y'}),
      row({number: 'B-3', line_amount: 'z'}),
    ])
    const result = await runBk(['bills', 'import', name, '--dry-run', '--max-errors', '2', '--json'], {
      env: envFor(emulator),
      cwd: dir,
    })
    expect(result.code).toBe(2)
    const out = parseJsonOutput<{
      code: string
      details: {error_count: number; errors: Array<{line: number; column: string; value: string}>}
    }>(result)
    expect(out.code).toBe('invalid_bills')
    expect(out.details.error_count).toBe(3)
    expect(out.details.errors.map((e) => [e.line, e.column, e.value])).toEqual([
      [2, 'line_amount', 'x'],
      [3, 'line_amount', 'y'],
    ])
  })

  it('names the line where an unterminated quote opened, after a quoted multi-line field', async () => {
    const {dir, name} = csvFile([
      HEADER,
      row({number: 'C-1', description: '"two\nlines"'}),
      row({number: 'C-2', description: '"never closed'}),
      row({number: 'C-3'}),
    ])
    const result = await runBk(['bills', 'import', name, '--dry-run'], {env: envFor(emulator), cwd: dir})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(
      'bills.csv:4: column description: unterminated quoted field: the quote opened on line 4 is never closed',
    )
  })

  it('accepts a valid file with a date alone, CRLF and a BOM, and says so', async () => {
    const dir = tempDir('bk-bills-')
    writeFileSync(
      join(dir, 'ok.csv'),
      '\uFEFF' +
        [
          HEADER.toUpperCase().replace('TAG:DEPARTMENT', 'tag:department'),
          row({number: 'D-1'}),
          row({number: 'D-1', line_amount: '-2.5'}),
        ].join('\r\n') +
        '\r\n',
    )
    // No credentials at all: a dry run is offline.
    const result = await runBk(['bills', 'import', 'ok.csv', '--dry-run', '--json'], {cwd: dir})
    expect(result.code).toBe(0)
    expect(parseJsonOutput<{rows: number; bills: number; valid: number}>(result)).toMatchObject({
      rows: 2,
      bills: 1,
      valid: 1,
    })
  })

  it("compares the bill-level columns of a bill's rows as they are used: trimmed, but the description verbatim", async () => {
    const {dir, name} = csvFile([
      HEADER,
      row({number: 'W-1', currency: 'EUR', vendor_id: 'ven_demo_office'}),
      row({number: 'W-1', currency: ' EUR', vendor_id: 'ven_demo_office '}),
      row({number: 'W-2', description: 'Rent'}),
      row({number: 'W-2', description: 'Rent '}),
    ])
    const result = await runBk(['bills', 'import', name, '--dry-run', '--json'], {env: envFor(emulator), cwd: dir})
    expect(result.code).toBe(2)
    const {details} = parseJsonOutput<{details: {errors: Array<{line: number; column: string}>}}>(result)
    expect(details.errors.map((e) => [e.line, e.column])).toEqual([[5, 'description']])
  })

  it('refuses a row whose bytes are not UTF-8 (a file saved as Windows-1252), naming line and column', async () => {
    const dir = tempDir('bk-bills-')
    const utf8 = Buffer.from(row({number: 'U-1', description: 'Café'}) + '\n', 'utf8')
    const latin1 = Buffer.from(row({number: 'U-2', description: 'Crème brûlée'}) + '\n', 'latin1')
    writeFileSync(join(dir, 'mixed.csv'), Buffer.concat([Buffer.from(HEADER + '\n'), utf8, latin1]))
    const result = await runBk(['bills', 'import', 'mixed.csv', '--dry-run'], {env: envFor(emulator), cwd: dir})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(
      'mixed.csv:3: column description: "Cr\uFFFDme br\uFFFDl\uFFFDe" holds bytes that are not UTF-8',
    )
    expect(result.stderr).toContain('1 of 2 bills invalid')
  })

  it('says a file marked UTF-8 that is not mixes encodings, where --encoding cannot help', async () => {
    const dir = tempDir('bk-bills-')
    const latin1 = Buffer.from(row({number: 'U-2', description: 'Crème'}) + '\n', 'latin1')
    const bom = Buffer.from([0xef, 0xbb, 0xbf])
    writeFileSync(join(dir, 'marked.csv'), Buffer.concat([bom, Buffer.from(HEADER + '\n'), latin1]))
    const result = await runBk(['bills', 'import', 'marked.csv', '--dry-run', '--encoding', 'windows-1252'], {
      env: envFor(emulator),
      cwd: dir,
    })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(
      `marked.csv:2: column description: "Cr\uFFFDme" holds bytes that are not UTF-8 (shown as \uFFFD), though the file starts with UTF-8's byte order mark, which has bk read it as UTF-8 whatever --encoding says: the file mixes encodings. Save it again as UTF-8`,
    )
  })

  it('says a UTF-16 file without its little-endian mark is UTF-16, not Windows-1252', async () => {
    const dir = tempDir('bk-bills-')
    const text = HEADER + '\n' + row({number: 'B-1'}) + '\n'
    // Big-endian with its mark (FE FF), and little-endian without one: neither is read.
    const be = Buffer.from(text, 'utf16le').swap16()
    writeFileSync(join(dir, 'be.csv'), Buffer.concat([Buffer.from([0xfe, 0xff]), be]))
    writeFileSync(join(dir, 'le.csv'), Buffer.from(text, 'utf16le'))
    for (const name of ['be.csv', 'le.csv']) {
      for (const args of [
        ['bills', 'import', name, '--dry-run'],
        ['bills', 'maps', 'init', name],
      ]) {
        const result = await runBk(args, {env: envFor(emulator), cwd: dir})
        expect(result.code, args.join(' ')).toBe(2)
        expect(result.stderr).toContain(
          `Cannot read ${name}: it holds a NUL byte beside each character: it is UTF-16 without the mark`,
        )
        expect(result.stderr).not.toContain('--encoding windows-1252')
      }
    }
  })

  it('refuses a workbook or a PDF at its first bytes, saying how to get its CSV; nothing sent', async () => {
    const dir = tempDir('bk-bills-')
    // The first bytes as each format's specification starts a file, then bytes no CSV holds.
    const files: Record<string, [string, string]> = {
      'bills.xlsx': ['50 4b 03 04 14 00 06 00', 'a ZIP file, such as an Excel or OpenDocument workbook'],
      'bills.xls': ['d0 cf 11 e0 a1 b1 1a e1', 'an Excel 97-2003 workbook (.xls)'],
      'bills.pdf': ['25 50 44 46 2d 31 2e 37', 'a PDF'],
    }
    for (const [name, [magic, what]] of Object.entries(files)) {
      const bytes = Buffer.concat([Buffer.from(magic.replaceAll(' ', ''), 'hex'), Buffer.from([0, 0, 8, 0, 0x21, 0])])
      writeFileSync(join(dir, name), bytes)
      const runs = [
        await runBk(['bills', 'import', name], {env: envFor(emulator), cwd: dir}),
        await runBk(['bills', 'import', '-', '--dry-run'], {env: envFor(emulator), cwd: dir, input: bytes}),
        await runBk(['bills', 'maps', 'init', name], {env: envFor(emulator), cwd: dir}),
      ]
      for (const result of runs) {
        expect(result.code, result.stderr).toBe(2)
        expect(result.stderr).toMatch(new RegExp(`^Error: Cannot read (${name.replace('.', '\\.')}|stdin): it is `))
        expect(result.stderr).toContain(what)
        expect(result.stderr).not.toContain('column')
      }
    }
  })

  it('refuses unknown and missing columns by name', async () => {
    const {dir, name} = csvFile(['number,vendor,line_amount,line_ledger_id', 'E-1,ven_demo_office,1,ldg_demo_expenses'])
    const result = await runBk(['bills', 'import', name, '--dry-run'], {env: envFor(emulator), cwd: dir})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('bills.csv:1: unknown column "vendor"')
    expect(result.stderr).toContain('--map')
  })

  it("maps an accounting export's headers with --map, including defaults and ignored columns", async () => {
    const dir = tempDir('bk-bills-')
    writeFileSync(
      join(dir, 'map.yaml'),
      'columns:\n  Bill No: number\n  Supplier: vendor_id\n  Net: line_amount\n  GL Account: line_ledger_id\n  Dept: tag:department\n  Memo: ~\ndefaults:\n  currency: EUR\n',
    )
    writeFileSync(
      join(dir, 'export.csv'),
      'Bill No,Supplier,Net,GL Account,Dept,Memo\nM-1,ven_demo_office,12.5,ldg_demo_expenses,sales,hello\nM-2,ven_demo_office,1.5,gl_4000,,x\n',
    )
    const result = await runBk(['bills', 'import', 'export.csv', '--map', 'map.yaml', '--dry-run'], {
      env: envFor(emulator),
      cwd: dir,
    })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(
      'export.csv:3: column "GL Account" (line_ledger_id): "gl_4000" is not an id (ldg_…), and no lookup is given',
    )
    writeFileSync(join(dir, 'bad-map.yaml'), 'columns:\n  Bill No: number\n  Supplier: vendor\n')
    const bad = await runBk(['bills', 'import', 'export.csv', '--map', 'bad-map.yaml', '--dry-run'], {
      env: envFor(emulator),
      cwd: dir,
    })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('bad-map.yaml:3:13: "Supplier" maps to "vendor": expected one of bk\'s columns')
    // A map saved as Windows-1252 is refused where its bytes stop being UTF-8, not read with a U+FFFD header.
    writeFileSync(join(dir, 'latin1-map.yaml'), Buffer.from('columns:\n  N\u00b0 facture: number\n', 'latin1'))
    const latin1 = await runBk(['bills', 'import', 'export.csv', '--map', 'latin1-map.yaml', '--dry-run'], {
      env: envFor(emulator),
      cwd: dir,
    })
    expect(latin1.code).toBe(2)
    expect(latin1.stderr).toContain('latin1-map.yaml:2:4: holds bytes that are not UTF-8')
  })

  it('reads values as written: exact metadata numbers, no duplicate keys, no control characters', async () => {
    const q = (json: string) => `"${json.replaceAll('"', '""')}"`
    const {dir, name} = csvFile([
      HEADER, // 1
      row({number: 'V-1', metadata: q('{"n": 12345678901234567891}')}), // 2
      row({number: 'V-2', metadata: q('{"a": 1, "a": 2}')}), // 3
      row({number: 'V-3', description: 'bell\u0007here'}), // 4
      row({number: 'V-4', issued_at: '0026-01-05'}), // 5
      row({number: 'V-5', metadata: q('{"__proto__": {"x": 1}, "n": 0.1}')}), // 6 valid
    ])
    const result = await runBk(['bills', 'import', name, '--dry-run', '--json'], {env: envFor(emulator), cwd: dir})
    expect(result.code).toBe(2)
    const texts = parseJsonOutput<{details: {errors: Array<{text: string}>}}>(result).details.errors.map((e) => e.text)
    expect(texts).toEqual([
      expect.stringMatching(
        /^bills\.csv:2: column metadata: .* has the number 12345678901234567891 at n, which a JSON number \(a double\) cannot hold exactly/,
      ),
      expect.stringMatching(/^bills\.csv:3: column metadata: .* has the key "a" twice/),
      expect.stringContaining('bills.csv:4: column description: "bell\\u0007here" holds the control character U+0007'),
      expect.stringContaining('bills.csv:5: column issued_at: "0026-01-05" has the year 0026, which is not plausible'),
    ])
    // Strict RFC 4180: a stray quote stops reading, naming its line.
    const {dir: dir4, name: name4} = csvFile([
      HEADER,
      row({number: 'Q-1'}),
      row({number: 'Q-2', description: '12" monitor'}),
    ])
    const quote = await runBk(['bills', 'import', name4, '--dry-run'], {env: envFor(emulator), cwd: dir4})
    expect(quote.code).toBe(2)
    expect(quote.stderr).toContain(
      'bills.csv:3: column description: a quote inside a field that does not start with one',
    )
    // __proto__ is an ordinary key, sent as written.
    const {dir: dir2, name: name2} = csvFile([HEADER, row({number: 'V-5', metadata: q('{"__proto__": {"x": 1}}')})])
    const shown = await runBk(['bills', 'import', name2, '--dry-run', '--show', '1'], {
      env: envFor(emulator),
      cwd: dir2,
    })
    expect(shown.code, shown.stderr).toBe(0)
    expect(JSON.parse(shown.stdout)).toEqual([
      expect.objectContaining({metadata_: JSON.parse('{"__proto__": {"x": 1}}')}),
    ])
    // A header is checked as rows are.
    const {dir: dir3, name: name3} = csvFile([HEADER.replace('description', 'descr\u0001iption'), row()])
    const header = await runBk(['bills', 'import', name3, '--dry-run'], {env: envFor(emulator), cwd: dir3})
    expect(header.code).toBe(2)
    expect(header.stderr).toContain('column descr\\u0001iption (the header)')
  })

  it('names a cell of a file without a header row by its position, said once', async () => {
    const {dir, name} = csvFile([
      'H-1,ven_demo_office,2026-01-05,EUR,12.x5,ldg_demo_expenses',
      'H-2,ven_demo_office,2026-01-05,EUR,1\u00015.00,ldg_demo_expenses',
    ])
    const map = ['header: false', 'columns:', '  1: number', '  2: vendor_id', '  3: issued_at', '  4: currency']
    map.push('  5: line_amount', '  6: line_ledger_id')
    writeFileSync(join(dir, 'by-position.yaml'), map.join('\n') + '\n')
    const result = await runBk(['bills', 'import', name, '--map', 'by-position.yaml', '--dry-run'], {
      env: envFor(emulator),
      cwd: dir,
    })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('bills.csv:1: column 5 (line_amount): "12.x5" is not a number')
    expect(result.stderr).toContain('bills.csv:2: column 5: "1\\u00015.00" holds the control character U+0001')
    expect(result.stderr).not.toContain('column column')
    expect(result.stderr).not.toContain('"column 5"')
  })
})
