import {issueToken} from '../auth.js'
import {HttpError, ok} from '../http.js'
import type {EmulatorContext} from './context.js'

/** POST /v0/auth/token: the client-credentials grant, form-encoded. */
export function register({router, state, options}: EmulatorContext): void {
  router.add('POST', '/v0/auth/token', (ctx) => {
    const type = String(ctx.headers['content-type'] ?? '')
    if (!type.includes('application/x-www-form-urlencoded')) {
      throw new HttpError(422, 'The token request must be application/x-www-form-urlencoded', {
        content_type: type || null,
      })
    }
    const form = new URLSearchParams(ctx.rawBody)
    const grantType = form.get('grant_type')
    if (grantType && grantType !== 'client_credentials')
      throw new HttpError(422, `Unsupported grant_type ${grantType}`, {grant_type: grantType})
    return ok(issueToken(state, form, {ttlSeconds: options.tokenTtlSeconds}))
  })
}
