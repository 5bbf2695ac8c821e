/**
 * `bk bills import` in a GitHub Actions step: every row error and every bill the service left
 * unknown (a 5xx after the commit) is also a workflow command on stderr, escaped as the runner
 * reads it and capped at what GitHub shows; the step summary gets the counts and where the files
 * are; stdout is what it is outside Actions, byte for byte but the run's folder and duration.
 */
import {copyFileSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {DEMO_IDS} from '../../src/emulator/seed.js'
import {BILL_HEADER as HEADER, billRow} from '../helpers/bill-rows.js'
import {ROOT, runBk, tempDir} from '../helpers/bk.js'
import {envFor, start} from '../helpers/emulator.js'

const row = (number: string, amount: string) => billRow(number, {amount})
/** A comma and a colon in the file name: both must be escaped in the file= property. */
const FILE = 'bills,q1:2026.csv'
const CSV =
  [
    HEADER,
    row('GH-1', '10.00'), // line 2: sent, answered 500: unconfirmed
    row('GH-2', '12%'), // line 3: invalid ("%" escaped in the message)
    row('GH-3', '"1\n0"'), // lines 4-5: invalid, a line break inside the value
    ...Array.from({length: 9}, (_, i) => row(`GH-${i + 4}`, 'x')), // lines 6-14: invalid
    row('GH-13', '20.00'), // line 15: sent with GH-1
  ].join('\n') + '\n'

const NOT_DECIMAL = 'is not a decimal amount (expected digits with an optional dot, such as 120.50)'

/** The import in a workspace of its own, against an emulator that answers every request 500 after committing it. */
async function importIn(env: (workspace: string) => Record<string, string | undefined>) {
  const workspace = tempDir('bk-gha-')
  mkdirSync(join(workspace, 'data'))
  const file = join(workspace, 'data', FILE)
  writeFileSync(file, CSV)
  const emulator = await start({faultKinds: ['commit-5xx'], faultRate: 1})
  emulator.state.tokens.set('ci-token', {
    clientId: emulator.clientId,
    businessId: DEMO_IDS.business,
    expiresAt: Date.now() + 3_600_000,
  })
  try {
    const result = await runBk(['bills', 'import', file], {
      cwd: workspace,
      env: {
        BK_BASE_URL: emulator.baseUrl,
        BK_ACCESS_TOKEN: 'ci-token',
        BK_BUSINESS_ID: DEMO_IDS.business,
        GITHUB_ACTIONS: undefined,
        GITHUB_WORKSPACE: undefined,
        GITHUB_STEP_SUMMARY: undefined,
        ...env(workspace),
      },
    })
    const stdout = result.stdout.replaceAll(workspace, '<workspace>').replace(/, \d+\.\d s\./, ', N s.')
    return {result, stdout, workspace, baseUrl: emulator.baseUrl}
  } finally {
    await emulator.close()
  }
}

const workflowCommands = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('::'))

