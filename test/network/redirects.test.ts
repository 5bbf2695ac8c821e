/**
 * Redirects: a GET follows them, carrying the bearer token only to the base URL's own origin;
 * a write is never redirected. Two real servers on loopback: 127.0.0.1 (the base URL) and
 * localhost (another origin: another host name, another port).
 */
import {afterEach, describe, expect, it} from 'vitest'

import {runBk} from '../helpers/bk.js'
import {reply, scriptedServer, type ScriptedServer, type Step} from '../helpers/scripted-server.js'

const TOKEN = 'tok-redirect-secret-4821'
const servers: ScriptedServer[] = []

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()))
})

async function server(steps: Step[]): Promise<ScriptedServer> {
  const s = await scriptedServer(steps)
  servers.push(s)
  return s
}

const redirect =
  (status: number, location: () => string): Step =>
  (_req, res) => {
    res.writeHead(status, {location: location(), 'content-length': '0'})
    res.end()
  }

function env(base: ScriptedServer): Record<string, string> {
  return {BK_BASE_URL: base.url, BK_ACCESS_TOKEN: TOKEN}
}

describe('redirects', () => {
  it('a GET redirected to another origin arrives there without the token', async () => {
    const other = await server([reply(200, {data: [], pagination: {}})])
    const otherUrl = other.url.replace('127.0.0.1', 'localhost')
    const base = await server([redirect(302, () => `${otherUrl}/v0/moved?x=1`)])
    const result = await runBk(['api', 'GET', '/v0/business', '--debug'], {env: env(base)})
    expect(result.code, result.stderr).toBe(0)
    expect(base.requests[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`)
    expect(other.requests).toHaveLength(1)
    expect(other.requests[0]?.url).toBe('/v0/moved?x=1')
    expect(other.requests[0]?.headers.authorization).toBeUndefined()
    expect(JSON.stringify(other.requests[0]?.headers)).not.toContain(TOKEN)
    expect(result.stderr).toContain(`302: following the redirect to ${otherUrl}/v0/moved`)
  })

  it('a GET redirected within the base URL keeps the token', async () => {
    const self = {url: ''}
    const base = await server([redirect(301, () => `${self.url}/v0/business/again`), reply(200, {data: []})])
    self.url = base.url
    const result = await runBk(['api', 'GET', '/v0/business'], {env: env(base)})
    expect(result.code, result.stderr).toBe(0)
    expect(base.requests.map((r) => r.url)).toEqual(['/v0/business', '/v0/business/again'])
    expect(base.requests[1]?.headers.authorization).toBe(`Bearer ${TOKEN}`)
  })

  it('a write that is redirected is not followed, and says where it pointed', async () => {
    const other = await server([reply(200, {})])
    const base = await server([redirect(307, () => `${other.url.replace('127.0.0.1', 'localhost')}/v0/elsewhere`)])
    const result = await runBk(['api', 'POST', '/v0/business/biz_1/bills', '--input', '-'], {
      env: env(base),
      input: '[]',
    })
    expect(result.code).toBe(5)
    expect(result.stderr).toMatch(
      /^Error: POST \/v0\/business\/biz_1\/bills was redirected \(307\) to http:\/\/localhost:\d+\/v0\/elsewhere; bk follows redirects only for reads/,
    )
    expect(other.requests).toHaveLength(0)
  })

  it('gives up on a redirect loop', async () => {
    const self = {url: ''}
    const base = await server([redirect(302, () => `${self.url}/v0/loop`)])
    self.url = base.url
    const result = await runBk(['api', 'GET', '/v0/business'], {env: env(base)})
    expect(result.code).toBe(5)
    expect(result.stderr).toContain('was redirected more than 5 times')
    expect(base.requests).toHaveLength(6)
  })
})

describe('--debug traces', () => {
  it('trace an answer with an empty body (a 204) without failing the request', async () => {
    const base = await server([
      (_req, res) => {
        res.writeHead(204)
        res.end()
      },
    ])
    const result = await runBk(['api', 'DELETE', '/v0/business/biz_1/task/tsk_1', '--debug'], {env: env(base)})
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toContain('← 204 DELETE /v0/business/biz_1/task/tsk_1')
    expect(base.requests).toHaveLength(1)
  })
})
