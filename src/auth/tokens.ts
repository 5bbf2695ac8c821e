/**
 * Access tokens by the client-credentials grant, cached per (profile, business, scope) until
 * shortly before they expire. The API client calls `renew()` once when the service answers 401.
 */
import type {TokenSource} from '../api/client.js'
import type {TokenResponse} from '../api/schemas/auth.js'
import {ConfigError} from '../shared/errors.js'
import {secretKeys, type CredentialStore} from './credential-store.js'

export interface CachedToken {
  accessToken: string
  /** Epoch milliseconds after which the token must not be used. */
  expiresAt: number
}

/** Where a token provider keeps its token between runs (or nowhere, for env-only use). */
export interface TokenCache {
  load(): Promise<CachedToken | undefined>
  save(token: CachedToken): Promise<void>
}

/** Stop using a token this long before it expires: a tenth of its life, at most a minute. */
export function expiryMargin(lifetimeMs: number): number {
  return Math.min(60_000, lifetimeMs / 10)
}

export class ClientCredentialsTokens implements TokenSource {
  private current: CachedToken | undefined
  private inflight: Promise<string> | undefined

  constructor(
    private readonly fetchToken: () => Promise<TokenResponse>,
    private readonly cache: TokenCache | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  async get(): Promise<string> {
    if (this.current && this.current.expiresAt > this.now()) return this.current.accessToken
    const cached = await this.cache?.load().catch(() => undefined)
    if (cached && cached.expiresAt > this.now()) {
      this.current = cached
      return cached.accessToken
    }
    return this.renew()
  }

  /** Fetches a new token; concurrent callers share one request. */
  renew(): Promise<string> {
    this.inflight ??= this.fetchNew().finally(() => {
      this.inflight = undefined
    })
    return this.inflight
  }

  private async fetchNew(): Promise<string> {
    const res = await this.fetchToken()
    const lifetime = res.expires_in * 1000
    this.current = {accessToken: res.access_token, expiresAt: this.now() + lifetime - expiryMargin(lifetime)}
    // A cache that cannot be written costs a token request next time, nothing more.
    await this.cache?.save(this.current).catch(() => {})
    return res.access_token
  }
}

/** A token given as is (BK_ACCESS_TOKEN): used until the service refuses it. */
export class StaticToken implements TokenSource {
  constructor(private readonly token: string) {}
  async get(): Promise<string> {
    return this.token
  }

  async renew(): Promise<string> {
    throw new ConfigError('The access token from BK_ACCESS_TOKEN was refused and cannot be renewed', {
      code: 'token_expired',
      hint: 'Set a fresh BK_ACCESS_TOKEN (`bk auth token`), or use BK_CLIENT_ID and BK_CLIENT_SECRET instead.',
    })
  }
}

/** A profile's tokens, all in one credential-store entry, keyed by business and scope. */
export class StoredTokenCache implements TokenCache {
  private readonly key: string

  constructor(
    private readonly store: CredentialStore,
    profile: string,
    business: string | undefined,
    scope: string | undefined,
  ) {
    this.key = `${business ?? '*'}|${scope ?? '*'}`
    this.entry = secretKeys.tokens(profile)
  }

  private readonly entry: string

  async load(): Promise<CachedToken | undefined> {
    return (await this.readAll())[this.key]
  }

  async save(token: CachedToken): Promise<void> {
    const all = await this.readAll()
    const now = Date.now()
    for (const [k, v] of Object.entries(all)) if (v.expiresAt <= now) delete all[k]
    all[this.key] = token
    await this.store.set(this.entry, JSON.stringify(all))
  }

  private async readAll(): Promise<Record<string, CachedToken>> {
    const text = await this.store.get(this.entry)
    if (!text) return {}
    try {
      return JSON.parse(text) as Record<string, CachedToken>
    } catch {
      return {}
    }
  }
}
