/**
 * The key set that verifies webhooks: `{base_url}/.well-known/jwks.json`, cached in a file
 * under bk's config folder (`jwks-cache.json`, one entry per base URL, fresh for an hour), or
 * given with `--jwks FILE|URL` for offline use. The RSA public key is built from `n` and `e`
 * of the first key.
 */
import {createPublicKey, type KeyObject} from 'node:crypto'
import {mkdir, readFile, rename, writeFile} from 'node:fs/promises'
import {dirname, join} from 'node:path'

import {BkError, ConfigError, ExitCode, InputError} from '../errors.js'
import {validateBaseUrl} from '../auth/base-url.js'
import {JWKS_PATH} from '../spec.js'

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
}

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
  return {key, kid: typeof first.kid === 'string' ? first.kid : undefined, jwks: value as JwkSet}
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

async function fetchJwks(url: string, signal?: AbortSignal): Promise<unknown> {
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
  let status: number
  let text: string
  try {
    const res = await fetch(url, {
      headers: {accept: 'application/json'},
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      dispatcher: connection.dispatcher,
    })
    status = res.status
    text = await res.text()
  } catch (error) {
    const reason = (error as {cause?: unknown}).cause ?? error
    const caFile = trustedCa().files.find((f) => f.variable === 'BK_CA_FILE')?.file
    const failure = networkFailure(reason, target, connection.route, caFile)
    if (failure)
      throw new BkError(failure.message, {code: failure.code, exitCode: ExitCode.unavailable, hint: failure.hint})
    const cause = (reason as {code?: string}).code ?? (reason as Error).message
    throw new BkError(`Could not fetch the webhook key set from ${url} (${cause})`, {
      code: 'jwks_unavailable',
      exitCode: ExitCode.unavailable,
      hint: 'Pass --jwks FILE to verify offline.',
    })
  } finally {
    await connection.dispatcher.close().catch(() => {})
  }
  const res = {status}
  if (res.status !== 200) {
    throw new BkError(`Fetching the webhook key set from ${url} answered ${res.status}`, {
      code: 'jwks_unavailable',
      exitCode: ExitCode.unavailable,
      hint: 'Pass --jwks FILE to verify offline.',
    })
  }
  try {
    return JSON.parse(text)
  } catch {
    throw new BkError(`The key set at ${url} is not JSON`, {code: 'jwks_invalid', exitCode: ExitCode.unavailable})
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
    await mkdir(dirname(file), {recursive: true})
    const tmp = `${file}.${process.pid}.tmp`
    await writeFile(tmp, JSON.stringify(cache, null, 2) + '\n', {mode: 0o600})
    await rename(tmp, file)
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
  now?: () => number
  signal?: AbortSignal
}

export async function loadKeySet(options: LoadKeySetOptions): Promise<KeySet> {
  const now = options.now?.() ?? Date.now()
  if (options.jwks !== undefined) {
    if (/^https?:\/\//i.test(options.jwks)) {
      const url = validateBaseUrl(options.jwks, '--jwks URL')
      const parsed = keyFromJwks(await fetchJwks(url, options.signal), url)
      return {...parsed, source: url, refreshable: true, cached: false}
    }
    let text: string
    try {
      text = await readFile(options.jwks, 'utf8')
    } catch (error) {
      throw new InputError(
        `Cannot read --jwks file ${options.jwks}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      )
    }
    return {
      ...keySetFromText(text, `--jwks file ${options.jwks}`),
      source: options.jwks,
      refreshable: false,
      cached: false,
    }
  }
  if (!options.baseUrl) {
    throw new InputError('No key set: no profile or base URL to fetch it from', {
      hint: 'Pass --jwks FILE|URL, or set up a profile (`bk profiles add`) or BK_BASE_URL.',
    })
  }
  const url = options.baseUrl.replace(/\/+$/, '') + JWKS_PATH
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
        }
      } catch {
        // A damaged cache entry is fetched again.
      }
    }
  }
  const jwks = await fetchJwks(url, options.signal)
  const parsed = keyFromJwks(jwks, url)
  if (cacheFile) await writeCache(cacheFile, url, jwks, now)
  return {...parsed, source: url, refreshable: true, cached: false}
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
