/**
 * A service that echoes the client secret and the access token in every answer (bodies, error
 * messages, item fields, a header) cannot make bk print or store them: stdout, stderr, --json,
 * --debug traces and every file bk writes are searched for both.
 */
import {readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it, vi} from 'vitest'

import {DEMO_IDS} from '../../src/emulator/seed.js'
import {runBk, tempDir, type BkResult} from '../helpers/bk.js'
import {start, type RunningEmulator} from '../helpers/emulator.js'

vi.setConfig({testTimeout: 240_000})

let emulator: RunningEmulator
let echo: Server
let echoUrl: string
const tokens = new Set<string>()

/** Appends the secret and the tokens seen to every description and error text. */
function leak(value: unknown, secrets: string): unknown {
  if (Array.isArray(value)) return value.map((v) => leak(v, secrets))
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) {
      out[k] =
        typeof v === 'string' && (k === 'description' || k === 'error' || k === 'message')
          ? `${v} ${secrets}`
          : leak(v, secrets)
    }
    return out
  }
  return value
}

function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/** A loopback proxy in front of the emulator that echoes every secret it sees. */
async function startEchoingProxy(target: string): Promise<Server> {
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (d: Buffer) => (body += d.toString()))
    req.on('end', () => {
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1]
      if (bearer) tokens.add(bearer)
      const headers: Record<string, string> = {}
      for (const [k, v] of Object.entries(req.headers))
        if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v
      const init: RequestInit = {method: req.method ?? 'GET', headers}
      if (req.method !== 'GET') init.body = body
      void fetch(target + (req.url ?? ''), init).then(async (answer) => {
        const text = await answer.text()
        let out = text
        const parsed = jsonOrUndefined(text)
        if (parsed && typeof parsed === 'object') {
          const token = (parsed as {access_token?: string}).access_token
          if (token) tokens.add(token)
          const secrets = `${emulator.clientSecret} ${[...tokens].join(' ')}`
          out = JSON.stringify({...(leak(parsed, secrets) as object), echo: secrets})
        }
        res.writeHead(answer.status, {
          'content-type': answer.headers.get('content-type') ?? 'application/json',
          'x-echo': `${emulator.clientSecret} ${[...tokens].join(' ')}`,
        })
        res.end(out)
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return server
}

beforeAll(async () => {
  emulator = await start()
  echo = await startEchoingProxy(emulator.baseUrl)
  echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`
})
afterAll(async () => {
  echo.closeAllConnections()
  await new Promise((resolve) => echo.close(resolve))
  await emulator.close()
})

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })
}

describe('secrets echoed by the service', () => {
  it('appear in no output, trace or file of any command', async () => {
    const configDir = tempDir('bk-echo-config-')
    const work = tempDir('bk-echo-work-')
    const L = DEMO_IDS.ledgers
    const add = await runBk(
      [
        'profiles',
        'add',
        'echo',
        '--env',
        'local',
        '--base-url',
        echoUrl,
        '--client-id',
        emulator.clientId,
        '--business',
        DEMO_IDS.business,
        '--client-secret-stdin',
        '--insecure-storage',
      ],
      {configDir, input: emulator.clientSecret},
    )
    expect(add.code, add.stderr).toBe(0)
    // profiles add checked the secret with a token of its own, which no later process holds: the
    // proxy stops echoing it (bk cannot hide a token it never saw), and add's output is searched too.
    const checkTokens = [...tokens]
    expect(checkTokens.length).toBeGreaterThan(0)
    tokens.clear()
    writeFileSync(
      join(work, 'again.csv'),
      'number,vendor_id,description,line_amount,line_ledger_id\nE-3,ven_unknown,bad vendor,7.5,ldg_demo_expenses\n',
    )
    writeFileSync(
      join(work, 'bills.csv'),
      'number,vendor_id,description,line_amount,line_ledger_id\nE-1,ven_demo_office,ok,10,ldg_demo_expenses\nE-2,ven_unknown,bad vendor,7.5,ldg_demo_expenses\n',
    )
    writeFileSync(
      join(work, 'je.yaml'),
      `entries:\n  - description: Echo\n    datetime: 2026-03-01T09:00:00Z\n    lines:\n      - {ledger_id: ${L.expenses}, debit: 5}\n      - {ledger_id: ${L.cash}, credit: 5}\n`,
    )
    const runs: Array<[string[], BkResult]> = [[['profiles', 'add'], add]]
    for (const args of [
      ['auth', 'status'],
      ['auth', 'status', '--json'],
      ['invoices', 'list', '--limit', '2', '--json', '--debug'],
      ['invoices', 'list', '--limit', '2', '--output', 'table'],
      ['invoices', 'list', '--limit', '2', '--output', 'csv', '--file', 'invoices.csv'],
      ['transactions', 'get', 'txn_missing', '--debug'],
      ['transactions', 'get', 'txn_missing', '--json'],
      ['bills', 'import', 'bills.csv', '--results', 'created.csv', '--debug'],
      ['bills', 'import', 'again.csv', '--json'],
      ['journal-entries', 'create', 'je.yaml', '--debug'],
      ['api', 'GET', `/v0/business/${DEMO_IDS.business}/invoice?page_size=1`],
    ])
      runs.push([args, await runBk(args, {configDir, cwd: work})])
    // The proxy saw a token, and the commands reached the service (bills were created).
    expect(tokens.size).toBeGreaterThan(0)
    expect(emulator.state.bills.all(DEMO_IDS.business).some((b) => b.number === 'E-1')).toBe(true)
    const secrets = [emulator.clientSecret, ...checkTokens, ...tokens]
    for (const [args, result] of runs) {
      for (const secret of secrets) {
        expect([args.join(' '), result.stdout.includes(secret), result.stderr.includes(secret)]).toEqual([
          args.join(' '),
          false,
          false,
        ])
      }
    }
    // Every file bk wrote: exports, rejects, results, journals (the stored secret and token cache aside).
    const written = filesUnder(work).filter((f) => !/(bills|again)\.csv$|je\.yaml$/.test(f))
    expect(written.map((f) => f.slice(work.length + 1)).sort()).toEqual(
      expect.arrayContaining([
        'again.csv.bk-journal',
        'again.rejects.csv',
        'bills.csv.bk-journal',
        'bills.rejects.csv',
        'created.csv',
        'invoices.csv',
        'je.yaml.bk-journal',
      ]),
    )
    for (const file of written) {
      const text = readFileSync(file, 'utf8')
      for (const secret of secrets) expect([file, text.includes(secret)]).toEqual([file, false])
    }
    // The one command that exists to print a token still prints it.
    const printed = await runBk(['auth', 'token'], {configDir, cwd: work})
    expect(printed.code, printed.stderr).toBe(0)
    expect(tokens.has(printed.stdout.trim())).toBe(true)
    // The redaction is visible where the echo was.
    expect(runs.find(([a]) => a.join(' ') === 'transactions get txn_missing --json')?.[1].stdout).toContain(
      '[redacted]',
    )
  })

  it('a base URL with a user name and password is refused, the password not shown', async () => {
    const configDir = tempDir('bk-echo-config-')
    const add = await runBk(
      [
        'profiles',
        'add',
        'creds',
        '--env',
        'local',
        '--base-url',
        'http://alice:hunter2-pw@127.0.0.1:4010',
        '--client-id',
        'c',
        '--client-secret-stdin',
        '--insecure-storage',
      ],
      {configDir, input: 'secret-value'},
    )
    expect(add.code).toBe(2)
    expect(add.stderr).toContain('user name or password')
    expect(add.stdout + add.stderr).not.toContain('hunter2-pw')
    const env = await runBk(['invoices', 'list', '--json'], {
      configDir,
      env: {
        BK_BASE_URL: 'https://alice:hunter2-pw@api.example.com',
        BK_ACCESS_TOKEN: 'tok-abcdef',
        BK_BUSINESS_ID: 'biz_x',
      },
    })
    expect(env.code).toBe(2)
    expect(env.stdout + env.stderr).not.toContain('hunter2-pw')
  })
})

describe('a secret too short to search for', () => {
  it('leaves exported data exact, is still redacted by name in --debug traces, and is warned about', async () => {
    const short = await start({clientSecret: '1001'})
    try {
      const env = {
        BK_BASE_URL: short.baseUrl,
        BK_CLIENT_ID: short.clientId,
        BK_CLIENT_SECRET: '1001',
        BK_BUSINESS_ID: DEMO_IDS.business,
      }
      const csv = await runBk(['invoices', 'list', '--limit', '1', '--output', 'csv', '--debug'], {env})
      expect(csv.code, csv.stderr).toBe(0)
      // The first demo invoice is INV-01001, "Order 1001": the secret's digits, kept as they are.
      expect(csv.stdout.split('\n')[1]).toMatch(/^inv_\w+,INV-01001,[a-z_]+,cus_\w+,Order 1001,/)
      expect(csv.stdout).not.toContain('[redacted]')
      expect(csv.stderr).toContain(
        'Warning: BK_CLIENT_SECRET is shorter than 8 characters, too short to be hidden wherever it appears in output',
      )
      // The token request's form and the bearer header are redacted by name, at any length.
      expect(csv.stderr).toContain('"client_secret":"[redacted]"')
      expect(csv.stderr).toContain('"authorization":"[redacted]"')
      expect(csv.stderr).not.toMatch(/client_secret\W+1001/)
    } finally {
      await short.close()
    }
  })
})
