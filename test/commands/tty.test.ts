import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {DEMO_RECORD_IDS} from '../../src/emulator/seed-records.js'
import {parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'
import {envFor, start, type RunningEmulator} from '../helpers/emulator.js'
import {plain, runBkTty} from '../helpers/tty.js'

let emulator: RunningEmulator
let biz: string
beforeAll(async () => {
  emulator = await start()
  biz = emulator.businessIds[0] as string
})
afterAll(() => emulator.close())

const links = () => [...(emulator.state.documents.get(biz, DEMO_RECORD_IDS.document)?.associations ?? [])]

describe('on a terminal', () => {
  it('asks before unlinking, and a "no" changes nothing', async () => {
    const before = links()
    expect(before).toContain(DEMO_RECORD_IDS.transaction)
    const res = await runBkTty(
      ['documents', 'unlink', DEMO_RECORD_IDS.document, '--from', DEMO_RECORD_IDS.transaction],
      {
        env: envFor(emulator),
        answers: [{when: /\(y\/N\)/, send: 'n\r'}],
      },
    )
    expect(plain(res.stdout)).toMatch(/Unlink doc_demo_receipt from txn_demo_invoice_payments\?/)
    // Declining is not an error: nothing changed, as asked.
    expect(res.code).toBe(0)
    expect(plain(res.stdout)).toMatch(/\? No\nNothing changed\.\n$/)
    expect(plain(res.stdout)).not.toContain('Error')
    expect(links()).toEqual(before)
  })

  it('a "yes" to the same question unlinks', async () => {
    const res = await runBkTty(
      ['documents', 'unlink', DEMO_RECORD_IDS.document, '--from', DEMO_RECORD_IDS.transaction],
      {
        env: envFor(emulator),
        answers: [{when: /\(y\/N\)/, send: 'y\r'}],
      },
    )
    expect(res.code, plain(res.stdout)).toBe(0)
    expect(links()).not.toContain(DEMO_RECORD_IDS.transaction)
  })

  it('never asks when CI is set, even on a terminal: it names --yes', async () => {
    const res = await runBkTty(['tasks', 'delete', DEMO_RECORD_IDS.openTask], {env: {...envFor(emulator), CI: '1'}})
    expect(res.code).toBe(2)
    expect(plain(res.stdout)).toContain('--yes')
    expect(emulator.state.tasks.get(biz, DEMO_RECORD_IDS.openTask)).toBeDefined()
  })

  it('lists as a table by default', async () => {
    const res = await runBkTty(['invoices', 'list', '--limit', '2'], {env: envFor(emulator)})
    expect(res.code).toBe(0)
    expect(plain(res.stdout)).toMatch(/^ID +NUMBER +STATUS/m)
  })

  it('shows import progress on stderr', async () => {
    const dir = tempDir()
    const file = join(dir, 'bills.csv')
    writeFileSync(
      file,
      'number,vendor_id,line_amount,line_ledger_id\nTTY-1,ven_demo_office,10.00,ldg_demo_expenses\nTTY-2,ven_demo_office,12.50,ldg_demo_expenses\n',
    )
    const res = await runBkTty(['bills', 'import', file], {env: envFor(emulator)})
    expect(res.code, plain(res.stdout)).toBe(0)
    expect(plain(res.stdout)).toMatch(/rows 2 · bills 2 · created 2/)
  })

  it('auth login asks every question, masks the secret, checks it and saves the profile', async () => {
    const configDir = tempDir()
    // With no keychain reachable it says so before asking anything.
    const res = await runBkTty(['auth', 'login'], {configDir, env: {DBUS_SESSION_BUS_ADDRESS: undefined}})
    expect(res.code).toBe(3)
    expect(plain(res.stdout)).toContain('--insecure-storage')
    expect(plain(res.stdout)).not.toContain('Environment')

    const again = await runBkTty(['auth', 'login', '--insecure-storage'], {
      configDir,
      answers: [
        {when: /Environment/, send: '\u001B[B\u001B[B\r'},
        {when: /Profile name/, send: 'mine\r'},
        {when: /Base URL/, send: `${emulator.baseUrl}\r`},
        {when: /Client id/, send: `${emulator.clientId}\r`},
        {when: /Client secret/, send: `${emulator.clientSecret}\r`},
        {when: /Default business/, send: `${biz}\r`},
      ],
    })
    expect(again.code, plain(again.stdout)).toBe(0)
    expect(plain(again.stdout)).toContain('Checking the credentials… ok')
    expect(plain(again.stdout)).not.toContain(emulator.clientSecret)
    const status = parseJsonOutput<{profile: string; environment: string; business: string; token: {ok: boolean}}>(
      await runBk(['auth', 'status', '--json'], {configDir}),
    )
    expect(status).toMatchObject({profile: 'mine', environment: 'local', business: biz, token: {ok: true}})
  })
})
