/**
 * `bk api` keeps numbers as written both ways: the body of `--input` goes as the file's bytes, a
 * `--field` number goes with the digits typed, and the answer prints every number as the service
 * wrote it (no pass through a double, which rounds past 15 to 17 significant digits). A real
 * HTTP server on loopback records the bytes it receives and answers with such numbers.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {stripVTControlCharacters} from 'node:util'
import {afterEach, describe, expect, it} from 'vitest'

import {runBk, tempDir} from '../helpers/bk.js'
import {scriptedServer, type ScriptedServer, type Step} from '../helpers/scripted-server.js'

const servers: ScriptedServer[] = []

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

/** Answers every request with this raw text. */
const rawJson =
  (text: string): Step =>
  (_req, res) => {
    res.writeHead(200, {'content-type': 'application/json'})
    res.end(text)
  }

async function server(answer = '{}'): Promise<ScriptedServer> {
  const s = await scriptedServer([rawJson(answer)])
  servers.push(s)
  return s
}

function env(s: ScriptedServer): Record<string, string> {
  return {BK_BASE_URL: s.url, BK_ACCESS_TOKEN: 'tok-exact-numbers-7731', BK_BUSINESS_ID: 'biz_demo_acme'}
}

describe('bk api keeps numbers exact', () => {
  it('--input sends the file as written, and --debug traces it digit for digit', async () => {
    const s = await server()
    const file = join(tempDir(), 'in.json')
    const body = '{"x":1.10, "y": 12345678901234567890}'
    writeFileSync(file, body)
    const res = await runBk(['api', 'PATCH', '/v0/business/{business_id}/rules/receipts', '--input', file, '--debug'], {
      env: env(s),
    })
    expect(res.code, res.stderr).toBe(0)
    expect(s.requests[0]?.body).toBe(body)
    expect(s.requests[0]?.headers['content-type']).toBe('application/json')
    expect(res.stderr).toContain('body {"x":1.10,"y":12345678901234567890}')
  })

  it('--input - sends stdin as written', async () => {
    const s = await server()
    const body = '{"lines": [{"amount": 1234567890123456789.10}]}\n'
    const res = await runBk(['api', 'POST', '/v0/business/biz_demo_acme/bills', '--input', '-'], {
      env: env(s),
      input: body,
    })
    expect(res.code, res.stderr).toBe(0)
    expect(s.requests[0]?.body).toBe(body)
  })

  it('--input that is not UTF-8 is refused, naming the file and line, nothing sent', async () => {
    const s = await server()
    const file = join(tempDir(), 'latin1.json')
    writeFileSync(file, Buffer.concat([Buffer.from('{\n"memo": "caf'), Buffer.from([0xe9]), Buffer.from('"}')]))
    const res = await runBk(['api', 'POST', '/v0/business/biz_demo_acme/bills', '--input', file], {env: env(s)})
    expect(res.code).toBe(2)
    expect(res.stderr).toContain(`${file}:2:`)
    expect(res.stderr).toContain('not UTF-8')
    expect(s.requests).toHaveLength(0)
  })

  it('--field sends a number with the digits typed; other values as before', async () => {
    const s = await server()
    const res = await runBk(
      [
        'api',
        'POST',
        '/v0/business/biz_demo_acme/bills',
        '--field',
        'amount=1234567890123456789.10',
        '--field',
        'lines=[{"amount": 0.10}, 12345678901234567890]',
        '--field',
        'paid=false',
        '--field',
        'memo=12 apples',
      ],
      {env: env(s)},
    )
    expect(res.code, res.stderr).toBe(0)
    expect(s.requests[0]?.body).toBe(
      '{"amount":1234567890123456789.10,"lines":[{"amount":0.10},12345678901234567890],"paid":false,"memo":"12 apples"}',
    )
  })

  it('prints the answer with every number as received, with or without --json', async () => {
    const answer = '{"total_amount":12345678901234567.89,"metadata_":{"n":12345678901234567890},"rate":1.10}'
    const s = await server(answer)
    const expected = [
      '{',
      '  "total_amount": 12345678901234567.89,',
      '  "metadata_": {',
      '    "n": 12345678901234567890',
      '  },',
      '  "rate": 1.10',
      '}',
      '',
    ].join('\n')
    for (const json of [[], ['--json']]) {
      const res = await runBk(['api', 'GET', '/v0/business/biz_demo_acme/invoice/inv_1', ...json], {env: env(s)})
      expect(res.code, res.stderr).toBe(0)
      expect(res.stdout).toBe(expected)
    }
    // In the colours of the user's oclif theme, the same text.
    const configDir = tempDir()
    writeFileSync(join(configDir, 'theme.json'), JSON.stringify({json: {key: 'blue', number: 'green'}}))
    const res = await runBk(['api', 'GET', '/v0/business/biz_demo_acme/invoice/inv_1', '--json'], {
      configDir,
      env: {...env(s), FORCE_COLOR: '1'},
    })
    expect(res.code, res.stderr).toBe(0)
    expect(res.stdout).toContain('\u001b[32m12345678901234567.89\u001b[39m')
    expect(stripVTControlCharacters(res.stdout)).toBe(expected)
  })

  it('--paginate prints the items of every page with their numbers as received', async () => {
    const s = await scriptedServer([
      rawJson('{"data":[{"amount":12345678901234567.89}],"pagination":{"next_page_token":"p2"}}'),
      rawJson('{"data":[{"amount":0.10}],"pagination":{"next_page_token":null}}'),
    ])
    servers.push(s)
    const res = await runBk(['api', 'GET', '/v0/business/biz_demo_acme/invoice', '--paginate'], {env: env(s)})
    expect(res.code, res.stderr).toBe(0)
    expect(s.requests.map((r) => r.url)).toEqual([
      '/v0/business/biz_demo_acme/invoice',
      '/v0/business/biz_demo_acme/invoice?page_token=p2',
    ])
    expect(JSON.parse(res.stdout)).toHaveLength(2)
    expect(res.stdout).toContain('"amount": 12345678901234567.89')
    expect(res.stdout).toContain('"amount": 0.10')
  })

  it('--jq reads the answer as received: a number it only passes through keeps its digits', async () => {
    const s = await server('{"metadata_":{"n":12345678901234567890}}')
    const res = await runBk(['api', 'GET', '/v0/business/biz_demo_acme/invoice/inv_1', '--jq', '.metadata_.n'], {
      env: env(s),
    })
    expect(res.code, res.stderr).toBe(0)
    expect(res.stdout).toBe('12345678901234567890\n')
  })
})
