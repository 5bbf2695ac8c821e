/**
 * A bill import on Node 22.15 and later restarts itself in place with a smaller young generation
 * (src/startup/young-generation.ts): the same process, with --max-semi-space-size=8 (4 for a dry
 * run). A probe
 * loaded into every Node start (NODE_OPTIONS --require) writes each start's pid and flags, so
 * the test sees the process bk became, not only the one it spawned.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {runBk, tempDir} from '../helpers/bk.js'

const restarts =
  typeof (process as {execve?: unknown}).execve === 'function' && !process.versions.node.startsWith('20.')

/** Each start of Node (its main thread) in a run of bk: its pid and its flags. */
async function startsOf(
  args: string[],
  nodeOptions = '',
  env: Record<string, string> = {},
  code = 0,
): Promise<Array<{pid: number; execArgv: string[]; arenas?: string}>> {
  const dir = tempDir('bk-young-')
  const probe = join(dir, 'probe.cjs')
  const log = join(dir, 'starts.jsonl')
  writeFileSync(
    probe,
    // Main threads only: a dry run's reading worker loads the probe too.
    `if (require('node:worker_threads').isMainThread) require('node:fs').appendFileSync(${JSON.stringify(log)}, JSON.stringify({pid: process.pid, execArgv: process.execArgv, arenas: process.env.MALLOC_ARENA_MAX}) + '\\n')\n`,
  )
  writeFileSync(log, '')
  writeFileSync(
    join(dir, 'bills.csv'),
    'number,vendor_id,line_amount,line_ledger_id\nB-1,ven_demo_office,1.00,ldg_demo_expenses\n',
  )
  const result = await runBk(args, {cwd: dir, env: {...env, NODE_OPTIONS: `--require ${probe} ${nodeOptions}`.trim()}})
  expect(result.code, result.stderr).toBe(code)
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as {pid: number; execArgv: string[]; arenas?: string})
}

const dryRun = ['bills', 'import', 'bills.csv', '--dry-run', '--business', 'biz_demo_acme']

describe('the young generation of a bill import', () => {
  it.runIf(restarts)('is sized down: the import restarts in place once, with the flag', async () => {
    const starts = await startsOf(dryRun)
    expect(starts).toHaveLength(2)
    expect(starts[1]!.pid).toBe(starts[0]!.pid)
    expect(starts[0]!.execArgv.some((a) => a.startsWith('--max-semi-space-size'))).toBe(false)
    expect(starts[1]!.execArgv).toContain('--max-semi-space-size=4')
    // glibc's malloc arenas capped at two in the process it became, as it starts.
    expect(starts[0]!.arenas).toBe(process.env.MALLOC_ARENA_MAX)
    expect(starts[1]!.arenas).toBe(process.env.MALLOC_ARENA_MAX ?? '2')
  })

  it.runIf(restarts)('of an import that sends is sized down less: batches in flight live in it', async () => {
    // No credentials here: refused (exit 3) once restarted, before anything is read or sent.
    const starts = await startsOf(['bills', 'import', 'bills.csv', '--business', 'biz_demo_acme'], '', {}, 3)
    expect(starts).toHaveLength(2)
    expect(starts[1]!.execArgv).toContain('--max-semi-space-size=8')
  })

  it.runIf(restarts)("keeps the user's own MALLOC_ARENA_MAX", async () => {
    const starts = await startsOf(dryRun, '', {MALLOC_ARENA_MAX: '4'})
    expect(starts.map((s) => s.arenas)).toEqual(['4', '4'])
  })

  it.runIf(restarts)('is left as the user sized it in NODE_OPTIONS', async () => {
    const starts = await startsOf(dryRun, '--max-semi-space-size=32')
    expect(starts).toHaveLength(1)
  })

  it('is left alone by every other command, and on Node 20 by the import too', async () => {
    expect(await startsOf(['businesses', 'list', '--help'])).toHaveLength(1)
    if (!restarts) expect(await startsOf(dryRun)).toHaveLength(1)
  })
})
