/**
 * A key set that follows key changes: when a delivery does not verify and the key set in hand
 * was fetched before that delivery arrived, the key set is fetched again (a conditional request,
 * answered 304 when the key has not changed since) and the delivery tried once more. A service
 * (or an emulator restarted with a new key) is so picked up at the first delivery it signs.
 *
 * Fetches are rate-limited per source: never two within `minIntervalMs`. A failure that comes
 * inside that window waits for it (every failure waiting shares the one fetch), so a stream of
 * forged deliveries costs one fetch every few seconds, and a genuine delivery just after a key
 * change still verifies. A key set read from the cache file counts as fetched when the cache
 * says it was.
 */
import type {KeySet} from './jwks.js'
import {verifyWebhook, type VerifyInput, type VerifyResult} from './verify.js'

export interface KeyProvider {
  current(): Promise<KeySet>
  /**
   * A key set fetched at or after `since` (ms since the epoch): the current one when it is, else
   * a fresh fetch (waiting for the rate limit); undefined when it cannot be refreshed (a file).
   */
  fetchedSince(since: number): Promise<KeySet | undefined>
}

export const MIN_REFRESH_INTERVAL_MS = 3_000

/** `load(previous)` loads the key set: from the cache when `previous` is undefined, else fetched (conditionally on it). */
export function keyProvider(
  load: (previous: KeySet | undefined) => Promise<KeySet>,
  minIntervalMs = MIN_REFRESH_INTERVAL_MS,
  now: () => number = Date.now,
): KeyProvider {
  let current: Promise<KeySet> | undefined
  /** When the last fetch started (ms), and the fetch under way or waiting for its turn. */
  let lastFetchAt = Number.NEGATIVE_INFINITY
  let next: Promise<KeySet> | undefined
  const provider: KeyProvider = {
    current() {
      if (!current) {
        const started = now()
        current = load(undefined)
        current.then(
          (keys) => {
            if (!keys.cached) lastFetchAt = Math.max(lastFetchAt, started)
          },
          () => {
            current = undefined
          },
        )
      }
      return current
    },
    async fetchedSince(since) {
      const keys = await provider.current()
      if (!keys.refreshable) return undefined
      if (keys.fetchedAt >= since) return keys
      if (!next) {
        const wait = Math.max(0, lastFetchAt + minIntervalMs - now())
        next = (async () => {
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
          lastFetchAt = now()
          const previous = await provider.current().catch(() => undefined)
          const fresh = await load(previous)
          current = Promise.resolve(fresh)
          return fresh
        })().finally(() => {
          next = undefined
        })
      }
      return next
    },
  }
  return provider
}

export type VerifyWithKeysResult = VerifyResult & {keys: KeySet}

/**
 * Verifies with the current key set and, when that fails on the signature and the key set is
 * older than the delivery (`receivedAt`, ms), once more with one fetched since.
 */
export async function verifyWithKeys(
  input: Omit<VerifyInput, 'key'>,
  keys: KeyProvider,
  receivedAt: number = Date.now(),
): Promise<VerifyWithKeysResult> {
  const first = await keys.current()
  const result = verifyWebhook({...input, key: first.key})
  if (result.valid || (result.code !== 'mismatch' && result.code !== 'wrong_length')) return {...result, keys: first}
  if (first.fetchedAt >= receivedAt) return {...result, keys: first}
  const fresh = await keys.fetchedSince(receivedAt).catch(() => undefined)
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
  return keyProvider((previous) =>
    loadKeySet({jwks: options.jwks, baseUrl, configDir: options.configDir, refresh: previous !== undefined, previous}),
  )
}