describe('bills import in GitHub Actions', () => {
  it('annotates row errors and unconfirmed bills on stderr, summarises the step, and leaves stdout as it was', async () => {
    const plain = await importIn(() => ({}))
    expect(plain.result.code, plain.result.stderr).toBe(6)
    expect(workflowCommands(plain.result.stderr)).toEqual([])

    const stepSummary = join(tempDir('bk-gha-summary-'), 'step_summary')
    writeFileSync(stepSummary, '### an earlier step\n')
    const gh = await importIn((workspace) => ({
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: workspace,
      GITHUB_STEP_SUMMARY: stepSummary,
    }))
    expect(gh.result.code, gh.result.stderr).toBe(6)
    expect(gh.stdout).toBe(plain.stdout)

    const at = (line: number) => `file=data/bills%2Cq1%3A2026.csv,line=${line},title=bk bills import`
    const unknown = (bill: string) =>
      `bill ${bill} (vendor ven_demo_office): outcome unknown: Internal error (500 from POST /v0/business/${DEMO_IDS.business}/bills) (never sent again by bk: check whether it exists)`
    expect(workflowCommands(gh.result.stderr)).toEqual([
      `::error ${at(3)}::column line_amount: "12%25" ${NOT_DECIMAL}`,
      `::error ${at(4)}::column line_amount: "1%0A0" ${NOT_DECIMAL}`,
      ...Array.from({length: 8}, (_, i) => `::error ${at(i + 6)}::column line_amount: "x" ${NOT_DECIMAL}`),
      // The 11th error is over GitHub's 10 a step; the 5xx'd bills are warnings, under their own cap.
      `::warning ${at(2)}::${unknown('GH-1')}`,
      `::warning ${at(15)}::${unknown('GH-13')}`,
      '::notice title=bk bills import::1 more error not annotated (GitHub shows 10 of each per step); every one is in data/bills,q1:2026.rejects.csv',
    ])

    const reason = (line: number, value: string) =>
      `- data/bills,q1:2026.csv:${line}: column line_amount: "${value}" ${NOT_DECIMAL}`
    const ws = gh.workspace
    expect(readFileSync(stepSummary, 'utf8')).toBe(
      [
        '### an earlier step',
        '### bk bills import `data/bills,q1:2026.csv`: partly done',
        '',
        '| rows read | bills read | created | skipped (created before) | rejected | unconfirmed | not sent |',
        '|---:|---:|---:|---:|---:|---:|---:|',
        '| 13 | 13 | 0 | 0 | 11 | 2 | 0 |',
        '',
        'First reasons:',
        '',
        reason(3, '12%').replace('data/', `${ws}/data/`),
        reason(4, '1 0').replace('data/', `${ws}/data/`),
        reason(6, 'x').replace('data/', `${ws}/data/`),
        reason(7, 'x').replace('data/', `${ws}/data/`),
        reason(8, 'x').replace('data/', `${ws}/data/`),
        '- … and 8 more',
        '',
        `- Rejected bills (fix and import again): \`data/bills,q1:2026.rejects.csv\``,
        `- Unconfirmed bills (check before importing again; never re-sent by bk): \`data/bills,q1:2026.unconfirmed.csv\``,
        `- Journal (for --resume): \`data/bills,q1:2026.csv.bk-journal\``,
        '',
      ].join('\n'),
    )
  })
})

