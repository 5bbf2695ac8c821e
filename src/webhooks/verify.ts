/**
 * Webhook signature verification, exactly as the spec says (Events, "Headers and signature"):
 * RSASSA-PKCS1-v1_5 with SHA-256 over the UTF-8 text `svc-id + "." + body`, the signature
 * base64url with or without padding.
 *
 * The body is tried as received first (the raw bytes), then as Python's json.dumps would have
 * written it, re-serialised from the raw JSON text (never through JSON.parse + JSON.stringify,
 * which turns 1.0 into 1 and escapes into raw characters), then, when it differs, with numbers
 * normalised as json.loads + json.dumps would.
 *
 * A body that holds a key twice in one object is refused before any re-serialisation: folding
 * the copies into one (as json.loads does) could make an attacker's earlier copy of `type` verify
 * against the signed text, while the user's app, reading the body it is given, takes the first.
 * The result carries the text that was signed: that, not the body received, is what to act on.
 */
import {createVerify, type KeyObject} from 'node:crypto'

import {firstDuplicateKey, JsonSyntaxError, parseJsonTree} from '../shared/exact-json.js'
import {pythonJsonFromTree} from '../shared/python-json.js'

export type VerifiedAs = 'raw' | 'python-json' | 'python-json-numbers'

export type VerifyResult =
  | {
      valid: true
      as: VerifiedAs
      /** `svc-id + "." + body` as signed. */
      signedText: string
      /** The body as signed: the body received, or its re-serialisation that verified. */
      signedBody: string
    }
  | {
      valid: false
      reason: string
      code: 'missing_id' | 'malformed_signature' | 'wrong_length' | 'mismatch' | 'duplicate_key'
    }

/** The signature bytes from base64url text, padded or not; undefined when the text is not base64url. */
export function decodeSignature(text: string): Buffer | undefined {
  const trimmed = text.trim()
  const unpadded = trimmed.replace(/={1,2}$/, '')
  if (!/^[A-Za-z0-9_-]+$/.test(unpadded) || unpadded.length % 4 === 1) return undefined
  // With padding present it must be the right amount.
  if (unpadded !== trimmed && trimmed.length % 4 !== 0) return undefined
  return Buffer.from(unpadded, 'base64url')
}

function verifyBytes(key: KeyObject, signature: Buffer, data: Buffer): boolean {
  const v = createVerify('sha256')
  v.update(data)
  return v.verify(key, signature)
}

export interface VerifyInput {
  /** The svc-id header. */
  id: string
  /** The svc-signature header. */
  signature: string
  /** The body exactly as received. */
  body: Buffer | string
  key: KeyObject
}

export function verifyWebhook(input: VerifyInput): VerifyResult {
  const {id, key} = input
  if (!id) return {valid: false, code: 'missing_id', reason: 'the svc-id is empty'}
  const signature = decodeSignature(input.signature)
  if (!signature) return {valid: false, code: 'malformed_signature', reason: 'the signature is not base64url text'}
  const modulusBytes = Math.ceil((key.asymmetricKeyDetails?.modulusLength ?? signature.length * 8) / 8)
  if (signature.length !== modulusBytes) {
    return {
      valid: false,
      code: 'wrong_length',
      reason: `the signature is ${signature.length} bytes long; the key's signatures are ${modulusBytes} bytes (truncated or not for this key)`,
    }
  }
  const body = typeof input.body === 'string' ? Buffer.from(input.body, 'utf8') : input.body
  const prefix = Buffer.from(id + '.', 'utf8')
  if (verifyBytes(key, signature, Buffer.concat([prefix, body]))) {
    const signedBody = body.toString('utf8')
    return {valid: true, as: 'raw', signedText: id + '.' + signedBody, signedBody}
  }
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) {
    // A byte order mark is no part of any JSON the service signs; refused rather than dropped.
    return {
      valid: false,
      code: 'mismatch',
      reason:
        'the signature does not match the body as received, and the body starts with a UTF-8 byte order mark, which no signed body has: refused',
    }
  }
  let text: string
  try {
    // ignoreBOM keeps the text exactly the bytes received, so what was tried raw is not tried again as is.
    text = new TextDecoder('utf-8', {fatal: true, ignoreBOM: true}).decode(body)
  } catch {
    return {
      valid: false,
      code: 'mismatch',
      reason: 'the signature does not match the body as received, and the body is not UTF-8 text to re-serialise',
    }
  }
  let tree
  try {
    tree = parseJsonTree(text)
  } catch (error) {
    const why = error instanceof JsonSyntaxError ? error.message : String(error)
    return {
      valid: false,
      code: 'mismatch',
      reason: `the signature does not match the body as received, and the body is not JSON (${why})`,
    }
  }
  const duplicate = firstDuplicateKey(tree)
  if (duplicate) {
    return {
      valid: false,
      code: 'duplicate_key',
      reason: `the signature does not match the body as received, and the body holds the key "${duplicate.key}" twice in one object (${duplicate.path}): refused rather than re-serialised, since readers disagree on which copy counts`,
    }
  }
  const tried = new Set([text])
  for (const [as, numbers] of [
    ['python-json', 'literal'],
    ['python-json-numbers', 'python'],
  ] as const) {
    const serialised = pythonJsonFromTree(tree, {numbers})
    if (tried.has(serialised)) continue
    tried.add(serialised)
    if (verifyBytes(key, signature, Buffer.from(id + '.' + serialised, 'utf8')))
      return {valid: true, as, signedText: id + '.' + serialised, signedBody: serialised}
  }
  return {
    valid: false,
    code: 'mismatch',
    reason:
      'the signature does not match: neither the body as received nor its Python json.dumps serialisation was signed with this key under this svc-id',
  }
}
