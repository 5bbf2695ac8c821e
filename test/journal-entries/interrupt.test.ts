/**
 * Ctrl-C during `bk journal-entries create`: the entry in flight finishes and is recorded, the
 * rest is not sent, the error says what was created and what was not (its details are the result
 * document) with a hint naming --resume, and --resume posts the rest with nothing unconfirmed.
 * The third POST waits in a proxy until bk has taken the Ctrl-C: no clock decides the order.
 */
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {DEMO_IDS} from '../../src/emulator/seed.js'
import {parseJsonOutput, runBk, startBk, tempDir, type BkResult} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'
import {recordingProxy, type RecordedRequest} from '../helpers/recording-proxy.js'
import {whenOutput} from '../helpers/wait.js'

const L = DEMO_IDS.ledgers
const COUNT = 30

let emulator: RunningEmulator
beforeAll(async () => {
  emulator = await start()
})
afterAll(() => emulator.close())

interface Outcome {
  index: number
  id?: string
}
interface Result {
  created: Outcome[]
  skipped: Outcome[]
  failed: Outcome[]
  unconfirmed: Outcome[]
  not_sent: Outcome[]
}

/** A file of COUNT entries described `NAME N`. */
function entriesFile(name: string): string {
  const file = join(tempDir('bk-je-int-'), `${name}.yaml`)
  const entry = (i: number) =>
    `  - description: ${name} ${i}\n    datetime: 2026-03-01T09:00:00Z\n    lines:\n      - {ledger_id: ${L.expenses}, debit: ${i}.00}\n      - {ledger_id: ${L.cash}, credit: ${i}.00}\n`
  writeFileSync(file, 'entries:\n' + Array.from({length: COUNT}, (_, i) => entry(i + 1)).join(''))
  return file
}

const stored = (name: string) =>
  emulator.state.journalEntries.all(DEMO_IDS.business).filter((e) => e.description?.startsWith(`${name} `))

/**
 * Runs create with `args` through a proxy, sends SIGINT while entry 3 is in flight, then lets
 * entry 3 through; `then` runs while the proxy is still there (the journal records its URL).
 */
async function interruptAtThird<T>(
  name: string,
  file: string,
  args: string[],
  then: (stopped: BkResult, env: Record<string, string | undefined>) => Promise<T>,
): Promise<T> {
  const third = (r: RecordedRequest) => r.method === 'POST' && r.body.includes(`"${name} 3"`)
  const proxy = await recordingProxy(emulator.baseUrl, third)
  try {
    const env = {...envFor(emulator), BK_BASE_URL: proxy.baseUrl}
    const run = startBk(['journal-entries', 'create', file, ...args], {env})
    run.child.stdin.end()
    await proxy.whenRequest(third)
    run.child.kill('SIGINT')
    await whenOutput(run.child.stderr, () => run.stderr().includes('Stopping after the entry'), 'bk took the Ctrl-C')
    proxy.release()
    return await then(await run.done, env)
  } finally {
    await proxy.close()
  }
}

describe('journal-entries create interrupted', () => {
  it('finishes the entry in flight, gives the result document and a --resume hint; --resume posts the rest', async () => {
    const file = entriesFile('Stopped')
    await interruptAtThird('Stopped', file, ['--json'], async (stopped, env) => {
      expect(stopped.code, stopped.stderr).toBe(130)
      const body = parseJsonOutput<{code: string; hint: string; details: Result}>(stopped)
      expect(body.code).toBe('interrupted')
      expect(body.hint).toContain('--resume')
      expect(body.details.created.map((o) => o.index)).toEqual([1, 2, 3])
      expect(body.details.not_sent.map((o) => o.index)).toEqual(Array.from({length: COUNT - 3}, (_, i) => i + 4))
      expect(body.details.unconfirmed).toEqual([])
      expect(stored('Stopped')).toHaveLength(3)
      // The entry in flight at the Ctrl-C is recorded with its answer, not left `sending`.
      const journal = readFileSync(`${file}.bk-journal`, 'utf8').trim().split('\n').slice(1)
      expect(JSON.parse(journal.at(-1)!)).toMatchObject({index: 3, status: 'created', id: body.details.created[2]!.id})

      const resumed = await runBk(['journal-entries', 'create', file, '--resume', '--json'], {env})
      expect(resumed.code, resumed.stderr).toBe(0)
      const out = parseJsonOutput<Result>(resumed)
      expect(out.skipped.map((o) => o.index)).toEqual([1, 2, 3])
      expect(out.created).toHaveLength(COUNT - 3)
      expect(out.unconfirmed).toEqual([])
      const counts = new Map<string, number>()
      for (const e of stored('Stopped')) counts.set(e.description!, (counts.get(e.description!) ?? 0) + 1)
      expect(counts.size).toBe(COUNT)
      for (const [description, times] of counts) expect(times, description).toBe(1)
    })
  })

  it('says in text what was created and not sent, with a hint naming --resume', async () => {
    const file = entriesFile('Told')
    const stopped = await interruptAtThird('Told', file, [], (r) => Promise.resolve(r))
    expect(stopped.code, stopped.stderr).toBe(130)
    expect(stopped.stdout.trim().split('\n')).toHaveLength(3)
    expect(stopped.stderr).toContain(
      'Error: Interrupted: 3 created, 0 already created, 0 failed, 0 unconfirmed, 27 not sent\n' +
        'Hint: Run again with --resume to post the rest: created entries are skipped.\n',
    )
  })
})
