/**
 * Wires resolved credentials to a ready API: the transport, the token source and its cache.
 */
import {Api} from '../api/api.js'
import {BkClient, type ClientOptions, type TokenSource} from '../api/client.js'
import type {ResolvedCredentials} from './resolve.js'
import {ClientCredentialsTokens, StaticToken, StoredTokenCache} from './tokens.js'

export interface Session {
  api: Api
  client: BkClient
  credentials: ResolvedCredentials
  tokens: TokenSource
  close(): Promise<void>
}

export type SessionOptions = Omit<ClientOptions, 'baseUrl' | 'token'> & {
  /** Tenant-level commands ask for a token not limited to the default business. */
  tenantLevel?: boolean | undefined
}

export async function openSession(
  credentials: ResolvedCredentials,
  sessionOptions: SessionOptions = {},
): Promise<Session> {
  const {tenantLevel, ...options} = sessionOptions
  const tokenBusiness = tenantLevel ? undefined : credentials.businessId
  const secret = credentials.clientSecret ? await credentials.clientSecret() : undefined
  const secrets = [secret, credentials.accessToken, ...(options.secrets ?? [])]
  let tokens: TokenSource
  // The token endpoint is called through a client of its own: it carries no bearer token.
  const tokenClient = new BkClient({...options, baseUrl: credentials.baseUrl, secrets})
  if (credentials.accessToken) {
    tokens = new StaticToken(credentials.accessToken)
  } else {
    const clientId = credentials.clientId as string
    const cache =
      credentials.store && credentials.profileName
        ? new StoredTokenCache(credentials.store, credentials.profileName, tokenBusiness, credentials.scope)
        : undefined
    const tokenApi = new Api(tokenClient)
    tokens = new ClientCredentialsTokens(
      () =>
        tokenApi.auth.token({
          clientId,
          clientSecret: secret as string,
          businessId: tokenBusiness,
          scope: credentials.scope,
        }),
      cache,
    )
  }
  const client = new BkClient({...options, baseUrl: credentials.baseUrl, token: tokens, secrets})
  return {
    api: new Api(client),
    client,
    credentials,
    tokens,
    async close() {
      await Promise.all([client.close(), tokenClient.close()])
    },
  }
}
