import {createSign} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {request} from 'node:http'
import {createServer} from 'node:net'
import {networkInterfaces} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runBk} from '../helpers/bk.js'
import {whenOutput} from '../helpers/wait.js'
import {
  FIXTURES,
  JWKS_FILE,
  delivery,
  padded,
  post,
  recordingServer,
  startListen,
  type ListenerChild,
  type RecordingServer,
} from './helpers.js'

interface Line {
  svc_id: string | null
  type: string | null
  valid: boolean
  verified_as: string | null
  reason: string | null
  status: number
  duplicate: boolean
  forwarded: {status: number | null} | null
  source?: string
}

const lines = (l: ListenerChild): Line[] =>
  l
    .stdout()
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((x) => JSON.parse(x) as Line)

describe('bk webhooks listen --forward-to --json', () => {
  let app: RecordingServer
  let listener: ListenerChild
  let appDown = false
  beforeAll(async () => {
    app = await recordingServer(() => (appDown ? 503 : 200))
    listener = await startListen(['--jwks', JWKS_FILE, '--forward-to', app.url, '--json'])
  })
  afterAll(async () => {
    await listener.stop()
    await app.close()
  })

  it('answers 200 to a valid delivery, prints it, and forwards headers and body unchanged', async () => {
    const d = delivery('emoji')
    const res = await post(listener.url + '/any/path', d.body, {
      'svc-id': d.id,
      'svc-signature': d.signature,
      'x-tenant-secret': 's3',
    })
    expect(res.status).toBe(200)
    expect(app.requests).toHaveLength(1)
    const fwd = app.requests[0]!
    expect(fwd.body).toBe(d.body)
    expect(fwd.headers).toMatchObject({
      'svc-id': d.id,
      'svc-signature': d.signature,
      'x-tenant-secret': 's3',
      'content-type': 'application/json',
    })
    await listener.printed(() => lines(listener).length === 1, 'one line')
    expect(lines(listener)[0]).toMatchObject({
      svc_id: d.id,
      type: 'RECEIPT_MATCHED',
      valid: true,
      verified_as: 'raw',
      status: 200,
      duplicate: false,
      forwarded: {status: 200},
    })
  })

  it('accepts a body re-encoded on the way (verified through the Python serialisation)', async () => {
    const d = delivery('floats')
    const res = await post(listener.url, d.received, {'svc-id': d.id, 'svc-signature': d.signature})
    expect(res.status).toBe(200)
    await listener.printed(() => lines(listener).some((l) => l.svc_id === d.id), 'the floats line')
    expect(lines(listener).find((l) => l.svc_id === d.id)).toMatchObject({valid: true, verified_as: 'python-json'})
    // What is forwarded is the text that was signed, not the bytes received.
    expect(d.received).not.toBe(d.body)
    expect(app.requests.find((r) => r.headers['svc-id'] === d.id)?.body).toBe(d.body)
  })

  it('de-duplicates by svc-id: a redelivery is answered 200, reported as duplicate, not forwarded', async () => {
    const d = delivery('emoji')
    const before = app.requests.length
    const res = await post(listener.url, d.body, {'svc-id': d.id, 'svc-signature': d.signature})
    expect(res.status).toBe(200)
    expect(app.requests.length).toBe(before)
    await listener.printed(() => lines(listener).filter((l) => l.svc_id === d.id).length === 2, 'the duplicate line')
    expect(lines(listener).filter((l) => l.svc_id === d.id)[1]).toMatchObject({duplicate: true, forwarded: null})
  })

  it('answers 502 while the target fails, so the service retries, and forwards the retry later', async () => {
    const d = delivery('nested')
    appDown = true
    expect((await post(listener.url, d.body, {'svc-id': d.id, 'svc-signature': d.signature})).status).toBe(502)
    await whenOutput(listener.child.stderr, () => listener.stderr().includes('IS FAILING'), 'the failing line')
    expect(listener.stderr()).toContain(`bk: FORWARDING TO ${app.url} IS FAILING (answered 503)`)
    appDown = false
    expect((await post(listener.url, d.body, {'svc-id': d.id, 'svc-signature': d.signature})).status).toBe(200)
    expect(app.requests.filter((r) => r.headers['svc-id'] === d.id).map((r) => r.body)).toEqual([d.body, d.body])
    await whenOutput(listener.child.stderr, () => listener.stderr().includes('works again'), 'the recovery line')
    expect(listener.stderr().match(/IS FAILING/g)).toHaveLength(1)
  })

  it('refuses a signed body given an earlier duplicate "type", and forwards nothing', async () => {
    const body = '{"type": "TASK_REQUEST", "content": {"business_id": "biz_1", "task_types": ["other"]}}'
    const id = 'msg_dup_type'
    const signature = createSign('sha256')
      .update(`${id}.${body}`, 'utf8')
      .sign(readFileSync(join(FIXTURES, 'key.pem'), 'utf8'), 'base64url')
    const before = app.requests.length
    const forged = '{"type": "BUSINESS_DEACTIVATED", ' + body.slice(1)
    const res = await post(listener.url, forged, {'svc-id': id, 'svc-signature': signature})
    expect(res.status).toBe(400)
    expect((JSON.parse(res.text) as {error: string}).error).toContain('"type" twice')
    expect(app.requests.length).toBe(before)
    // The body as signed still goes through.
    expect((await post(listener.url, body, {'svc-id': id, 'svc-signature': signature})).status).toBe(200)
    expect(app.requests.at(-1)?.body).toBe(body)
  })

  it('refuses invalid and bad requests with 4xx, forwards none, and keeps running', async () => {
    const d = delivery('ascii')
    const before = app.requests.length
    const tampered = await post(listener.url, d.body.replace('biz_1', 'biz_2'), {
      'svc-id': d.id,
      'svc-signature': d.signature,
    })
    expect(tampered.status).toBe(400)
    expect(tampered.text).toContain('does not match')
    expect((await post(listener.url, d.body, {'svc-id': d.id})).status).toBe(400)
    expect((await post(listener.url, d.body, {'svc-signature': d.signature})).status).toBe(400)
    expect((await post(listener.url, 'not json at all', {'svc-id': d.id, 'svc-signature': d.signature})).status).toBe(
      400,
    )
    expect(
      (await post(listener.url, Buffer.alloc(2 * 1024 * 1024, 0x20), {'svc-id': d.id, 'svc-signature': d.signature}))
        .status,
    ).toBe(413)
    expect((await fetch(listener.url)).status).toBe(405)
    expect(app.requests.length).toBe(before)
    // Still alive and verifying.
    expect((await post(listener.url, d.body, {'svc-id': d.id, 'svc-signature': d.signature})).status).toBe(200)
    await listener.printed(() => lines(listener).some((l) => l.svc_id === d.id && l.valid), 'the valid ascii line')
    const refused = lines(listener).filter((l) => !l.valid && l.svc_id !== 'msg_dup_type')
    expect(refused.map((l) => l.status)).toEqual([400, 400, 400, 400, 413, 405])
    expect(refused.find((l) => l.status === 400 && l.reason?.includes('not JSON'))).toBeTruthy()
    expect(refused.find((l) => l.reason === 'missing header svc-signature')).toBeTruthy()
  })
})

