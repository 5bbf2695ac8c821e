/**
 * The key set that verifies webhooks: `{base_url}/.well-known/jwks.json`, cached in a file
 * under bk's config folder (`jwks-cache.json`, one entry per base URL, fresh for an hour), or
 * given with `--jwks FILE|URL` for offline use. The RSA public key is built from `n` and `e`
 * of the first key.
 *
 * A key set decides what verifies, so where it comes from is checked: https only (http on a
 * loopback address, the emulator, excepted), a redirect followed only within the same origin
 * (scheme, host and port), and an RSA key of at least 2048 bits with the exponent 65537 (a
 * small exponent such as e=1 makes "signatures" anyone can compute verify).
 */
import {createPublicKey, type KeyObject} from 'node:crypto'
import {readFile} from 'node:fs/promises'
import {join} from 'node:path'

import {BkError, ConfigError, ExitCode, InputError} from '../shared/errors.js'
import {validateBaseUrl} from '../auth/base-url.js'
import {unreadableBecause, unreadableHint} from '../files/file-errors.js'
import {replacePrivateFile} from '../files/private-file.js'
import {JWKS_PATH} from '../shared/spec.js'

export interface Jwk {
  kty: string
  n: string
  e: string
  kid?: string
  [field: string]: unknown
}

export interface JwkSet {
  keys: Jwk[]
}

export interface KeySet {
  jwks: JwkSet
  key: KeyObject
  kid: string | undefined
  /** Where the key set came from, for messages. */
  source: string
  /** Whether a fresher copy could be fetched (from the cache or the network, not a file). */
  refreshable: boolean
  /** Whether it came from the cache file rather than a fetch just now. */
  cached: boolean
  /** When it was fetched (ms since the epoch; for a cached copy, as the cache says; 0 for a file). */
  fetchedAt: number
  /** The ETag the server sent with it, for a conditional re-fetch. */
  etag?: string | undefined
}

/** The weakest RSA key accepted: 2048 bits (NIST SP 800-131A), the exponent 65537. */
export const MIN_RSA_BITS = 2048
export const RSA_EXPONENT = 65537n
const MAX_REDIRECTS = 3

const CACHE_FILE = 'jwks-cache.json'
const CACHE_TTL_MS = 60 * 60 * 1000
const FETCH_TIMEOUT_MS = 10_000

/** The public key of the first key of a key set; throws a message naming what is wrong. */
export function keyFromJwks(value: unknown, origin: string): {key: KeyObject; kid: string | undefined; jwks: JwkSet} {
  const keys = (value as {keys?: unknown} | null)?.keys
  if (!Array.isArray(keys) || keys.length === 0)
    throw new InputError(`${origin} is not a JSON Web Key Set: expected {"keys": [...]} with at least one key`)
  const first = keys[0] as Partial<Jwk> | null
  if (!first || first.kty !== 'RSA' || typeof first.n !== 'string' || typeof first.e !== 'string') {
    throw new InputError(`The first key of ${origin} is not an RSA key with "n" and "e"`)
  }
  let key: KeyObject
  try {
    key = createPublicKey({key: {kty: 'RSA', n: first.n, e: first.e}, format: 'jwk'})
  } catch (error) {
    throw new InputError(`The first key of ${origin} is not a usable RSA key: ${(error as Error).message}`)
  }
  checkStrength(key, `The first key of ${origin}`)
  return {key, kid: typeof first.kid === 'string' ? first.kid : undefined, jwks: value as JwkSet}
}

/** Refuses an RSA key too short to trust, or with an exponent other than 65537. */
function checkStrength(key: KeyObject, what: string): void {
  const details = key.asymmetricKeyDetails
  const bits = details?.modulusLength ?? 0
  const exponent = details?.publicExponent
  if (bits < MIN_RSA_BITS)
    throw new InputError(`${what} is a ${bits}-bit RSA key; webhook keys must have at least ${MIN_RSA_BITS} bits`, {
      code: 'weak_key',
      hint: 'A key this short can be factored; bk will not trust signatures made with it.',
    })
  if (exponent !== RSA_EXPONENT)
    throw new InputError(
      `${what} has the RSA exponent e=${String(exponent)}; webhook keys must use e=${RSA_EXPONENT} (a small exponent lets anyone forge a signature that verifies)`,
      {code: 'weak_key'},
    )
}