describe('other commands in GitHub Actions', () => {
  it('journal-entries validate: each problem at its line and column', async () => {
    const workspace = tempDir('bk-gha-je-')
    copyFileSync(join(ROOT, 'test', 'fixtures', 'journal-entries', 'unbalanced.yaml'), join(workspace, 'je.yaml'))
    const stepSummary = join(workspace, 'summary.md')
    const env = {GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: workspace, GITHUB_STEP_SUMMARY: stepSummary}
    const r = await runBk(['journal-entries', 'validate', join(workspace, 'je.yaml')], {env})
    expect(r.code, r.stderr).toBe(2)
    const commands = workflowCommands(r.stderr)
    expect(commands[0]).toBe(
      '::error file=je.yaml,line=9,col=5,title=bk journal-entries validate::entry 2 "Off by a cent": does not balance: debits 10.00, credits 9.99, difference 0.01 (debits higher)',
    )
    // The command's own error, on the run (it names no place in a file).
    expect(commands.at(-1)).toBe('::error title=bk journal-entries validate::1 problem in 1 file')
    expect(readFileSync(stepSummary, 'utf8')).toContain('### bk journal-entries validate: 1 problem; nothing was sent')
  })

  it('journal-entries validate: 13 problems: 10 errors, then the summary as a notice, not an 11th error', async () => {
    const workspace = tempDir('bk-gha-je13-')
    const file = join(workspace, 'je.yaml')
    const entry = (i: number) =>
      `  - description: Off ${i}\n    datetime: 2026-03-01T09:00:00Z\n    lines:\n      - {ledger_id: ${DEMO_IDS.ledgers.expenses}, debit: 10.00}\n      - {ledger_id: ${DEMO_IDS.ledgers.cash}, credit: 9.99}\n`
    writeFileSync(file, 'entries:\n' + Array.from({length: 13}, (_, i) => entry(i + 1)).join(''))
    const r = await runBk(['journal-entries', 'validate', file], {
      env: {GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: workspace},
    })
    expect(r.code, r.stderr).toBe(2)
    const commands = workflowCommands(r.stderr)
    // GitHub shows 10 errors a step: the command's own error would be an 11th, dropped unseen.
    expect(commands.filter((c) => c.startsWith('::error'))).toHaveLength(10)
    expect(commands.slice(-2)).toEqual([
      '::notice title=bk journal-entries validate::3 more errors not annotated (GitHub shows 10 of each per step); the log lists them',
      '::notice title=bk journal-entries validate::13 problems in 1 file',
    ])
  })

  it('journal-entries create: the step summary says failed when every entry was refused, partly done when some were', async () => {
    const emulator = await start()
    try {
      const workspace = tempDir('bk-gha-jec-')
      const stepSummary = join(workspace, 'summary.md')
      const env = {
        ...envFor(emulator),
        GITHUB_ACTIONS: 'true',
        GITHUB_WORKSPACE: workspace,
        GITHUB_STEP_SUMMARY: stepSummary,
      }
      const entry = (name: string, ledger: string) =>
        `  - description: ${name}\n    datetime: 2026-03-01T09:00:00Z\n    lines:\n      - {ledger_id: ${ledger}, debit: 5.00}\n      - {ledger_id: ${DEMO_IDS.ledgers.cash}, credit: 5.00}\n`
      writeFileSync(join(workspace, 'none.yaml'), 'entries:\n' + entry('Refused', 'ldg_missing'))
      writeFileSync(
        join(workspace, 'some.yaml'),
        'entries:\n' + entry('Posted', DEMO_IDS.ledgers.expenses) + entry('Refused', 'ldg_missing'),
      )
      const none = await runBk(['journal-entries', 'create', join(workspace, 'none.yaml')], {env})
      expect(none.code, none.stderr).toBe(5)
      const some = await runBk(['journal-entries', 'create', join(workspace, 'some.yaml')], {env})
      expect(some.code, some.stderr).toBe(6)
      const headings = readFileSync(stepSummary, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('###'))
      expect(headings).toEqual(['### bk journal-entries create: failed', '### bk journal-entries create: partly done'])
    } finally {
      await emulator.close()
    }
  })

  it('an export written with --file: the step summary names the command and the file, stdout stays empty', async () => {
    const emulator = await start()
    try {
      const workspace = tempDir('bk-gha-export-')
      const stepSummary = join(workspace, 'summary.md')
      const r = await runBk(['businesses', 'list', '--output', 'csv', '--file', 'businesses.csv'], {
        cwd: workspace,
        env: {...envFor(emulator), GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: stepSummary},
      })
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toBe('')
      const size = readFileSync(join(workspace, 'businesses.csv')).length
      expect(readFileSync(stepSummary, 'utf8')).toBe(
        `### bk businesses list\n\n- Written: \`businesses.csv\` (${size.toLocaleString('en-US')} bytes)\n`,
      )
    } finally {
      await emulator.close()
    }
  })

  it('auth token: masks the token in the log on stderr; stdout is the token alone', async () => {
    const emulator = await start()
    try {
      const r = await runBk(['auth', 'token'], {env: {...envFor(emulator), GITHUB_ACTIONS: 'true'}})
      expect(r.code, r.stderr).toBe(0)
      const token = r.stdout.trim()
      expect(token.length).toBeGreaterThan(10)
      expect(r.stdout).toBe(`${token}\n`)
      expect(workflowCommands(r.stderr)).toEqual([`::add-mask::${token}`])
    } finally {
      await emulator.close()
    }
  })
})
