/**
 * Credentials in the environment go only where the environment says, and BK_SCOPES limits the
 * token whichever credentials are used, or is refused where it cannot.
 */
import {existsSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'
import {addProfileArgs, start, tokenFor, type RunningEmulator} from '../helpers/emulator.js'

let emulator: RunningEmulator

beforeAll(async () => {
  emulator = await start()
})
afterAll(async () => {
  await emulator.close()
})

interface ErrorDocument {
  error: string
  code: string
  hint: string
}

describe('credentials in the environment', () => {
  it('are sent nowhere when neither BK_BASE_URL nor BK_ENV names the service', async () => {
    const secret = {BK_CLIENT_ID: emulator.clientId, BK_CLIENT_SECRET: emulator.clientSecret}
    const res = await runBk(['invoices', 'list', '-b', 'biz_demo_acme', '--json'], {configDir: tempDir(), env: secret})
    expect(res.code, res.stderr).toBe(3)
    expect(parseJsonOutput<ErrorDocument>(res)).toMatchObject({
      code: 'no_base_url',
      error:
        'BK_CLIENT_ID and BK_CLIENT_SECRET are set, but neither BK_BASE_URL nor BK_ENV says which service to send them to; nothing was sent',
    })
    const token = await runBk(['auth', 'status'], {configDir: tempDir(), env: {BK_ACCESS_TOKEN: 'tok_given'}})
    expect(token.code).toBe(3)
    expect(token.stderr).toContain(
      'Error: BK_ACCESS_TOKEN is set, but neither BK_BASE_URL nor BK_ENV says which service to send it to',
    )
    expect(token.stderr).toContain('Hint: Set BK_BASE_URL')
  })

  it('refuse BK_SCOPES beside BK_ACCESS_TOKEN, which a ready token cannot honour', async () => {
    const env = {BK_BASE_URL: emulator.baseUrl, BK_ACCESS_TOKEN: await tokenFor(emulator), BK_SCOPES: 'invoice:read'}
    const res = await runBk(['auth', 'token', '--json'], {configDir: tempDir(), env})
    expect(res.code, res.stderr).toBe(2)
    expect(parseJsonOutput<ErrorDocument>(res).code).toBe('token_not_rescoped')
    expect(res.stdout).not.toContain(env.BK_ACCESS_TOKEN)
  })

  it('take BK_ACCESS_TOKEN saved with its line ending as the token, and refuse one no header can carry', async () => {
    const token = await tokenFor(emulator)
    const base = {BK_BASE_URL: emulator.baseUrl, BK_BUSINESS_ID: 'biz_demo_acme'}
    // A secret saved from a Windows file: the request goes, with the token alone.
    const pasted = await runBk(['invoices', 'list', '--limit', '1', '--json'], {
      configDir: tempDir(),
      env: {...base, BK_ACCESS_TOKEN: `${token}\r\n`},
    })
    expect(pasted.code, pasted.stderr).toBe(0)
    expect(parseJsonOutput<{data: unknown[]}>(pasted).data).toHaveLength(1)

    const dir = tempDir()
    writeFileSync(
      join(dir, 'bills.csv'),
      'number,vendor_id,line_amount,line_ledger_id\nTOK-1,ven_demo_office,1.00,ldg_demo_expenses\n',
    )
    const inner = `${token.slice(0, 4)}\u0001${token.slice(4)}`
    const refused = await runBk(['bills', 'import', 'bills.csv', '--json'], {
      cwd: dir,
      configDir: tempDir(),
      env: {...base, BK_ACCESS_TOKEN: inner},
    })
    expect(refused.code, refused.stderr).toBe(3)
    expect(parseJsonOutput<ErrorDocument>(refused)).toMatchObject({
      code: 'invalid_access_token',
      error: 'BK_ACCESS_TOKEN holds U+0001 at character 5: a token is one word of printable ASCII; nothing was sent',
    })
    expect(refused.stdout + refused.stderr).not.toContain(token.slice(4))
    // Refused before the run began: no bill left unconfirmed, none sent.
    expect(existsSync(join(dir, 'bills.unconfirmed.csv'))).toBe(false)
    expect(emulator.state.bills.all('biz_demo_acme').some((b) => b.number === 'TOK-1')).toBe(false)
  })
})

describe('BK_SCOPES with a profile', () => {
  it("limits the profile's token to those scopes, as auth status says", async () => {
    const configDir = tempDir()
    const add = await runBk(addProfileArgs(emulator, 'main', '--insecure-storage', '--business', 'biz_demo_acme'), {
      configDir,
      input: emulator.clientSecret,
    })
    expect(add.code, add.stderr).toBe(0)
    const env = {BK_SCOPES: 'invoice:read'}
    const status = parseJsonOutput<{scope: string | null; origins: Record<string, string>}>(
      await runBk(['auth', 'status', '--json'], {configDir, env}),
    )
    expect(status).toMatchObject({scope: 'invoice:read', origins: {scope: 'BK_SCOPES'}})
    const invoices = await runBk(['invoices', 'list', '--limit', '1', '--json'], {configDir, env})
    expect(invoices.code, invoices.stderr).toBe(0)
    const refunds = await runBk(['refunds', 'list', '--limit', '1', '--json'], {configDir, env})
    expect(refunds.code, refunds.stderr).toBe(3)
    // Without it, the profile's own (unlimited) token reads refunds.
    expect((await runBk(['refunds', 'list', '--limit', '1', '--json'], {configDir})).code).toBe(0)
  })
})
