/**
 * bk documents unlink and bk tasks delete against the
 * emulator: success, 404, 403 (scope and other business), 422, and bad local input that never
 * reaches the network (proved with a recorder that counts requests).
 */
import {describe, expect, it, vi} from 'vitest'

import {DEMO_RECORD_IDS} from '../../src/emulator/seed-records.js'
import {parseJsonOutput, runBk} from '../helpers/bk.js'
import {envFor, start} from '../helpers/emulator.js'
import {useCommandFixture} from './command-fixture.js'

// Several bk runs per test on two shared cores: allow for a loaded machine.
vi.setConfig({testTimeout: 240_000})

const fx = useCommandFixture()

describe('bk documents unlink', () => {
  const doc = DEMO_RECORD_IDS.document

  it('unlinks every id given in one request, with --yes', async () => {
    const associations = fx.emulator.state.documents.get(fx.biz, doc)!.associations
    expect([...associations].sort()).toEqual(
      [DEMO_RECORD_IDS.externalAccount, DEMO_RECORD_IDS.journalEntry, DEMO_RECORD_IDS.transaction].sort(),
    )
    const result = await runBk(
      [
        'documents',
        'unlink',
        doc,
        '--from',
        `${DEMO_RECORD_IDS.externalAccount},${DEMO_RECORD_IDS.journalEntry}`,
        '--yes',
      ],
      {env: envFor(fx.emulator)},
    )
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe(
      `Unlinked ${doc} from ${DEMO_RECORD_IDS.externalAccount}, ${DEMO_RECORD_IDS.journalEntry}.\n`,
    )
    expect([...associations]).toEqual([DEMO_RECORD_IDS.transaction])
    const json = await runBk(
      [
        'documents',
        'unlink',
        doc,
        '--from',
        DEMO_RECORD_IDS.transaction,
        '--from',
        'je_never_linked',
        '--yes',
        '--json',
      ],
      {env: envFor(fx.emulator)},
    )
    expect(parseJsonOutput(json)).toMatchObject({
      document_id: doc,
      entity_ids: [DEMO_RECORD_IDS.transaction, 'je_never_linked'],
      response: {data: {unlinked: [DEMO_RECORD_IDS.transaction], not_linked: ['je_never_linked']}},
    })
    expect(associations.size).toBe(0)
    // Again, with nothing left to unlink: said so, not "unlinked from nothing".
    const again = await runBk(['documents', 'unlink', doc, '--from', DEMO_RECORD_IDS.transaction, '--yes'], {
      env: envFor(fx.emulator),
    })
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toBe(`${doc} was not linked to ${DEMO_RECORD_IDS.transaction}: nothing changed.\n`)
  })

  it('exits 4, 3, 3 and 5 for an unknown document, a missing scope, another business and a malformed id', async () => {
    const missing = await runBk(['documents', 'unlink', 'doc_missing', '--from', 'txn_1', '--yes'], {
      env: envFor(fx.emulator),
    })
    expect(missing.code).toBe(4)
    expect(missing.stderr).toContain('doc_missing')
    const linked = fx.emulator.state.documents.all(fx.biz).find((d) => d.associations.size > 0)!
    const before = [...linked.associations]
    const from = before.join(',')
    const scope = await runBk(['documents', 'unlink', linked.id, '--from', from, '--yes'], {
      env: fx.scoped('request:delete'),
    })
    expect(scope.code).toBe(3)
    expect(scope.stderr).toContain('document:delete')
    // The scope came from BK_SCOPES, not a profile: the hint points where either is shown.
    expect(scope.stderr).toContain('`bk auth status` shows the scope and business it is asked for')
    expect(
      (await runBk(['documents', 'unlink', linked.id, '--from', from, '--yes'], {env: fx.otherBusinessEnv})).code,
    ).toBe(3)
    expect(
      (await runBk(['documents', 'unlink', 'doc_bad id', '--from', from, '--yes'], {env: envFor(fx.emulator)})).code,
    ).toBe(5)
    expect([...linked.associations]).toEqual(before)
  })

  it('refuses other kinds of ids, naming them, and asks for --yes without a TTY, before sending anything', async () => {
    await fx.expectLocalRefusal(
      ['documents', 'unlink', doc, '--from', 'txn_1,bil_2,je_3,inv_4', '--yes'],
      '"bil_2", "inv_4"',
    )
    await fx.expectLocalRefusal(['documents', 'unlink', 'txn_1', '--from', 'txn_2', '--yes'], '"txn_1"')
    await fx.expectLocalRefusal(
      ['documents', 'unlink', doc, '--from', 'txn_1'],
      `Refusing to unlink ${doc} from txn_1 without confirmation`,
    )
  })
})

