/**
 * The emulator answers every malformed request with a 4xx in the spec's error shape, never a
 * 5xx: a few thousand requests generated from a seeded PRNG (so a failure replays) over the real
 * route patterns, with random methods, malformed path segments (bad percent-escapes among them),
 * random query strings, random, malformed and oversized bodies and wrong content types. Fault
 * injection is off: a 5xx here is always the emulator's own.
 */
import {request, Agent} from 'node:http'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {registerRoutes} from '../../src/emulator/routes/index.js'
import type {Router} from '../../src/emulator/router.js'
import {start, tokenFor, type RunningEmulator} from '../helpers/emulator.js'

const SEED = Number(process.env.BK_FUZZ_SEED ?? 20260318)
const REQUESTS = 3000

let emulator: RunningEmulator
let token: string
let businessToken: string
let patterns: Array<{method: string; pattern: string}>
const agent = new Agent({keepAlive: true, maxSockets: 8})

beforeAll(async () => {
  emulator = await start({faultRate: 0})
  token = await tokenFor(emulator)
  businessToken = await tokenFor(emulator, {business_id: emulator.businessIds[0] as string})
  // The real route table, read by registering it on a recorder.
  patterns = []
  const recorder = {add: (method: string, pattern: string) => void patterns.push({method, pattern})}
  registerRoutes({
    router: recorder as unknown as Router,
    state: emulator.state,
    options: emulator.options,
    faults: emulator.faults,
    webhooks: emulator.webhooks,
  })
})
afterAll(async () => {
  agent.destroy()
  await emulator?.close()
})

/** mulberry32: a small seeded PRNG, so that every run sends the same requests. */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const random = prng(SEED)
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T
const chance = (p: number) => random() < p
const int = (n: number) => Math.floor(random() * n)

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'PROPFIND', 'TRACE', 'FOO', 'get']
const BAD_SEGMENTS = [
  '%',
  '%zz',
  '%2',
  '%E0%A4%A',
  '%C0%AF',
  '%FF',
  '%00',
  '%2F',
  '..',
  '.',
  '',
  '%25',
  'biz_%zz',
  'x'.repeat(5000),
  '\u00e9',
  '%F0%9F%98',
  "~!$&'()*+,;=:@",
  'null',
  '-1',
  '1e400',
]
const FIELDS = [
  'number',
  'vendor_id',
  'description',
  'issued_at',
  'due_at',
  'currency',
  'lines',
  'amount',
  'ledger_id',
  'debit_credit',
  'datetime',
  'tag_value_ids',
  'bills',
  'entity_ids',
  'threshold',
  'enabled',
  'status',
  'name',
  'url',
  'event',
  'type',
  'data',
  'business_id',
  'page_size',
  '__proto__',
  'constructor',
]
const QUERY_KEYS = [
  'page_size',
  'page_token',
  'limit',
  'status',
  'webhook_id',
  'entity_ids',
  'business_id',
  'from',
  'to',
]

function segment(real: string | undefined): string {
  if (real !== undefined && chance(0.4)) return real
  if (chance(0.5)) return pick(BAD_SEGMENTS)
  return encodeURIComponent(randomString(int(12)))
}

function randomString(n: number): string {
  let s = ''
  for (let i = 0; i < n; i++) s += String.fromCharCode(chance(0.9) ? 32 + int(95) : int(0x3000))
  return s
}

function path(): string {
  const {pattern} = pick(patterns)
  let p = pattern.replace(/:([a-z_]+)/g, (_, name: string) =>
    segment(name === 'business_id' ? (emulator.businessIds[0] as string) : undefined),
  )
  if (chance(0.1)) p += '/' + segment(undefined)
  if (chance(0.05)) p = p.replace(/\/[^/]*$/, '/' + pick(BAD_SEGMENTS))
  if (chance(0.05)) p += '/'
  if (chance(0.03)) p = '/' + pick(BAD_SEGMENTS)
  // Request targets that are not a plain path: asterisk and absolute forms, an empty authority.
  if (chance(0.02)) p = pick(['*', '//', '//evil/v0/business', 'http://[', 'http://emulator/v0/business', 'x'])
  return p
}

function query(): string {
  if (chance(0.5)) return ''
  const parts: string[] = []
  for (let i = int(4) + 1; i > 0; i--) {
    const value = pick([
      String(int(1000)),
      '-1',
      '0',
      '99999999999999999999',
      '1.5',
      '',
      '%',
      '%zz',
      'a,b,,c',
      'pending,sent',
      encodeURIComponent(randomString(int(20))),
    ])
    parts.push(chance(0.9) ? `${pick(QUERY_KEYS)}=${value}` : value)
  }
  return '?' + parts.join('&')
}

function jsonValue(depth: number): unknown {
  const kind = int(depth > 2 ? 5 : 8)
  if (kind === 0) return null
  if (kind === 1) return chance(0.5)
  if (kind === 2) return pick([0, -1, 1.5, 1e300, 2 ** 70, 0.1])
  if (kind === 3) return randomString(int(30))
  if (kind === 4) return pick(['2026-03-01T00:00:00Z', 'ldg_demo_cash', 'ven_x', '100.00', '-5', '', 'debit'])
  if (kind === 5) return Array.from({length: int(4)}, () => jsonValue(depth + 1))
  const o: Record<string, unknown> = {}
  for (let i = int(6); i > 0; i--) o[pick(FIELDS)] = jsonValue(depth + 1)
  return o
}

interface Sent {
  method: string
  path: string
  headers: Record<string, string>
  body: string | Buffer | undefined
}

