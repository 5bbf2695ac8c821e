/**
 * The GitHub Action and the GitLab template: both checked against their published JSON schemas
 * (test/fixtures/ci/README.md says where each copy comes from), and the action's run step run the
 * way the runner runs it: the step's env with ${{ inputs.* }} resolved, bash -eo pipefail, and
 * the files and variables GitHub sets (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_ENV,
 * GITHUB_PATH, RUNNER_TEMP, GITHUB_ACTION_PATH...). bk comes from this checkout (the install step
 * runs in .ci/run, against the package npm pack makes).
 */
import {spawn} from 'node:child_process'
import {chmodSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {Ajv} from 'ajv'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parse} from 'yaml'

import {DEMO_IDS} from '../../src/emulator/seed.js'
import {BILL_HEADER as HEADER, billRow} from '../helpers/bill-rows.js'
import {BIN, cleanEnv, ROOT, tempDir} from '../helpers/bk.js'
import {start, type RunningEmulator} from '../helpers/emulator.js'

const fixture = (name: string) => JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'ci', name), 'utf8')) as object
const validator = (schema: object) => new Ajv({strict: false, allErrors: true, validateFormats: false}).compile(schema)

/**
 * The last gitlab-ci.json SchemaStore published (2021) predates cache:when (GitLab 13.5), which
 * the template needs (the record of created bills is saved after a failed run too). GitLab's own
 * schema and its config entry (ALLOWED_WHEN: on_success, on_failure, always) have it: added here,
 * and only while the copy lacks it.
 */
function gitlabSchema(): object {
  const schema = fixture('gitlab-ci.schema.json') as {
    definitions: {cache_entry: {properties: Record<string, unknown>}}
  }
  expect(schema.definitions.cache_entry.properties.when).toBeUndefined()
  schema.definitions.cache_entry.properties.when = {type: 'string', enum: ['on_success', 'on_failure', 'always']}
  return schema
}

interface Step {
  id?: string
  name?: string
  uses?: string
  run?: string
  shell?: string
  env?: Record<string, string>
}
interface Action {
  inputs: Record<string, {default?: string; required?: boolean}>
  runs: {using: string; steps: Step[]}
}

const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as Action
const gitlab = parse(readFileSync(join(ROOT, 'ci', 'gitlab', 'bk.gitlab-ci.yml'), 'utf8')) as Record<string, unknown>

describe('published schemas', () => {
  it('action.yml is a valid action (SchemaStore github-action.json), and the check can fail', () => {
    const check = validator(fixture('github-action.schema.json'))
    expect(check(action), JSON.stringify(check.errors)).toBe(true)
    const broken = structuredClone(action) as unknown as {runs: {steps: Array<Record<string, unknown>>}}
    broken.runs.steps[0]!.command = 'bk'
    expect(check(broken)).toBe(false)
  })

  it('the GitLab template is valid .gitlab-ci.yml (gitlab-ci.json), and the check can fail', () => {
    const check = validator(gitlabSchema())
    expect(check(gitlab), JSON.stringify(check.errors)).toBe(true)
    // The schema lets a hidden key (.bk) hold anything: the job is checked as a job that extends it is.
    const job = {stages: ['import'], bk: {...(gitlab['.bk'] as object), stage: 'import'}}
    expect(check(job), JSON.stringify(check.errors)).toBe(true)
    const broken = structuredClone(job)
    ;(broken.bk as Record<string, unknown>).artifacts = {when: 'sometimes'}
    expect(check(broken)).toBe(false)
  })
})

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