describe('bk tasks delete', () => {
  it('deletes an open task with --yes', async () => {
    const id = DEMO_RECORD_IDS.openTask
    expect(fx.emulator.state.tasks.get(fx.biz, id)).toBeDefined()
    const result = await runBk(['tasks', 'delete', id, '--yes', '--json'], {env: envFor(fx.emulator)})
    expect(result.code, result.stderr).toBe(0)
    expect(parseJsonOutput(result)).toEqual({task_id: id, deleted: true, response: {data: {id, deleted: true}}})
    expect(fx.emulator.state.tasks.get(fx.biz, id)).toBeUndefined()
  })

  it('reports both error bodies of the spec clearly', async () => {
    // {message, data}: a completed task cannot be deleted.
    const done = await runBk(['tasks', 'delete', DEMO_RECORD_IDS.completedTask, '--yes'], {env: envFor(fx.emulator)})
    expect(done.code).toBe(5)
    expect(done.stderr).toContain(
      `Could not delete task ${DEMO_RECORD_IDS.completedTask}: Task ${DEMO_RECORD_IDS.completedTask} is already completed and cannot be deleted (409 from DELETE`,
    )
    const doneJson = await runBk(['tasks', 'delete', DEMO_RECORD_IDS.completedTask, '--yes', '--json'], {
      env: envFor(fx.emulator),
    })
    expect(JSON.parse(doneJson.stdout)).toMatchObject({
      details: {
        status: 409,
        body: {message: expect.stringContaining('completed'), data: DEMO_RECORD_IDS.completedTask},
      },
    })
    expect(fx.emulator.state.tasks.get(fx.biz, DEMO_RECORD_IDS.completedTask)).toBeDefined()
    // {error, data}: an unknown task.
    const missing = await runBk(['tasks', 'delete', 'tsk_missing', '--yes'], {env: envFor(fx.emulator)})
    expect(missing.code).toBe(4)
    expect(missing.stderr).toContain('Could not delete task tsk_missing: Task tsk_missing not found')
  })

  it('reports a task deleted by an attempt whose answer was lost as deleted, not as not found', async () => {
    // With this seed the first four requests meet commit-5xx, commit-5xx, commit-5xx and nothing:
    // each faulted one is carried out, then answered 500, 502 and 504 in turn.
    const faulty = await start({faultRate: 0.5, faultSeed: 15, faultKinds: ['commit-5xx']})
    try {
      // The token request meets the first fault: issued, then answered 500.
      const issued = await fetch(`${faulty.baseUrl}/v0/auth/token`, {
        method: 'POST',
        headers: {'content-type': 'application/x-www-form-urlencoded'},
        body: new URLSearchParams({client_id: faulty.clientId, client_secret: faulty.clientSecret}),
      })
      expect(issued.status).toBe(500)
      const [token] = [...faulty.state.tokens.keys()]
      const env = {BK_BASE_URL: faulty.baseUrl, BK_ACCESS_TOKEN: token, BK_BUSINESS_ID: fx.biz}
      const id = DEMO_RECORD_IDS.openTask
      const result = await runBk(['tasks', 'delete', id, '--yes', '--debug'], {env})
      expect(result.code, result.stderr).toBe(0)
      // The DELETE was carried out and answered 502, again (finding it gone) and answered 504, then 404.
      const answers = [...result.stderr.matchAll(/← (\d{3}) DELETE /g)].map((m) => m[1])
      expect(answers).toEqual(['502', '504', '404'])
      expect(result.stdout).toBe(
        `Task ${id} is deleted: the first attempt's answer was lost (the service answered 502), and the retry found the task gone, so that attempt most likely deleted it.\n`,
      )
      expect(faulty.state.tasks.get(fx.biz, id)).toBeUndefined()
      expect(faulty.faults.counts['commit-5xx']).toBe(3)
    } finally {
      await faulty.close()
    }
  })

  it('exits 3, 3 and 5 for a missing scope, another business and a malformed id', async () => {
    const open = fx.emulator.state.tasks.all(fx.biz).find((t) => t.status === 'open')!
    const scope = await runBk(['tasks', 'delete', open.id, '--yes'], {env: fx.scoped('document:delete')})
    expect(scope.code).toBe(3)
    expect(scope.stderr).toContain('request:delete')
    expect((await runBk(['tasks', 'delete', open.id, '--yes'], {env: fx.otherBusinessEnv})).code).toBe(3)
    expect((await runBk(['tasks', 'delete', open.id, '--yes'], {env: fx.missingBusinessEnv})).code).toBe(4)
    expect((await runBk(['tasks', 'delete', 'tsk_bad id', '--yes'], {env: envFor(fx.emulator)})).code).toBe(5)
    expect(fx.emulator.state.tasks.get(fx.biz, open.id)).toBeDefined()
  })

  it('refuses another kind of id and asks for --yes without a TTY, before sending anything', async () => {
    await fx.expectLocalRefusal(['tasks', 'delete', 'txn_1', '--yes'], '"txn_1"')
    await fx.expectLocalRefusal(['tasks', 'delete', 'tsk_1'], '--yes')
  })
})
