import type {BkClient} from '../client.js'
import type {TokenResponse} from '../schemas/auth.js'

export interface TokenRequest {
  clientId: string
  clientSecret: string
  businessId?: string | undefined
  /** Space-separated scope names. */
  scope?: string | undefined
}

export class Auth {
  constructor(private readonly client: BkClient) {}

  /** The client-credentials grant at POST /v0/auth/token. */
  async token(request: TokenRequest): Promise<TokenResponse> {
    const {tokenResponse} = await import('../schemas/auth.js')
    const res = await this.client.request({
      method: 'POST',
      path: '/v0/auth/token',
      auth: false,
      schema: tokenResponse,
      // Asking for a token twice is harmless, so a lost answer is simply asked again.
      retrySafe: true,
      form: {
        grant_type: 'client_credentials',
        client_id: request.clientId,
        client_secret: request.clientSecret,
        business_id: request.businessId,
        scope: request.scope,
      },
    })
    return res.data
  }
}