/** A folder laid out as a runner's: workspace, temp, and the files of the step's commands. */
function runner() {
  const root = tempDir('bk-runner-')
  const dirs = {workspace: join(root, 'work'), temp: join(root, 'temp'), bin: join(root, 'bin')}
  for (const dir of Object.values(dirs)) mkdirSync(dir)
  const files = {
    GITHUB_OUTPUT: join(dirs.temp, 'output'),
    GITHUB_STEP_SUMMARY: join(dirs.temp, 'step_summary'),
    GITHUB_ENV: join(dirs.temp, 'env'),
    GITHUB_PATH: join(dirs.temp, 'path'),
  }
  for (const file of Object.values(files)) writeFileSync(file, '')
  // bk on PATH, as the install step leaves it.
  writeFileSync(join(dirs.bin, 'bk'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`)
  chmodSync(join(dirs.bin, 'bk'), 0o755)
  return {dirs, files}
}

/** The value of a step's env entry with the expressions GitHub would have replaced. */
function resolve(value: string, inputs: Record<string, string>, temp: string): string {
  return value.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expression: string) => {
    if (expression === 'runner.temp') return temp
    const input = /^inputs\.([\w-]+)$/.exec(expression)
    if (input) return inputs[input[1]!] ?? action.inputs[input[1]!]?.default ?? ''
    throw new Error(`the test does not resolve ${expression}`)
  })
}

/** Runs the action's step with this id as the runner does: bash --noprofile --norc -eo pipefail FILE. */
function runStep(id: string, inputs: Record<string, string>, r: ReturnType<typeof runner>) {
  const step = action.runs.steps.find((s) => s.id === id)!
  expect(step.shell).toBe('bash')
  const script = join(r.dirs.temp, `step-${id}.sh`)
  writeFileSync(script, step.run!)
  const env = cleanEnv({
    ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, resolve(v, inputs, r.dirs.temp)])),
    ...r.files,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: r.dirs.workspace,
    GITHUB_ACTION_PATH: ROOT,
    GITHUB_RUN_ID: '1234',
    RUNNER_TEMP: r.dirs.temp,
    PATH: `${r.dirs.bin}:${process.env.PATH}`,
  })
  return new Promise<{code: number | null; stdout: string; stderr: string}>((done, fail) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {cwd: r.dirs.workspace, env})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.on('error', fail)
    child.on('close', (code) => done({code, stdout, stderr}))
  })
}

const outputsOf = (file: string) =>
  Object.fromEntries(
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  )

const row = (number: string, amount: string) => billRow(number, {amount})

describe('the action run the way the runner runs it', () => {
  it('imports, fails on rejects with the counts as outputs, then skips what exists on the next night', async () => {
    const r = runner()
    mkdirSync(join(r.dirs.workspace, 'nightly'))
    writeFileSync(
      join(r.dirs.workspace, 'nightly', 'monday.csv'),
      [HEADER, row('ACT-1', '10.00'), row('ACT-2', 'ten'), row('ACT-3', '30.00')].join('\n') + '\n',
    )
    const inputs = {
      tarball: 'bk.tgz',
      command: 'bills import nightly/monday.csv --skip-existing',
      'base-url': emulator.baseUrl,
      'client-id': emulator.clientId,
      'client-secret': emulator.clientSecret,
      business: DEMO_IDS.business,
    }
    const first = await runStep('run', inputs, r)
    expect(first.code, first.stderr).toBe(6)
    expect(outputsOf(r.files.GITHUB_OUTPUT)).toEqual({
      'exit-code': '6',
      created: '2',
      skipped: '0',
      failed: '1',
      unconfirmed: '0',
      'rejects-file': 'nightly/monday.rejects.csv',
      'unconfirmed-file': '',
      result: expect.stringMatching(new RegExp(`^${r.dirs.temp}/bk-result-1234-\\d+\\.json$`)),
    })
    expect(first.stderr).toContain(
      '::error file=nightly/monday.csv,line=3,title=bk bills import::column line_amount: "ten"',
    )
    expect(readFileSync(r.files.GITHUB_STEP_SUMMARY, 'utf8')).toContain(
      '### bk bills import `nightly/monday.csv`: partly done',
    )
    // The client secret is in no file the runner keeps.
    for (const file of Object.values(r.files)) expect(readFileSync(file, 'utf8')).not.toContain(emulator.clientSecret)

    // The next night's export repeats Monday's bills: the record (kept in RUNNER_TEMP/bk-config,
    // which the cache steps carry between runs) lets --skip-existing skip them; exit 6 may pass.
    writeFileSync(
      join(r.dirs.workspace, 'nightly', 'tuesday.csv'),
      [HEADER, row('ACT-1', '10.00'), row('ACT-3', '30.00'), row('ACT-4', '40.00'), row('ACT-5', 'x')].join('\n') +
        '\n',
    )
    writeFileSync(r.files.GITHUB_OUTPUT, '')
    const second = await runStep(
      'run',
      {...inputs, command: 'bills import nightly/tuesday.csv --skip-existing', 'allow-partial': 'true'},
      r,
    )
    expect(second.code, second.stderr).toBe(0)
    expect(outputsOf(r.files.GITHUB_OUTPUT)).toMatchObject({
      'exit-code': '6',
      created: '1',
      skipped: '2',
      failed: '1',
    })
    const stored = emulator.state.bills.all(DEMO_IDS.business).filter((b) => String(b.number).startsWith('ACT-'))
    expect(stored.map((b) => b.number).sort()).toEqual(['ACT-1', 'ACT-3', 'ACT-4'])
  })
})
