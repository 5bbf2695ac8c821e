/**
 * The emulator's webhook signing key: an RSA key generated at start (in the background, so
 * start-up does not wait for it) or loaded from a PEM file, its public half published as a
 * JSON Web Key Set, and RSASSA-PKCS1-v1_5 SHA-256 signatures in base64url without padding.
 */
import {createHash, createPrivateKey, createPublicKey, createSign, generateKeyPair, type KeyObject} from 'node:crypto'
import {readFileSync} from 'node:fs'

export interface PublicJwk {
  kty: 'RSA'
  n: string
  e: string
  kid: string
  alg: 'RS256'
  use: 'sig'
}

const KEY_HINT =
  'Give --key a PEM file of an RSA private key (openssl genpkey -algorithm RSA -out key.pem), or leave --key out for a key made at start.'

/** A signing key that cannot be used, said for the person who gave it (`bk emulator start` exits 2). */
export class SigningKeyError extends Error {
  readonly code = 'signing_key_unusable'
  readonly hint = KEY_HINT
  constructor(message: string) {
    super(message)
    this.name = 'SigningKeyError'
  }
}

export class WebhookSigner {
  private readonly keyPromise: Promise<KeyObject>
  private jwksPromise: Promise<{keys: PublicJwk[]}> | undefined

  /** When this key came into use (ms): a listener's key set fetched before it is out of date. */
  readonly since = Date.now()

  /**
   * Reads `keyFile` now (a bad file fails the start), or uses `pem` (a key saved with the
   * emulator's state), or starts generating a 2048-bit key.
   */
  constructor(keyFile?: string, pem?: string) {
    if (keyFile || pem) {
      const origin = keyFile ?? 'the key saved in the state file'
      let text: string
      try {
        text = keyFile ? readFileSync(keyFile, 'utf8') : (pem as string)
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        throw new SigningKeyError(
          code === 'ENOENT'
            ? `The webhook signing key ${keyFile} does not exist`
            : `Cannot read the webhook signing key ${keyFile} (${code ?? (error as Error).message})`,
        )
      }
      let key: KeyObject
      try {
        key = createPrivateKey(text)
      } catch {
        // OpenSSL's own words (DECODER routines::unsupported) tell a person nothing more.
        throw new SigningKeyError(`${origin} is not a PEM private key, so it cannot sign webhooks`)
      }
      if (key.asymmetricKeyType !== 'rsa')
        throw new SigningKeyError(`${origin} holds a ${key.asymmetricKeyType} key; webhooks are signed with RSA`)
      this.keyPromise = Promise.resolve(key)
    } else {
      this.keyPromise = new Promise((resolve, reject) => {
        generateKeyPair('rsa', {modulusLength: 2048}, (error, _publicKey, privateKey) =>
          error ? reject(error) : resolve(privateKey),
        )
      })
    }
    this.keyPromise.catch(() => {})
  }

  /** The published key set: one RSA key with a RFC 7638 thumbprint as its kid. */
  jwks(): Promise<{keys: PublicJwk[]}> {
    this.jwksPromise ??= this.keyPromise.then((key) => {
      const {n, e} = createPublicKey(key).export({format: 'jwk'}) as {n: string; e: string}
      const kid = createHash('sha256').update(`{"e":"${e}","kty":"RSA","n":"${n}"}`).digest('base64url')
      return {keys: [{kty: 'RSA', n, e, kid, alg: 'RS256', use: 'sig'}]}
    })
    return this.jwksPromise
  }

  /** The private key as PKCS#8 PEM, for the state file. */
  async pem(): Promise<string> {
    return (await this.keyPromise).export({format: 'pem', type: 'pkcs8'}) as string
  }

  /** base64url (unpadded) RSASSA-PKCS1-v1_5 SHA-256 signature of `id + "." + body`. */
  async sign(id: string, body: string): Promise<string> {
    const key = await this.keyPromise
    return createSign('sha256').update(`${id}.${body}`, 'utf8').sign(key, 'base64url')
  }
}
