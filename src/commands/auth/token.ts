import {BaseCommand} from '../../cli/base-command.js'
import {businessFlag} from '../../cli/flags.js'

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
