/**
 * `bk bills import` in a GitHub Actions step: every row error and every bill the service left
 * unknown (a 5xx after the commit) is also a workflow command on stderr, escaped as the runner
 * reads it; the step summary gets the counts and where the files are; stdout is what it is
 * outside Actions, byte for byte but the run's duration.
 */
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {DEMO_IDS} from '../../src/emulator/seed.js'
import {runBk, tempDir} from '../helpers/bk.js'
import {start, type RunningEmulator} from '../helpers/emulator.js'

const HEADER = 'number,vendor_id,description,issued_at,due_at,currency,line_description,line_amount,line_ledger_id'
const row = (number: string, amount: string) =>
  `${number},${DEMO_IDS.vendors.office},Paper,2026-03-01,2026-04-01T00:00:00Z,EUR,Paper,${amount},${DEMO_IDS.ledgers.expenses}`
/** A comma and a colon in the file name: both must be escaped in the file= property. */
const FILE = 'bills,q1:2026.csv'
const CSV =
  [
    HEADER,
    row('GH-1', '10.00'), // line 2: sent, answered 500: unconfirmed
    row('GH-2', '12%'), // line 3: invalid ("%" escaped in the message)
    row('GH-3', '"1\n0"'), // lines 4-5: invalid, a line break inside the value
    row('GH-4', '20.00'), // line 6: sent with GH-1
  ].join('\n') + '\n'

let emulator: RunningEmulator
beforeAll(async () => {
  // Faults are off until a run turns them on (the emulator reads the rate on each request).
  emulator = await start({faultKinds: ['commit-5xx'], faultRate: 0})
  emulator.state.tokens.set('ci-token', {
    clientId: emulator.clientId,
    businessId: DEMO_IDS.business,
    expiresAt: Date.now() + 3_600_000,
  })
})
afterAll(() => emulator.close())

/** The same import in a folder of its own; every request then fails after its commit (500). */
async function importIn(env: Record<string, string | undefined>) {
  const workspace = tempDir('bk-gha-')
  mkdirSync(join(workspace, 'data'))
  writeFileSync(join(workspace, 'data', FILE), CSV)
  emulator.options.faultRate = 1
  const result = await runBk(['bills', 'import', join('data', FILE), '--concurrency', '1'], {
    cwd: workspace,
    env: {
      BK_BASE_URL: emulator.baseUrl,
      BK_ACCESS_TOKEN: 'ci-token',
      BK_BUSINESS_ID: DEMO_IDS.business,
      GITHUB_ACTIONS: undefined,
      GITHUB_WORKSPACE: undefined,
      GITHUB_STEP_SUMMARY: undefined,
      ...env,
    },
  })
  emulator.options.faultRate = 0
  return {result, workspace}
}

const workflowCommands = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('::'))
const withoutDuration = (stdout: string) => stdout.replace(/, \d+\.\d s\./, ', N s.')

describe('bills import in GitHub Actions', () => {
  it('annotates row errors and unconfirmed bills on stderr, summarises the step, and leaves stdout as it was', async () => {
    const plain = await importIn({})
    expect(plain.result.code, plain.result.stderr).toBe(6)
    expect(workflowCommands(plain.result.stderr)).toEqual([])

    const summaryDir = tempDir('bk-gha-summary-')
    const stepSummary = join(summaryDir, 'step_summary')
    writeFileSync(stepSummary, '### an earlier step\n')
    const gh = await importIn({GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: stepSummary})
    // GITHUB_WORKSPACE is the checkout: paths are relative to it.
    expect(gh.result.code, gh.result.stderr).toBe(6)
    expect(withoutDuration(gh.result.stdout)).toBe(withoutDuration(plain.result.stdout))
    console.log(gh.result.stderr)
    console.log(readFileSync(stepSummary, 'utf8'))
  })
})
