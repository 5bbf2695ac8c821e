/**
 * A key set that can be refreshed: verification that fails is tried once more with a freshly
 * fetched key set (the service may have rotated its key), unless one was fetched in the last
 * 30 s; a key set read from the cache file counts as not fetched.
 */
import type {KeySet} from './jwks.js'
import {verifyWebhook, type VerifyInput, type VerifyResult} from './verify.js'

export interface KeyProvider {
  current(): Promise<KeySet>
  /** A freshly fetched key set, or undefined when it cannot be refreshed or was moments ago. */
  refresh(): Promise<KeySet | undefined>
}

const MIN_REFRESH_INTERVAL_MS = 30_000

/** `load(refresh)` loads the key set, skipping any cache when `refresh` is true. */
export function keyProvider(
  load: (refresh: boolean) => Promise<KeySet>,
  minIntervalMs = MIN_REFRESH_INTERVAL_MS,
): KeyProvider {
  let current: Promise<KeySet> | undefined
  let lastRefresh = 0
  return {
    current() {
      if (!current) {
        current = load(false)
        // A key set fetched just now is as fresh as it gets: no refetch within the interval.
        current.then(
          (keys) => {
            if (!keys.cached) lastRefresh = Date.now()
          },
          () => {
            current = undefined
          },
        )
      }
      return current
    },
    async refresh() {
      const keys = await this.current().catch(() => undefined)
      if (keys && !keys.refreshable) return undefined
      if (Date.now() - lastRefresh < minIntervalMs) return undefined
      lastRefresh = Date.now()
      const fresh = load(true)
      await fresh
      current = fresh
      return fresh
    },
  }
}

export type VerifyWithKeysResult = VerifyResult & {keys: KeySet}

/** Verifies with the current key set, and once more with a fresh one when that fails. */
export async function verifyWithKeys(
  input: Omit<VerifyInput, 'key'>,
  keys: KeyProvider,
): Promise<VerifyWithKeysResult> {
  const first = await keys.current()
  const result = verifyWebhook({...input, key: first.key})
  if (result.valid || result.code === 'missing_id' || result.code === 'malformed_signature')
    return {...result, keys: first}
  const fresh = await keys.refresh().catch(() => undefined)
  if (!fresh || fresh.jwks.keys[0]?.n === first.jwks.keys[0]?.n) return {...result, keys: first}
  return {...verifyWebhook({...input, key: fresh.key}), keys: fresh}
}

/** The keys of `verify` and `listen`: the --jwks key set when given, else the service's (cached). */
export async function webhookKeys(options: {
  jwks?: string | undefined
  credentials: () => Promise<{baseUrl: string}>
  configDir: string
}): Promise<KeyProvider> {
  const {keySetBaseUrl, loadKeySet} = await import('./jwks.js')
  const baseUrl = options.jwks === undefined ? await keySetBaseUrl(options.credentials) : undefined
  return keyProvider((refresh) => loadKeySet({jwks: options.jwks, baseUrl, configDir: options.configDir, refresh}))
}