/** A JWKS, a single JWK, or a PEM public key (or certificate), as text. */
export function keySetFromText(text: string, origin: string): {key: KeyObject; kid: string | undefined; jwks: JwkSet} {
  const trimmed = text.trim()
  if (trimmed.startsWith('-----BEGIN')) {
    let key: KeyObject
    try {
      key = createPublicKey(trimmed)
    } catch (error) {
      throw new InputError(`${origin} is not a PEM public key: ${(error as Error).message}`)
    }
    if (key.asymmetricKeyType !== 'rsa')
      throw new InputError(`${origin} holds a ${key.asymmetricKeyType} key; webhooks are signed with RSA`)
    checkStrength(key, origin)
    const jwk = key.export({format: 'jwk'}) as Jwk
    return {key, kid: undefined, jwks: {keys: [jwk]}}
  }
  let value: unknown
  try {
    value = JSON.parse(trimmed)
  } catch (error) {
    throw new InputError(`${origin} is neither JSON nor a PEM key: ${(error as Error).message}`)
  }
  if (value && typeof value === 'object' && !Array.isArray(value) && 'kty' in value) value = {keys: [value]}
  return keyFromJwks(value, origin)
}

/** What a fetch of the key set brought: the key set, or `notModified` for a conditional fetch answered 304. */
type Fetched = {notModified: true} | {notModified: false; jwks: unknown; etag: string | undefined}

const unavailable = (message: string, code = 'jwks_unavailable') =>
  new BkError(message, {code, exitCode: ExitCode.unavailable, hint: 'Pass --jwks FILE to verify offline.'})

/**
 * GET of the key set, following a redirect only within the same origin (never to plain http,
 * another host or another port), with If-None-Match when an ETag is known.
 */
async function fetchJwks(
  url: string,
  options: {signal?: AbortSignal | undefined; etag?: string | undefined} = {},
): Promise<Fetched> {
  let target = url
  for (let hop = 0; ; hop++) {
    const res = await getOnce(target, options)
    if (res.status >= 300 && res.status < 400 && res.status !== 304) {
      const location = res.location
      if (!location)
        throw unavailable(`Fetching the webhook key set from ${target} answered ${res.status} with no Location`)
      let next: URL
      try {
        next = new URL(location, target)
      } catch {
        throw unavailable(`Fetching the webhook key set from ${target} redirected to an invalid URL`)
      }
      if (next.origin !== new URL(url).origin) {
        throw new BkError(
          `Refusing the webhook key set: ${target} redirected to ${next.origin}, another origin (scheme, host or port) than ${new URL(url).origin}`,
          {
            code: 'jwks_redirect_refused',
            exitCode: ExitCode.unavailable,
            hint: 'A key set decides which signatures verify, so bk fetches it only from the service itself. Point the base URL (or --jwks) at the final https address.',
          },
        )
      }
      if (hop >= MAX_REDIRECTS)
        throw unavailable(`Fetching the webhook key set from ${url}: more than ${MAX_REDIRECTS} redirects`)
      target = next.toString()
      continue
    }
    if (res.status === 304 && options.etag) return {notModified: true}
    if (res.status !== 200) throw unavailable(`Fetching the webhook key set from ${target} answered ${res.status}`)
    try {
      return {notModified: false, jwks: JSON.parse(res.text), etag: res.etag}
    } catch {
      throw unavailable(`The key set at ${target} is not JSON`, 'jwks_invalid')
    }
  }
}

async function getOnce(
  url: string,
  options: {signal?: AbortSignal | undefined; etag?: string | undefined},
): Promise<{status: number; text: string; location?: string | undefined; etag?: string | undefined}> {
  const timeout = AbortSignal.timeout(FETCH_TIMEOUT_MS)
  const [{fetch}, {connectionFor}, {networkFailure}, {trustedCa}] = await Promise.all([
    import('undici'),
    import('../net/dispatcher.js'),
    import('../net/failure.js'),
    import('../net/ca.js'),
  ])
  // Through the proxy the environment names for this URL, trusting BK_CA_FILE, like every request.
  const target = new URL(url)
  const connection = connectionFor(target, {connections: 1, anyOrigin: true})
  try {
    const res = await fetch(url, {
      headers: {accept: 'application/json', ...(options.etag ? {'if-none-match': options.etag} : {})},
      signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
      dispatcher: connection.dispatcher,
      redirect: 'manual',
    })
    return {
      status: res.status,
      text: await res.text(),
      location: res.headers.get('location') ?? undefined,
      etag: res.headers.get('etag') ?? undefined,
    }
  } catch (error) {
    const reason = (error as {cause?: unknown}).cause ?? error
    const caFile = trustedCa().files.find((f) => f.variable === 'BK_CA_FILE')?.file
    const failure = networkFailure(reason, target, connection.route, caFile)
    if (failure)
      throw new BkError(failure.message, {code: failure.code, exitCode: ExitCode.unavailable, hint: failure.hint})
    const cause = (reason as {code?: string}).code ?? (reason as Error).message
    throw unavailable(`Could not fetch the webhook key set from ${url} (${cause})`)
  } finally {
    await connection.dispatcher.close().catch(() => {})
  }
}

interface CacheEntry {
  fetched_at: string
  jwks: unknown
}

