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
  // One client, so one connection, for the token request and the API's: a command pays for one
  // TCP (and TLS) handshake. The token request carries no bearer token (auth: false). `api` is
  // defined below; the token source calls it only once a request needs a token.
  const tokens: TokenSource = credentials.accessToken
    ? new StaticToken(credentials.accessToken)
    : new ClientCredentialsTokens(
        () =>
          api.auth.token({
            clientId: credentials.clientId as string,
            clientSecret: secret as string,
            businessId: tokenBusiness,
            scope: credentials.scope,
          }),
        credentials.store && credentials.profileName
          ? new StoredTokenCache(credentials.store, credentials.profileName, tokenBusiness, credentials.scope)
          : undefined,
      )
  const client = new BkClient({...options, baseUrl: credentials.baseUrl, token: tokens, secrets})
  const api = new Api(client)
  return {
    api,
    client,
    credentials,
    tokens,
    close: () => client.close(),
  }
}
