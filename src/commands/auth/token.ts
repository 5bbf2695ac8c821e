import {BaseCommand} from '../../cli/base-command.js'
import {businessFlag} from '../../cli/flags.js'
import {InputError} from '../../shared/errors.js'

export interface AuthTokenResult {
  access_token: string
}

export default class AuthToken extends BaseCommand<typeof AuthToken> {
  static override summary = 'Print an access token for scripts (cached until shortly before it expires).'
  static override description =
    "The token is scoped to the profile's business and scopes, or to --business. This is the one command that prints a secret; keep its output out of logs."
  static override examples = [
    '$ TOKEN=$(<%= config.bin %> <%= command.id %>)',
    '<%= config.bin %> <%= command.id %> --business biz_123 --json',
  ]
  static override flags = {business: businessFlag()}

  async run(): Promise<AuthTokenResult> {
    const credentials = await this.credentials()
    // A business given anywhere is checked as every command checks it, before any request.
    if (credentials.businessId) await this.businessId()
    if (credentials.accessToken && this.flags.business)
      throw new InputError(
        `--business ${this.flags.business} cannot be applied to the access token from BK_ACCESS_TOKEN: bk prints a given token as it is and cannot re-scope it`,
        {
          code: 'token_not_rescoped',
          hint: `Unset BK_ACCESS_TOKEN (with BK_CLIENT_ID and BK_CLIENT_SECRET set, or a profile) to have bk obtain a token for ${this.flags.business}.`,
        },
      )
    const session = await this.session()
    const token = await session.tokens.get()
    const {revealSecret} = await import('../../api/redact.js')
    revealSecret(token)
    const {maskInLog} = await import('../../ci/mask.js')
    maskInLog(token)
    if (!this.jsonEnabled()) this.log(token)
    return {access_token: token}
  }
}