async function readCache(file: string): Promise<Record<string, CacheEntry>> {
  try {
    const value = JSON.parse(await readFile(file, 'utf8')) as unknown
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, CacheEntry>) : {}
  } catch {
    return {}
  }
}

async function writeCache(file: string, url: string, jwks: unknown, now: number): Promise<void> {
  try {
    const cache = await readCache(file)
    cache[url] = {fetched_at: new Date(now).toISOString(), jwks}
    await replacePrivateFile(file, JSON.stringify(cache, null, 2) + '\n')
  } catch {
    // A cache that cannot be written only costs a fetch next time.
  }
}

export interface LoadKeySetOptions {
  /** --jwks: a file path or an http(s) URL; when given, neither the base URL nor the cache is used. */
  jwks?: string | undefined
  /** The service's base URL (from the profile or the environment). */
  baseUrl?: string | undefined
  /** bk's config folder, where the cache file lives; no cache when undefined. */
  configDir?: string | undefined
  /** Skip the cache and fetch. */
  refresh?: boolean
  /** The key set in hand: fetched again conditionally on its ETag (kept when answered 304). */
  previous?: KeySet | undefined
  now?: () => number
  signal?: AbortSignal
}

export async function loadKeySet(options: LoadKeySetOptions): Promise<KeySet> {
  const now = options.now?.() ?? Date.now()
  if (options.jwks !== undefined) {
    if (/^https?:\/\//i.test(options.jwks)) {
      const url = validateBaseUrl(options.jwks, '--jwks URL')
      return fetchKeySet(url, options, now)
    }
    let text: string
    try {
      text = await readFile(options.jwks, 'utf8')
    } catch (error) {
      throw new InputError(`Cannot read --jwks file ${options.jwks}: ${unreadableBecause(error)}`, {
        hint: unreadableHint(options.jwks, error),
      })
    }
    return {
      ...keySetFromText(text, `--jwks file ${options.jwks}`),
      source: options.jwks,
      refreshable: false,
      cached: false,
      fetchedAt: 0,
    }
  }
  if (!options.baseUrl) {
    throw new InputError('No key set: no profile or base URL to fetch it from', {
      hint: 'Pass --jwks FILE|URL, or set up a profile (`bk profiles add`) or BK_BASE_URL.',
    })
  }
  const url = validateBaseUrl(options.baseUrl, 'base URL').replace(/\/+$/, '') + JWKS_PATH
  const cacheFile = options.configDir ? join(options.configDir, CACHE_FILE) : undefined
  if (cacheFile && !options.refresh) {
    const entry = (await readCache(cacheFile))[url]
    const age = entry ? now - Date.parse(entry.fetched_at) : Number.POSITIVE_INFINITY
    if (entry && age >= 0 && age < CACHE_TTL_MS) {
      try {
        return {
          ...keyFromJwks(entry.jwks, `the cached key set of ${url}`),
          source: `${url} (cached ${entry.fetched_at})`,
          refreshable: true,
          cached: true,
          fetchedAt: Date.parse(entry.fetched_at),
        }
      } catch {
        // A damaged cache entry is fetched again.
      }
    }
  }
  return fetchKeySet(url, options, now, cacheFile)
}

async function fetchKeySet(url: string, options: LoadKeySetOptions, now: number, cacheFile?: string): Promise<KeySet> {
  const previous = options.previous?.source.startsWith(url) ? options.previous : undefined
  const fetched = await fetchJwks(url, {signal: options.signal, etag: previous?.etag})
  if (fetched.notModified && previous) return {...previous, source: url, cached: false, fetchedAt: now}
  if (fetched.notModified) throw unavailable(`Fetching the webhook key set from ${url} answered 304 to a plain request`)
  const parsed = keyFromJwks(fetched.jwks, url)
  if (cacheFile) await writeCache(cacheFile, url, fetched.jwks, now)
  return {...parsed, source: url, refreshable: true, cached: false, fetchedAt: now, etag: fetched.etag}
}

/**
 * The base URL whose key set to use: the resolved profile's (or environment's); with no usable
 * credentials, BK_BASE_URL alone is enough, since the key set needs no token.
 */
export async function keySetBaseUrl(
  credentials: () => Promise<{baseUrl: string}>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  try {
    return (await credentials()).baseUrl
  } catch (error) {
    if (env.BK_BASE_URL && !env.BK_PROFILE) return validateBaseUrl(env.BK_BASE_URL, 'BK_BASE_URL')
    if (error instanceof BkError && error.code === 'no_credentials') {
      throw new ConfigError(
        'No service to fetch the webhook key set from: no profile is set up and BK_BASE_URL is not set',
        {
          code: 'no_credentials',
          hint: 'Set BK_BASE_URL (the key set needs no token), set up a profile with `bk profiles add`, or verify offline with --jwks FILE (saved with `bk webhooks jwks > jwks.json`).',
        },
      )
    }
    throw error
  }
}
