import {execFileSync} from 'node:child_process'
import {accessSync, constants, existsSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {ROOT, parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'
import {performedBy} from '../../src/emulator/routes/bills.js'
import type {ImportSummary as Summary} from '../../src/bills/import.js'
import type {SnakeCaseKeys} from '../../src/shared/json-keys.js'

/** The summary as --json prints it. */
type ImportSummary = SnakeCaseKeys<Summary>

const BIZ = 'biz_demo_acme'
let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())
beforeEach(() => emulator.state.bills.clear())

const bills = () => emulator.state.bills.all(BIZ)
const byNumber = (n: string) => bills().filter((b) => b.number === n)

/** A fresh folder holding the file `name`: these lines, each ended by `eol`. */
function csvIn(name: string, lines: string[], eol = '\n'): string {
  const dir = tempDir('bk-bills-')
  writeFileSync(join(dir, name), lines.join(eol) + eol)
  return dir
}

describe('bk bills import', () => {
  it('imports a BOM + CRLF file with quoted multi-line fields, exact amounts and verbatim formulas', async () => {
    const dir = csvIn(
      'bills.csv',
      [
        '\uFEFF' +
          'Number,Vendor_ID,Description,Issued_At,Due_At,Currency,Line_Description,Line_Amount,Line_Ledger_ID,tag:department,Metadata',
        'INV-1,ven_demo_office,"=HYPERLINK(""http://evil.example"",""click"")",2026-01-05,2026-02-05T12:00:00Z,EUR,"first line,\r\nwith a comma and a newline",0.1,ldg_demo_expenses,engineering=0.1;sales=0.2,"{""po"": ""PO-7""}"',
        'INV-1,ven_demo_office,"=HYPERLINK(""http://evil.example"",""click"")",2026-01-05,2026-02-05T12:00:00Z,EUR,second,0.2,ldg_demo_software,engineering=0.1;sales=0.2,"{""po"": ""PO-7""}"',
        'INV-2,ven_demo_cloud,Hosting,2026-01-06T08:30:00+01:00,,USD,Servers,1234567.89,ldg_demo_software,operations,',
      ],
      '\r\n',
    )
    const result = await runBk(
      ['bills', 'import', 'bills.csv', '--json', '--results', 'created.ndjson', '--performed-by', 'ci-nightly'],
      {env: envFor(emulator), cwd: dir},
    )
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const summary = parseJsonOutput<ImportSummary>(result)
    expect(summary).toMatchObject({
      created: 2,
      failed: 0,
      unconfirmed: 0,
      skipped: 0,
      rejects_file: null,
      results_file: 'created.ndjson',
    })
    expect(typeof summary.duration_ms).toBe('number')
    const [one] = byNumber('INV-1')
    expect(one?.description).toBe('=HYPERLINK("http://evil.example","click")')
    expect(one?.lines?.map((l) => [l.description, l.amount, l.ledger_id])).toEqual([
      ['first line,\r\nwith a comma and a newline', 0.1, 'ldg_demo_expenses'],
      ['second', 0.2, 'ldg_demo_software'],
    ])
    // 0.1 + 0.2 is 0.30000000000000004 in floating point; the total and the allocation check are exact.
    expect(one?.total_amount).toBe(0.3)
    expect(one?.tags).toEqual({
      department: [
        {amount: '0.1', value: 'engineering'},
        {amount: '0.2', value: 'sales'},
      ],
    })
    expect(one?.metadata_).toEqual({po: 'PO-7'})
    expect(one?.issued_at).toBe('2026-01-05T00:00:00Z')
    const [two] = byNumber('INV-2')
    expect(two).toMatchObject({
      issued_at: '2026-01-06T07:30:00Z',
      currency: 'USD',
      total_amount: 1234567.89,
      tags: {department: [{amount: '1234567.89', value: 'operations'}]},
    })
    expect(performedBy(emulator.state, one!.id)).toBe('ci-nightly')
    const created = readFileSync(join(dir, 'created.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as {number: string; id: string; line: number})
    expect(created).toEqual([
      {number: 'INV-1', id: one!.id, line: 2},
      {number: 'INV-2', id: two!.id, line: 5},
    ])
    expect(existsSync(join(dir, 'bills.csv.bk-journal'))).toBe(true)
  })

  it('sends the valid bills around invalid ones; rejects hold the original rows and the reason; exit 6', async () => {
    const dir = csvIn('mixed.csv', [
      'number,vendor_id,description,line_amount,line_ledger_id',
      'G-1,ven_demo_office,ok,10,ldg_demo_expenses',
      'G-2,ven_demo_office,"bad, amount",1e2,ldg_demo_expenses',
      'G-2,ven_demo_office,"bad, amount",5,ldg_demo_expenses',
      'G-3,ven_unknown,unknown vendor,7.5,ldg_demo_expenses',
      'G-4,ven_demo_cloud,ok too,3,ldg_demo_travel',
    ])
    const result = await runBk(['bills', 'import', 'mixed.csv', '--batch-size', '2'], {env: envFor(emulator), cwd: dir})
    expect(result.code).toBe(6)
    expect(result.stdout).toContain('Done: 2 created, 2 failed, 0 unconfirmed')
    expect(result.stdout).toContain('mixed.rejects.csv')
    // Each reason once: the row error as found, the service's refusal in the summary.
    const reasons = result.stderr.split('\n').filter((line) => /mixed\.csv:3:|ven_unknown/.test(line))
    expect(reasons).toEqual([
      expect.stringMatching(/^mixed\.csv:3: column line_amount: "1e2" is not a decimal amount/) as string,
      '  bill G-3 (vendor ven_unknown): rejected by the service: vendor ven_unknown does not exist in business biz_demo_acme',
    ])
    expect(
      bills()
        .map((b) => b.number)
        .sort(),
    ).toEqual(['G-1', 'G-4'])
    const rejects = readFileSync(join(dir, 'mixed.rejects.csv'), 'utf8')
    const lines = rejects.trim().split('\n')
    expect(lines[0]).toBe('number,vendor_id,description,line_amount,line_ledger_id,error')
    expect(lines[1]).toMatch(
      /^G-2,ven_demo_office,"bad, amount",1e2,ldg_demo_expenses,"mixed\.csv:3: column line_amount: ""1e2"" is not a decimal amount/,
    )
    expect(lines[2]).toMatch(
      /^G-2,ven_demo_office,"bad, amount",5,ldg_demo_expenses,"not sent: another row of this bill is invalid: mixed\.csv:3: column line_amount/,
    )
    expect(lines[3]).toBe(
      'G-3,ven_unknown,unknown vendor,7.5,ldg_demo_expenses,rejected by the service: vendor ven_unknown does not exist in business biz_demo_acme',
    )
    // Fixed, the rejects file imports as it is (its error column is ignored).
    writeFileSync(join(dir, 'fixed.csv'), rejects.replace('1e2', '100').replaceAll('ven_unknown', 'ven_demo_travel'))
    const again = await runBk(['bills', 'import', 'fixed.csv', '--json'], {env: envFor(emulator), cwd: dir})
    expect(again.code, again.stderr).toBe(0)
    expect(parseJsonOutput<ImportSummary>(again)).toMatchObject({created: 2, failed: 0})
    expect(byNumber('G-2')[0]?.total_amount).toBe(105)
    expect(
      bills()
        .map((b) => b.number)
        .sort(),
    ).toEqual(['G-1', 'G-2', 'G-3', 'G-4'])
  })

  it('--results defuses a bill number a spreadsheet would run; the rejects repeat the row as written', async () => {
    const dir = csvIn('fm.csv', [
      'number,vendor_id,line_amount,line_ledger_id',
      '=X1,ven_demo_office,1.00,ldg_demo_expenses',
      '+44,ven_demo_office,1.00,ldg_demo_expenses',
      '-7,ven_demo_office,1.00,ldg_demo_expenses',
      '@A1,ven_unknown,1.00,ldg_demo_expenses',
    ])
    const result = await runBk(['bills', 'import', 'fm.csv', '--results', 'fm.res.csv'], {
      env: envFor(emulator),
      cwd: dir,
    })
    expect(result.code, result.stderr).toBe(6)
    // The service holds the numbers as written: only the spreadsheet's copy is defused.
    const id = (number: string) => byNumber(number)[0]?.id ?? 'missing'
    expect(readFileSync(join(dir, 'fm.res.csv'), 'utf8')).toBe(
      `number,id,line\n'=X1,${id('=X1')},2\n'+44,${id('+44')},3\n'-7,${id('-7')},4\n`,
    )
    // To be fixed and imported again: byte for byte.
    expect(readFileSync(join(dir, 'fm.rejects.csv'), 'utf8').split('\n')[1]).toMatch(
      /^@A1,ven_unknown,1\.00,ldg_demo_expenses,rejected by the service: /,
    )
  })

  it('"… and N more" counts every bill not created, past the reasons the import keeps', async () => {
    const rows = ['number,vendor_id,line_amount,line_ledger_id', 'M-0,ven_demo_office,1.00,ldg_demo_expenses']
    for (let i = 1; i <= 25; i++) rows.push(`M-${i},ven_unknown,1.00,ldg_demo_expenses`)
    const dir = csvIn('many.csv', rows)
    const result = await runBk(['bills', 'import', 'many.csv', '--json'], {env: envFor(emulator), cwd: dir})
    expect(result.code, result.stderr).toBe(6)
    const {partial} = parseJsonOutput<{partial: {failed: number; reasons: string[]}}>(result)
    expect(partial.failed).toBe(25)
    const refused = (i: number) =>
      `  bill M-${i} (vendor ven_unknown): rejected by the service: vendor ven_unknown does not exist in business ${BIZ}`
    expect(result.stderr.split('\n').filter(Boolean)).toEqual([...[1, 2, 3, 4, 5].map(refused), '  … and 20 more'])
  })

  it('refuses output files it could not write before sending anything, naming the flag', async () => {
    const dir = csvIn('mixed.csv', [
      'number,vendor_id,description,line_amount,line_ledger_id',
      'H-1,ven_demo_office,ok,10,ldg_demo_expenses',
      'H-2,ven_demo_office,bad,1e2,ldg_demo_expenses',
    ])
    const rejects = await runBk(['bills', 'import', 'mixed.csv', '--rejects', join('no-such-folder', 'r.csv')], {
      env: envFor(emulator),
      cwd: dir,
    })
    expect(rejects.code).toBe(2)
    expect(rejects.stderr).toContain('--rejects no-such-folder/r.csv: the folder')
    const results = await runBk(['bills', 'import', 'mixed.csv', '--results', '.'], {env: envFor(emulator), cwd: dir})
    expect(results.code).toBe(2)
    expect(results.stderr).toContain('--results .: is a directory')
    expect(bills()).toEqual([])
    expect(existsSync(join(dir, 'mixed.csv.bk-journal'))).toBe(false)
  })

  // /dev/full takes the open and fails every write with ENOSPC, as a full disk would (bk
  // checks that its folder is writable, so this needs a user who may write in /dev).
  const devFull = (() => {
    try {
      accessSync('/dev', constants.W_OK)
      return statSync('/dev/full').isCharacterDevice()
    } catch {
      return false
    }
  })()
  if (!devFull) console.warn('Skipping the full-disk test: /dev/full is missing or /dev is not writable')
  it.skipIf(!devFull)(
    'reports a results file it could not write with the summary, and still writes the rejects',
    async () => {
      const dir = csvIn('full.csv', [
        'number,vendor_id,description,line_amount,line_ledger_id',
        'K-1,ven_demo_office,ok,10,ldg_demo_expenses',
        'K-2,ven_demo_office,bad,1e2,ldg_demo_expenses',
      ])
      const result = await runBk(['bills', 'import', 'full.csv', '--results', '/dev/full'], {
        env: envFor(emulator),
        cwd: dir,
      })
      // A full disk (here /dev/full) ends the run with exit 9, the summary exact.
      expect(result.code).toBe(9)
      expect(result.stderr).toMatch(/Error: The disk is full \(ENOSPC[^)]*\): 1 bill created, 0 unconfirmed, 1 failed/)
      expect(result.stdout).toContain('1 created, 1 failed')
      expect(readFileSync(join(dir, 'full.rejects.csv'), 'utf8')).toContain('K-2')
      expect(byNumber('K-1')).toHaveLength(1)
    },
  )

  it('clears a stale rejects file, but never removes a --rejects path that is not a plain file', async () => {
    const dir = csvIn('ok.csv', [
      'number,vendor_id,line_amount,line_ledger_id',
      'P-1,ven_demo_office,10,ldg_demo_expenses',
    ])
    writeFileSync(join(dir, 'ok.rejects.csv'), 'from an earlier run\n')
    execFileSync('mkfifo', [join(dir, 'pipe')])
    const first = await runBk(['bills', 'import', 'ok.csv'], {env: envFor(emulator), cwd: dir})
    expect(first.code, first.stderr).toBe(0)
    expect(existsSync(join(dir, 'ok.rejects.csv'))).toBe(false)
    const second = await runBk(['bills', 'import', 'ok.csv', '--restart', '--yes', '--rejects', 'pipe'], {
      env: envFor(emulator),
      cwd: dir,
    })
    expect(second.code, second.stderr).toBe(0)
    expect(statSync(join(dir, 'pipe')).isFIFO()).toBe(true)
  })

  it('refuses a second run without --resume or --restart; --resume skips what the journal records', async () => {
    const dir = tempDir('bk-bills-')
    const rows = ['number,vendor_id,line_amount,line_ledger_id']
    for (let i = 1; i <= 5; i++) rows.push(`R-${i},ven_demo_office,${i}.00,ldg_demo_expenses`)
    writeFileSync(join(dir, 'r.csv'), rows.join('\n') + '\n')
    const first = await runBk(['bills', 'import', 'r.csv', '--batch-size', '2'], {env: envFor(emulator), cwd: dir})
    expect(first.code).toBe(0)
    const again = await runBk(['bills', 'import', 'r.csv'], {env: envFor(emulator), cwd: dir})
    expect(again.code).toBe(2)
    expect(again.stderr).toContain('r.csv was imported before: its journal r.csv.bk-journal')
    expect(again.stderr).toContain('records 5 bills created')
    expect(again.stderr).toContain('--resume')
    expect(again.stderr).toContain('--restart')
    expect(again.stderr).not.toContain('changed')
    rows.push('R-6,ven_demo_office,6.00,ldg_demo_expenses')
    writeFileSync(join(dir, 'r.csv'), rows.join('\n') + '\n')
    // The same path, other contents: the refusal says so, and what --resume would do with them.
    const changed = await runBk(['bills', 'import', 'r.csv'], {env: envFor(emulator), cwd: dir})
    expect(changed.code).toBe(2)
    expect(changed.stderr).toMatch(
      /and r\.csv has changed since its journal began \(\d+ bytes modified .* then, \d+ bytes modified .* now\)/,
    )
    expect(changed.stderr).toContain(
      '--resume to send only the bills whose vendor_id and number the journal does not record',
    )
    const resumed = await runBk(['bills', 'import', 'r.csv', '--resume', '--json', '--results', 'ids.csv'], {
      env: envFor(emulator),
      cwd: dir,
    })
    expect(resumed.code).toBe(0)
    expect(parseJsonOutput<ImportSummary>(resumed)).toMatchObject({created: 1, skipped: 5, failed: 0, unconfirmed: 0})
    expect(
      bills()
        .map((b) => b.number)
        .sort(),
    ).toEqual(['R-1', 'R-2', 'R-3', 'R-4', 'R-5', 'R-6'])
    const ids = readFileSync(join(dir, 'ids.csv'), 'utf8').trim().split('\n')
    expect(ids[0]).toBe('number,id,line')
    expect(ids).toHaveLength(7)
    // --restart says what it would send again, and needs --yes with no TTY.
    const refused = await runBk(['bills', 'import', 'r.csv', '--restart'], {env: envFor(emulator), cwd: dir})
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/send again 6 bills it records as created and 0 unconfirmed/)
    expect(refused.stderr).toContain('--yes')
    expect(bills()).toHaveLength(6)
    const restarted = await runBk(['bills', 'import', 'r.csv', '--restart', '--yes', '--json'], {
      env: envFor(emulator),
      cwd: dir,
    })
    expect(parseJsonOutput<ImportSummary>(restarted)).toMatchObject({created: 6, skipped: 0})
    expect(bills()).toHaveLength(12)
  })

  it('--restart asks nothing when the record of created bills holds every bill the journal records', async () => {
    const dir = tempDir('bk-bills-')
    const configDir = tempDir('bk-config-')
    writeFileSync(
      join(dir, 'k.csv'),
      'number,vendor_id,line_amount,line_ledger_id\nK-1,ven_demo_office,1.00,ldg_demo_expenses\n',
    )
    const run = (...flags: string[]) =>
      runBk(['bills', 'import', 'k.csv', ...flags], {env: envFor(emulator), cwd: dir, configDir})
    expect((await run()).code).toBe(0)
    // Another record knows nothing of it: there it would be sent again, and --restart asks.
    const elsewhere = await run('--restart', '--record', join(dir, 'other-record'))
    expect(elsewhere.code).toBe(2)
    expect(elsewhere.stderr).toContain(
      'send again 1 bill it records as created and 0 unconfirmed (each would exist twice)',
    )
    const restarted = await run('--restart', '--json')
    expect(restarted.code, restarted.stderr).toBe(0)
    expect(parseJsonOutput<ImportSummary>(restarted)).toMatchObject({created: 0, existing: 1})
    expect(byNumber('K-1')).toHaveLength(1)
  })

  it('reads stdin with -, and needs --journal to resume from it', async () => {
    const input = 'number,vendor_id,line_amount,line_ledger_id\nS-1,ven_demo_office,1.5,ldg_demo_expenses\n'
    const dir = tempDir('bk-bills-')
    const result = await runBk(['bills', 'import', '-', '--json'], {env: envFor(emulator), cwd: dir, input})
    expect(result.code, result.stderr).toBe(0)
    expect(parseJsonOutput<ImportSummary>(result)).toMatchObject({created: 1, journal_file: null})
    const resume = await runBk(['bills', 'import', '-', '--resume'], {env: envFor(emulator), cwd: dir, input})
    expect(resume.code).toBe(2)
    expect(resume.stderr).toContain('--journal')
    expect(byNumber('S-1')).toHaveLength(1)
  })

  it('warns of a file with a header and no bill, which a truncated export also is; exit 0', async () => {
    const dir = csvIn('empty-period.csv', ['number,vendor_id,line_amount,line_ledger_id'])
    const warning = 'Warning: No bill in empty-period.csv: it has no row after its header; nothing was sent\n'
    for (const extra of [['--dry-run'], ['--json']]) {
      const result = await runBk(['bills', 'import', 'empty-period.csv', ...extra], {env: envFor(emulator), cwd: dir})
      expect(result.code, result.stderr).toBe(0)
      expect(result.stderr).toContain(warning)
    }
  })

  it('a per-bill service error for an unknown tag field goes to rejects; the rest of the batch is created', async () => {
    const dir = csvIn('t.csv', [
      'number,vendor_id,line_amount,line_ledger_id,tag:colour,tag:project',
      'T-1,ven_demo_office,1,ldg_demo_expenses,red,',
      'T-2,ven_demo_office,2,ldg_demo_expenses,,hermes',
    ])
    const result = await runBk(['bills', 'import', 't.csv', '--json'], {env: envFor(emulator), cwd: dir})
    expect(result.code).toBe(6)
    expect(parseJsonOutput<ImportSummary>(result)).toMatchObject({created: 1, failed: 1, rejects_file: 't.rejects.csv'})
    expect(readFileSync(join(dir, 't.rejects.csv'), 'utf8')).toContain(
      'T-1,ven_demo_office,1,ldg_demo_expenses,red,,"rejected by the service: tag field ""colour"" does not exist in business biz_demo_acme"\n',
    )
    expect(byNumber('T-2')[0]?.tags).toEqual({project: [{amount: '2', value: 'hermes'}]})
    expect(emulator.state.tagFields.get(BIZ)?.get('project')?.has('hermes')).toBe(true)
  })

  it('imports examples/bills.csv (the demo file) completely: 30 bills, multi-line and tagged', async () => {
    const dir = tempDir('bk-bills-')
    writeFileSync(join(dir, 'bills.csv'), readFileSync(join(ROOT, 'examples', 'bills.csv')))
    const result = await runBk(['bills', 'import', 'bills.csv', '--json'], {env: envFor(emulator), cwd: dir})
    expect(result.code).toBe(0)
    expect(parseJsonOutput<ImportSummary>(result)).toMatchObject({created: 30, failed: 0, unconfirmed: 0})
    expect(bills()).toHaveLength(30)
    expect(bills().filter((b) => (b.lines?.length ?? 0) > 1).length).toBeGreaterThanOrEqual(5)
    expect(bills().filter((b) => (b.tags?.department?.length ?? 0) === 2).length).toBeGreaterThanOrEqual(3)
  })

  it('imports an accounting-package export through examples/bills-map.yaml', async () => {
    const dir = csvIn(
      'export.csv',
      [
        'Bill Number,Supplier ID,Supplier Name,Reference,Bill Date,Due Date,Item Description,Line Amount,Tax Rate,Account ID,Tracking - Department,Tracking - Project,Status',
        'X-100,ven_demo_office,Office Depot,Paper,2026-03-01,2026-03-31,A4 paper,40.00,20%,ldg_demo_expenses,sales,apollo,AUTHORISED',
        'X-100,ven_demo_office,Office Depot,Paper,2026-03-01,2026-03-31,Pens,9.99,20%,ldg_demo_expenses,sales,apollo,AUTHORISED',
        'X-101,ven_demo_cloud,Cloudy Hosting,March,2026-03-02,2026-04-01,Compute,120.00,0%,ldg_demo_software,engineering,,AUTHORISED',
      ],
      '\r\n',
    )
    const result = await runBk(
      ['bills', 'import', 'export.csv', '--map', join(ROOT, 'examples', 'bills-map.yaml'), '--json'],
      {env: envFor(emulator), cwd: dir},
    )
    expect(result.code).toBe(0)
    expect(byNumber('X-100')[0]).toMatchObject({
      currency: 'EUR',
      total_amount: 49.99,
      description: 'Paper',
      issued_at: '2026-03-01T00:00:00Z',
      tags: {department: [{amount: '49.99', value: 'sales'}], project: [{amount: '49.99', value: 'apollo'}]},
    })
    expect(byNumber('X-101')[0]?.lines?.[0]).toMatchObject({
      description: 'Compute',
      amount: 120,
      ledger_id: 'ldg_demo_software',
    })
  })

  it('stops on a 403 with exit 3, journals the batch as not sent, and --resume sends it once allowed', async () => {
    const dir = csvIn('p.csv', [
      'number,vendor_id,line_amount,line_ledger_id',
      'P-1,ven_demo_office,1,ldg_demo_expenses',
      'P-2,ven_demo_office,2,ldg_demo_expenses',
    ])
    const denied = await runBk(['bills', 'import', 'p.csv', '--batch-size', '1', '--concurrency', '1'], {
      env: {...envFor(emulator), BK_SCOPES: 'transaction:read'},
      cwd: dir,
    })
    expect(denied.code).toBe(3)
    expect(denied.stderr).toContain('Token lacks the scope bill:create')
    expect(denied.stderr).toContain('--resume')
    expect(denied.stdout).toContain('Stopped: 0 created')
    expect(readFileSync(join(dir, 'p.csv.bk-journal'), 'utf8')).toContain('"t":"notsent"')
    expect(bills()).toHaveLength(0)
    const resumed = await runBk(['bills', 'import', 'p.csv', '--resume', '--json'], {env: envFor(emulator), cwd: dir})
    expect(resumed.code).toBe(0)
    expect(parseJsonOutput<ImportSummary>(resumed)).toMatchObject({created: 2, skipped: 0})
    expect(
      bills()
        .map((b) => b.number)
        .sort(),
    ).toEqual(['P-1', 'P-2'])
  })

  it('a journal of bills refused in a mistyped business lets --resume import into the right one', async () => {
    const dir = csvIn('m.csv', [
      'number,vendor_id,line_amount,line_ledger_id',
      'M-1,ven_demo_office,1,ldg_demo_expenses',
    ])
    const mistyped = await runBk(['bills', 'import', 'm.csv', '--business', 'biz_demo_globex'], {
      env: envFor(emulator),
      cwd: dir,
    })
    expect(mistyped.code).toBe(6)
    expect(mistyped.stderr).toContain('vendor ven_demo_office does not exist in business biz_demo_globex')
    const resumed = await runBk(['bills', 'import', 'm.csv', '--resume', '--json'], {env: envFor(emulator), cwd: dir})
    expect(resumed.code, resumed.stderr).toBe(0)
    expect(parseJsonOutput<ImportSummary>(resumed)).toMatchObject({created: 1, failed: 0, skipped: 0})
    expect(byNumber('M-1')).toHaveLength(1)
    expect(readFileSync(join(dir, 'm.csv.bk-journal'), 'utf8')).toMatch(/^\{"t":"header".*"business":"biz_demo_acme"/)
  })

  it('a run stopped by a header error leaves no journal in the way of the next run', async () => {
    const dir = csvIn('h.csv', ['number,vendor,line_amount,line_ledger_id', 'H-1,ven_demo_office,1,ldg_demo_expenses'])
    const bad = await runBk(['bills', 'import', 'h.csv'], {env: envFor(emulator), cwd: dir})
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('h.csv:1: unknown column "vendor"')
    writeFileSync(
      join(dir, 'h.csv'),
      'number,vendor_id,line_amount,line_ledger_id\nH-1,ven_demo_office,1,ldg_demo_expenses\n',
    )
    const good = await runBk(['bills', 'import', 'h.csv'], {env: envFor(emulator), cwd: dir})
    expect(good.code, good.stderr).toBe(0)
    expect(byNumber('H-1')).toHaveLength(1)
  })
})
