import {createSign, generateKeyPairSync} from 'node:crypto'
import {readFileSync, writeFileSync, existsSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {keySetFromText} from '../../src/webhooks/jwks.js'
import {decodeSignature, verifyWebhook} from '../../src/webhooks/verify.js'
import {parseJsonOutput, runBk, tempDir} from '../helpers/bk.js'
import {start, type RunningEmulator} from '../helpers/emulator.js'
import {
  FIXTURES,
  JWKS_FILE,
  OTHER_JWKS_FILE,
  deliveries,
  delivery,
  padded,
  recordingServer,
  type RecordingServer,
} from './helpers.js'

const {key} = keySetFromText(readFileSync(JWKS_FILE, 'utf8'), 'jwks.json')
const signWithFixtureKey = (text: string) =>
  createSign('sha256')
    .update(text, 'utf8')
    .sign(readFileSync(join(FIXTURES, 'key.pem'), 'utf8'), 'base64url')
const {key: otherKey} = keySetFromText(readFileSync(OTHER_JWKS_FILE, 'utf8'), 'other-jwks.json')

describe('verifyWebhook with signatures made outside bk (Python json.dumps + openssl)', () => {
  it.each(deliveries.map((d) => [d.name, d] as const))(
    'accepts the %s sample as sent, and as re-encoded by a receiver',
    (_n, d) => {
      expect(verifyWebhook({id: d.id, signature: d.signature, body: d.body, key})).toMatchObject({
        valid: true,
        as: 'raw',
      })
      const again = verifyWebhook({id: d.id, signature: d.signature, body: Buffer.from(d.received), key})
      // python-numbers was received with a key twice ("dup"): refused, never folded into what was signed.
      expect(again).toMatchObject(
        d.name === 'python-numbers' ? {valid: false, code: 'duplicate_key'} : {valid: true, as: 'python-json'},
      )
    },
  )

  it('accepts numbers re-encoded on the way (1.50 for 1.5, 1E5 for 100000.0) through their Python normalisation', () => {
    const body = '{"type": "ACCOUNT_BALANCE_UPDATED", "content": {"amount": 1.5, "scaled": 100000.0}}'
    const id = 'msg_numbers'
    const received = '{"type":"ACCOUNT_BALANCE_UPDATED","content":{"amount":1.50,"scaled":1E5}}'
    const result = verifyWebhook({id, signature: signWithFixtureKey(`${id}.${body}`), body: received, key})
    expect(result).toMatchObject({valid: true, as: 'python-json-numbers', signedBody: body})
  })

  it('refuses a body with a UTF-8 byte order mark rather than verifying what follows it', () => {
    const d = delivery('ascii')
    const result = verifyWebhook({id: d.id, signature: d.signature, body: '\uFEFF' + d.body, key})
    expect(result).toMatchObject({valid: false, code: 'mismatch'})
    expect(!result.valid && result.reason).toContain('byte order mark')
  })

  it('refuses a signed body with an earlier, attacker-chosen duplicate of "type", before any re-serialisation', () => {
    const body = '{"type": "TASK_REQUEST", "content": {"business_id": "biz_1", "task_types": ["other"]}}'
    const id = 'msg_dup'
    const signature = signWithFixtureKey(`${id}.${body}`)
    expect(verifyWebhook({id, signature, body, key})).toMatchObject({valid: true, as: 'raw'})
    const forged = '{"type": "BUSINESS_DEACTIVATED", ' + body.slice(1)
    const result = verifyWebhook({id, signature, body: forged, key})
    expect(result).toMatchObject({valid: false, code: 'duplicate_key'})
    expect(!result.valid && result.reason).toContain('"type" twice')
    // The same key twice deeper down is refused too.
    const nested = body.replace('"business_id": "biz_1"', '"business_id": "biz_evil", "business_id": "biz_1"')
    expect(verifyWebhook({id, signature, body: nested, key})).toMatchObject({valid: false, code: 'duplicate_key'})
  })

  it('accepts a padded signature and the PEM public key', () => {
    const d = delivery('emoji')
    expect(padded(d.signature)).not.toBe(d.signature)
    expect(verifyWebhook({id: d.id, signature: padded(d.signature), body: d.body, key}).valid).toBe(true)
    const pem = keySetFromText(readFileSync(join(FIXTURES, 'key.pub.pem'), 'utf8'), 'key.pub.pem')
    expect(verifyWebhook({id: d.id, signature: d.signature, body: d.body, key: pem.key}).valid).toBe(true)
  })

  it('rejects a tampered body, a wrong id, another key and a truncated signature, each with its reason', () => {
    const d = delivery('floats')
    const tampered = verifyWebhook({id: d.id, signature: d.signature, body: d.body.replace('1.0', '2.0'), key})
    expect(tampered).toMatchObject({valid: false, code: 'mismatch'})
    // A JS round trip of a genuine body loses 1.0 and is rightly not what was signed.
    expect(verifyWebhook({id: d.id, signature: d.signature, body: JSON.stringify(JSON.parse(d.body)), key}).valid).toBe(
      false,
    )
    expect(verifyWebhook({id: 'msg_fixture_00', signature: d.signature, body: d.body, key})).toMatchObject({
      valid: false,
      code: 'mismatch',
    })
    expect(verifyWebhook({id: d.id, signature: d.signature, body: d.body, key: otherKey})).toMatchObject({
      valid: false,
      code: 'mismatch',
    })
    const truncated = verifyWebhook({id: d.id, signature: d.signature.slice(0, -4), body: d.body, key})
    expect(truncated).toMatchObject({valid: false, code: 'wrong_length'})
    expect(verifyWebhook({id: d.id, signature: d.signature.replace(/.$/, '+'), body: d.body, key})).toMatchObject({
      valid: false,
      code: 'malformed_signature',
    })
    expect(verifyWebhook({id: '', signature: d.signature, body: d.body, key})).toMatchObject({
      valid: false,
      code: 'missing_id',
    })
  })

  it('refuses key sets with a 512-bit key or the exponent 1, naming why', () => {
    const {publicKey} = generateKeyPairSync('rsa', {modulusLength: 512})
    const small = JSON.stringify({keys: [publicKey.export({format: 'jwk'})]})
    expect(() => keySetFromText(small, 'small.json')).toThrow(
      /512-bit RSA key; webhook keys must have at least 2048 bits/,
    )
    expect(() => keySetFromText(publicKey.export({format: 'pem', type: 'spki'}) as string, 'small.pem')).toThrow(
      /512-bit/,
    )
    const jwk = JSON.parse(readFileSync(JWKS_FILE, 'utf8')).keys[0] as {n: string; e: string}
    // e=1: every "signature" s verifies as s itself, so anyone could forge one without a key.
    const one = JSON.stringify({keys: [{...jwk, e: 'AQ'}]})
    expect(() => keySetFromText(one, 'e1.json')).toThrow(/exponent e=1; webhook keys must use e=65537/)
  })

  it('decodes base64url with or without padding, and refuses other text', () => {
    expect(decodeSignature('AQAB')?.toString('hex')).toBe('010001')
    expect(decodeSignature('AQ')?.toString('hex')).toBe('01')
    expect(decodeSignature('AQ==')?.toString('hex')).toBe('01')
    expect(decodeSignature('AQ=')).toBeUndefined()
    expect(decodeSignature('A')).toBeUndefined()
    expect(decodeSignature('a+b/')).toBeUndefined()
  })
})

describe('bk webhooks verify', () => {
  const dir = tempDir()
  const bodyFile = (text: string) => {
    const file = join(dir, `body-${Math.random().toString(36).slice(2)}.json`)
    writeFileSync(file, text)
    return file
  }

  it('exits 0 for a valid delivery, from a file or stdin, and says how it matched', async () => {
    const d = delivery('non-ascii')
    const fromFile = await runBk([
      'webhooks',
      'verify',
      '--id',
      d.id,
      '--signature',
      d.signature,
      '--body',
      bodyFile(d.received),
      '--jwks',
      JWKS_FILE,
    ])
    expect(fromFile.code).toBe(0)
    expect(fromFile.stdout).toContain(`Valid signature for ${d.id}`)
    const fromStdin = await runBk(
      ['webhooks', 'verify', '--id', d.id, '--signature', padded(d.signature), '--jwks', JWKS_FILE, '--json'],
      {input: d.body},
    )
    expect(fromStdin.code).toBe(0)
    expect(parseJsonOutput(fromStdin)).toMatchObject({valid: true, id: d.id, verified_as: 'raw', key_id: 'fixture-key'})
  })

  it('exits 8 with the reason for an invalid one, never 1', async () => {
    const d = delivery('nested')
    const other = await runBk(
      ['webhooks', 'verify', '--id', d.id, '--signature', d.signature, '--jwks', OTHER_JWKS_FILE],
      {input: d.body},
    )
    expect(other.code).toBe(8)
    expect(other.stderr).toMatch(/Invalid signature: the signature does not match/)
    expect(other.stderr).toContain('Hint: Give the body exactly as it arrived')
    const truncated = await runBk(
      ['webhooks', 'verify', '--id', d.id, '--signature', d.signature.slice(0, 100), '--jwks', JWKS_FILE, '--json'],
      {input: d.body},
    )
    expect(truncated.code).toBe(8)
    expect(parseJsonOutput(truncated)).toMatchObject({code: 'invalid_signature', details: {reason: 'wrong_length'}})
  })

  it('exits 8 for a signed body given an earlier duplicate "type" key', async () => {
    const body = '{"type": "TASK_REQUEST", "content": {"business_id": "biz_1", "task_types": ["other"]}}'
    const signature = signWithFixtureKey(`msg_dup.${body}`)
    const args = ['webhooks', 'verify', '--id', 'msg_dup', '--signature', signature, '--jwks', JWKS_FILE, '--json']
    expect((await runBk(args, {input: body})).code).toBe(0)
    const forged = await runBk(args, {input: '{"type": "BUSINESS_DEACTIVATED", ' + body.slice(1)})
    expect(forged.code).toBe(8)
    expect(parseJsonOutput(forged)).toMatchObject({code: 'invalid_signature', details: {reason: 'duplicate_key'}})
  })

  it('exits 3 naming BK_BASE_URL and --jwks when there is no service to fetch the key set from', async () => {
    const d = delivery('ascii')
    const result = await runBk(['webhooks', 'verify', '--id', d.id, '--signature', d.signature], {input: d.body})
    expect(result.code).toBe(3)
    expect(result.stderr).toContain('BK_BASE_URL')
    expect(result.stderr).toContain('--jwks')
  })

  it('exits 2 for a missing body file or an unusable key set', async () => {
    const d = delivery('ascii')
    const missing = await runBk([
      'webhooks',
      'verify',
      '--id',
      d.id,
      '--signature',
      d.signature,
      '--body',
      join(dir, 'nope.json'),
      '--jwks',
      JWKS_FILE,
    ])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('nope.json')
    const badKeys = await runBk(
      ['webhooks', 'verify', '--id', d.id, '--signature', d.signature, '--jwks', bodyFile('{"keys": []}')],
      {input: d.body},
    )
    expect(badKeys.code).toBe(2)
    expect(badKeys.stderr).toContain('not a JSON Web Key Set')
  })
})

describe('signatures made by the emulator', () => {
  let emulator: RunningEmulator
  let app: RecordingServer
  beforeAll(async () => {
    app = await recordingServer()
    emulator = await start({webhookUrl: app.url, seed: 'empty'})
  })
  afterAll(async () => {
    await emulator.close()
    await app.close()
  })

  it('verify accepts a delivery with the key set fetched from the base URL, then cached', async () => {
    emulator.state.events.emit('ACCOUNT_BALANCE_UPDATED', {
      business_id: 'biz_x',
      note: 'Zoë 🧾',
      account_id: 'acc_1',
      rate: 1e-5,
      nested: {a: [1.5, null]},
    })
    await app.waitFor(1)
    const req = app.requests[0]!
    const id = req.headers['svc-id'] as string
    const signature = req.headers['svc-signature'] as string
    expect(req.body).toContain('\\u00eb \\ud83e\\uddfe')
    expect(req.body).toContain('"rate": 1e-05')
    const config = tempDir()
    const env = {BK_BASE_URL: emulator.baseUrl}
    const ok = await runBk(['webhooks', 'verify', '--id', id, '--signature', signature, '--json'], {
      input: req.body,
      env,
      configDir: config,
    })
    expect(ok.code).toBe(0)
    expect(parseJsonOutput(ok)).toMatchObject({
      valid: true,
      verified_as: 'raw',
      key_source: `${emulator.baseUrl}/.well-known/jwks.json`,
    })
    expect(existsSync(join(config, 'jwks-cache.json'))).toBe(true)
    const cached = await runBk(['webhooks', 'verify', '--id', id, '--signature', signature, '--json'], {
      input: req.body,
      env,
      configDir: config,
    })
    expect(parseJsonOutput<{key_source: string}>(cached).key_source).toMatch(/\(cached /)
    const tampered = await runBk(['webhooks', 'verify', '--id', id, '--signature', signature], {
      input: req.body.replace('biz_x', 'biz_y'),
      env,
      configDir: config,
    })
    expect(tampered.code).toBe(8)
  })

  it('fetches the key set again when a cached one does not verify (a rotated key)', async () => {
    emulator.state.events.emit('BUSINESS_CREATED', {business_id: 'biz_rot'})
    await app.waitFor(2)
    const req = app.requests[1]!
    const config = tempDir()
    const url = `${emulator.baseUrl}/.well-known/jwks.json`
    const stale = JSON.parse(readFileSync(OTHER_JWKS_FILE, 'utf8')) as unknown
    writeFileSync(
      join(config, 'jwks-cache.json'),
      JSON.stringify({[url]: {fetched_at: new Date().toISOString(), jwks: stale}}),
    )
    const result = await runBk(
      [
        'webhooks',
        'verify',
        '--id',
        req.headers['svc-id'] as string,
        '--signature',
        req.headers['svc-signature'] as string,
        '--json',
      ],
      {
        input: req.body,
        env: {BK_BASE_URL: emulator.baseUrl},
        configDir: config,
      },
    )
    expect(result.code).toBe(0)
    expect(parseJsonOutput<{key_source: string}>(result).key_source).toBe(url)
    const cache = JSON.parse(readFileSync(join(config, 'jwks-cache.json'), 'utf8')) as Record<
      string,
      {jwks: {keys: Array<{n: string}>}}
    >
    expect(cache[url]?.jwks.keys[0]?.n).not.toBe((stale as {keys: Array<{n: string}>}).keys[0]?.n)
  })

  it('jwks against a service that does not answer: a hint with no flag jwks lacks', async () => {
    const {createServer} = await import('node:net')
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as {port: number}).port
    await new Promise<void>((resolve) => server.close(() => resolve()))
    const result = await runBk(['webhooks', 'jwks', '--refresh'], {env: {BK_BASE_URL: `http://127.0.0.1:${port}`}})
    expect(result.code, result.stderr).toBe(7)
    expect(result.stderr).toContain('Could not fetch the webhook key set')
    expect(result.stderr).toContain(`Hint: Check that the service at http://127.0.0.1:${port} answers`)
    expect(result.stderr).not.toContain('--jwks')
  })

  it('jwks prints the key set whose first key verifies', async () => {
    const result = await runBk(['webhooks', 'jwks', '--json'], {env: {BK_BASE_URL: emulator.baseUrl}})
    expect(result.code).toBe(0)
    const jwks = parseJsonOutput<{keys: Array<{kty: string; n: string; e: string}>}>(result)
    expect(jwks.keys[0]).toMatchObject({kty: 'RSA', e: 'AQAB'})
    const published = (await (await fetch(`${emulator.baseUrl}/.well-known/jwks.json`)).json()) as {
      keys: Array<{n: string}>
    }
    expect(jwks.keys[0]?.n).toBe(published.keys[0]?.n)
  })
})