describe('bk webhooks listen --events', () => {
  it('prints and forwards only the chosen types, acknowledging the others; one line per event for people', async () => {
    const app = await recordingServer()
    const listener = await startListen(['--jwks', JWKS_FILE, '--forward-to', app.url, '--events', 'TASK_REQUEST'])
    try {
      const skip = delivery('ascii')
      const keep = delivery('non-ascii')
      expect((await post(listener.url, skip.body, {'svc-id': skip.id, 'svc-signature': skip.signature})).status).toBe(
        200,
      )
      expect((await post(listener.url, keep.body, {'svc-id': keep.id, 'svc-signature': keep.signature})).status).toBe(
        200,
      )
      expect(app.requests.map((r) => r.headers['svc-id'])).toEqual([keep.id])
      await listener.printed(() => listener.stdout().includes(keep.id), 'the line')
      const out = listener.stdout().trim().split('\n')
      expect(out).toHaveLength(1)
      expect(out[0]).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d  200  ${keep.id}  TASK_REQUEST  valid  → 200$`))
    } finally {
      expect(await listener.stop()).toBe(0)
      await app.close()
    }
  })
})

describe('bk webhooks listen --events with a type the spec lacks', () => {
  it('exits 2 before listening, naming the type and the one meant', async () => {
    const result = await runBk([
      'webhooks',
      'listen',
      '--port',
      '0',
      '--jwks',
      JWKS_FILE,
      '--events',
      'BUSINESS_CREATED,TASK_REQUESTS',
    ])
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain('Unknown event type in --events: "TASK_REQUESTS"')
    expect(result.stderr).toContain('Did you mean TASK_REQUEST?')
    expect(result.stderr).not.toContain('Listening on')
  })
})

describe('bk webhooks listen without --forward-to', () => {
  it('answers 200 to valid deliveries and 400 to invalid ones, printing a line for each', async () => {
    const listener = await startListen(['--jwks', JWKS_FILE])
    try {
      const d = delivery('floats')
      expect(
        (await post(listener.url, d.received, {'svc-id': d.id, 'svc-signature': padded(d.signature)})).status,
      ).toBe(200)
      expect((await post(listener.url, d.received, {'svc-id': 'msg_other', 'svc-signature': d.signature})).status).toBe(
        400,
      )
      await listener.printed(() => listener.stdout().trim().split('\n').length === 2, 'two lines')
      const [ok, bad] = listener.stdout().trim().split('\n')
      expect(ok).toMatch(new RegExp(`  200  ${d.id}  ACCOUNT_BALANCE_UPDATED  valid$`))
      expect(bad).toContain(`  400  msg_other  ACCOUNT_BALANCE_UPDATED  INVALID: the signature does not match`)
    } finally {
      await listener.stop()
    }
  })
})

describe('bk webhooks listen on a busy port', () => {
  it('exits 2 naming the port and how to pick another', async () => {
    const holder = createServer()
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve))
    try {
      const port = (holder.address() as {port: number}).port
      const result = await runBk(['webhooks', 'listen', '--port', String(port), '--jwks', JWKS_FILE])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain(`Port ${port} on 127.0.0.1 is already in use`)
      expect(result.stderr).toContain('--port 0')
    } finally {
      holder.close()
    }
  })
})

describe('bk webhooks listen on an address that is none', () => {
  it('exits 2 naming the host, as a usage error', async () => {
    const result = await runBk(['webhooks', 'listen', '--host', '256.1.1.1', '--port', '0', '--jwks', JWKS_FILE])
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain('Cannot listen on 256.1.1.1:0: no address of that name')
    expect(result.stderr).toContain('Hint: Check --host')
  })
})

describe('bk webhooks listen and unsigned replays', () => {
  const replayHeaders = (id: string) => ({'svc-id': id, 'bk-replay': '1'})

  it('refuses a replay without --accept-replays, saying how to take them', async () => {
    const app = await recordingServer()
    const listener = await startListen(['--jwks', JWKS_FILE, '--forward-to', app.url])
    try {
      const d = delivery('ascii')
      const res = await post(listener.url, d.body, replayHeaders(d.id))
      expect(res.status).toBe(400)
      expect(res.text).toContain('--accept-replays')
      expect(app.requests).toHaveLength(0)
    } finally {
      await listener.stop()
      await app.close()
    }
  })

  it('with --accept-replays takes a replay from this machine, forwards it with its marker, once', async () => {
    const app = await recordingServer()
    const listener = await startListen(['--jwks', JWKS_FILE, '--forward-to', app.url, '--accept-replays', '--json'])
    try {
      const d = delivery('ascii')
      expect((await post(listener.url, d.body, replayHeaders(d.id))).status).toBe(200)
      expect((await post(listener.url, d.body, replayHeaders(d.id))).status).toBe(200)
      expect(app.requests).toHaveLength(1)
      expect(app.requests[0]!.headers['bk-replay']).toBe('1')
      expect(app.requests[0]!.body).toBe(d.body)
      await listener.printed(() => lines(listener).length === 2, 'two lines')
      expect(lines(listener)[0]).toMatchObject({valid: true, verified_as: 'replay', source: 'replay'})
      expect(lines(listener)[1]).toMatchObject({duplicate: true})
    } finally {
      await listener.stop()
      await app.close()
    }
  })
})

/** An address of this machine that is not loopback, to send from. */
const external = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && !i.internal && i.family === 'IPv4')?.address

describe('bk webhooks listen --accept-replays from another address', () => {
  it.skipIf(!external)('refuses the replay with 403: replays are taken from loopback only', async () => {
    const app = await recordingServer()
    const listener = await startListen([
      '--host',
      '0.0.0.0',
      '--jwks',
      JWKS_FILE,
      '--forward-to',
      app.url,
      '--accept-replays',
    ])
    try {
      const d = delivery('ascii')
      const port = new URL(listener.url).port
      const status = await new Promise<number | undefined>((resolve, reject) => {
        const req = request(
          {
            host: external,
            port,
            method: 'POST',
            localAddress: external,
            headers: {'content-type': 'application/json', 'svc-id': d.id, 'bk-replay': '1'},
          },
          (res) => {
            res.resume()
            res.on('end', () => resolve(res.statusCode))
          },
        )
        req.on('error', reject)
        req.end(d.body)
      })
      expect(status).toBe(403)
      expect(app.requests).toHaveLength(0)
      await listener.printed(() => listener.stdout().includes('replays are accepted from loopback only'), 'the line')
    } finally {
      await listener.stop()
      await app.close()
    }
  })
})