function body(): Pick<Sent, 'headers' | 'body'> {
  const headers: Record<string, string> = {}
  const roll = random()
  let text: string | Buffer | undefined
  if (roll < 0.5) text = JSON.stringify(jsonValue(0))
  else if (roll < 0.6)
    text = JSON.stringify(jsonValue(0)).slice(0, -1) // cut short
  else if (roll < 0.7) text = pick(['{', '[1,', '{"a":}', 'nul', '"\\u12"', '{"a":1}{', '\u0000', '1e99999', '-'])
  else if (roll < 0.75) text = `{"n": ${'9'.repeat(400)}, "d": ${'['.repeat(200)}${']'.repeat(200)}}`
  else if (roll < 0.8) text = Buffer.from([0xff, 0xfe, 0x7b, 0xc3, 0x28, 0x7d])
  else if (roll < 0.85) text = `client_id=${encodeURIComponent(randomString(5))}&client_secret=%zz&grant_type=%`
  else if (roll < 0.9) text = JSON.stringify({[pick(FIELDS)]: 'x'.repeat(200_000)})
  // else: no body
  const type = pick([
    'application/json',
    'application/json',
    'application/json; charset=utf-8',
    'application/x-www-form-urlencoded',
    'text/plain',
    'multipart/form-data; boundary=x',
    'application/json; charset=latin1',
    'application/xml',
    undefined,
  ])
  if (type !== undefined) headers['content-type'] = type
  return {headers, body: text}
}

function generate(): Sent {
  const sent: Sent = {method: pick(METHODS), path: path() + query(), ...body()}
  const auth = random()
  if (auth < 0.45) sent.headers.authorization = `Bearer ${token}`
  else if (auth < 0.8) sent.headers.authorization = `Bearer ${businessToken}`
  else if (auth < 0.85)
    sent.headers.authorization = pick(['Bearer', 'Bearer %zz', 'Basic eDp5', 'Bearer ' + 'a'.repeat(3000)])
  if (chance(0.05)) sent.headers['x-external-entity-id'] = randomString(int(40)).replace(/[^\x20-\x7e]/g, '')
  if (chance(0.05)) sent.headers['idempotency-key'] = pick(['', '%zz', 'x'.repeat(300)])
  return sent
}

interface Answer {
  status: number
  text: string
}

function send(sent: Sent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const url = new URL(emulator.baseUrl)
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: sent.method,
        path: sent.path,
        headers:
          sent.body === undefined ? sent.headers : {...sent.headers, 'content-length': Buffer.byteLength(sent.body)},
        agent,
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (d: string) => (text += d))
        res.on('end', () => resolve({status: res.statusCode ?? 0, text}))
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(sent.body)
  })
}

/** What is wrong with an answer, or undefined when it is a non-5xx in the spec's error shape (or a success). */
function problem(sent: Sent, answer: Answer): string | undefined {
  if (answer.status >= 500) return `status ${answer.status}: ${answer.text.slice(0, 300)}`
  if (answer.status < 400) return undefined
  if (sent.method === 'HEAD') return undefined // a HEAD answer has no body
  let parsed: unknown
  try {
    parsed = JSON.parse(answer.text)
  } catch {
    return `status ${answer.status} with a body that is not JSON: ${answer.text.slice(0, 200)}`
  }
  const body = parsed as Record<string, unknown>
  const shaped =
    typeof body === 'object' &&
    body !== null &&
    'data' in body &&
    (('error' in body && (typeof body.error === 'string' || body.error === null)) ||
      // Task deletion may answer {message, data} (spec: Errors, 3).
      (/\/task\//.test(sent.path) && typeof body.message === 'string'))
  return shaped
    ? undefined
    : `status ${answer.status} not in the error shape {error, data}: ${answer.text.slice(0, 200)}`
}

function describeSent(sent: Sent): string {
  const shown = sent.body === undefined ? '' : ` body ${JSON.stringify(String(sent.body).slice(0, 120))}`
  return `${sent.method} ${sent.path.slice(0, 200)} ${JSON.stringify(sent.headers).slice(0, 200)}${shown}`
}

describe('the emulator under malformed requests', () => {
  it(`answers ${REQUESTS} generated requests (seed ${SEED}) without a 5xx, errors in the spec's shape`, async () => {
    expect(patterns.length).toBeGreaterThan(15)
    const requests = Array.from({length: REQUESTS}, generate)
    const failures: string[] = []
    const statuses = new Map<number, number>()
    let next = 0
    const worker = async () => {
      while (next < requests.length) {
        const sent = requests[next++] as Sent
        let answer: Answer
        try {
          answer = await send(sent)
        } catch (error) {
          failures.push(`${describeSent(sent)}\n  -> no answer: ${(error as Error).message}`)
          continue
        }
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
        const wrong = problem(sent, answer)
        if (wrong) failures.push(`${describeSent(sent)}\n  -> ${wrong}`)
      }
    }
    await Promise.all(Array.from({length: 8}, worker))
    expect(failures.slice(0, 15).join('\n'), `${failures.length} of ${REQUESTS} failed`).toBe('')
    // The requests reached the handlers, not only the router's 404 and 405.
    expect([...statuses.keys()].some((s) => s === 422 || s === 400)).toBe(true)
    expect([...statuses.keys()].some((s) => s < 300)).toBe(true)
  }, 240_000)
  it('answers a body over the size bound with 413 in the error shape', async () => {
    const sent: Sent = {
      method: 'POST',
      path: `/v0/business/${emulator.businessIds[0]}/bills`,
      headers: {'content-type': 'application/json', authorization: `Bearer ${businessToken}`},
      body: '[' + '0,'.repeat(5_300_000) + '0]',
    }
    const answer = await send(sent)
    expect(answer.status).toBe(413)
    expect(problem(sent, answer)).toBeUndefined()
  })
})
