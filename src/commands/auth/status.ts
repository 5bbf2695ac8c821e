import {BaseCommand} from '../../cli/base-command.js'
import {BkError, ExitCode} from '../../shared/errors.js'
import {businessFlag} from '../../cli/flags.js'

export interface AuthStatusResult {
  source: string
  profile: string | null
  environment: string
  baseUrl: string
  business: string | null
  scope: string | null
  clientId: string | null
  origins: Record<string, string>
  /** Where the client secret and cached tokens are kept: the OS keychain's name, a file, or nowhere. */
  store: string
  /** bk keys in the volatile kernel keyring (Linux), which bk no longer uses. */
  volatileSecrets: Array<{key: string; id: number}>
  token: {ok: true} | {ok: false; error: string; code: string}
}

export default class AuthStatus extends BaseCommand<typeof AuthStatus> {
  static override summary = 'Show which credentials bk would use, where each came from, and whether a token can be had.'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '$ BK_PROFILE=production <%= config.bin %> <%= command.id %> --json',
  ]
  static override flags = {business: businessFlag()}

  async run(): Promise<AuthStatusResult> {
    const c = await this.credentials()
    // A business given anywhere is checked as every command checks it, before any request.
    if (c.businessId) await this.businessId()
    const [{keychainName}, {volatileSecrets, describeVolatile}] = await Promise.all([
      import('../../auth/credential-store.js'),
      import('../../auth/kernel-keyring.js'),
    ])
    const store =
      c.store?.kind === 'keychain'
        ? `OS keychain: ${keychainName()}`
        : c.store?.kind === 'file'
          ? `file ${this.configDir}/credentials.json`
          : 'none (credentials from the environment)'
    const volatile = await volatileSecrets()
    // Whether the secret is there to be read (after `bk auth logout` it is not).
    const secret =
      c.accessToken || !c.clientSecret
        ? undefined
        : await c.clientSecret().then(
            () => 'set',
            () => 'missing',
          )
    let token: AuthStatusResult['token']
    try {
      // A token given as is (BK_ACCESS_TOKEN) is only known good once the service accepts it.
      if (c.accessToken) await this.accessTokenAccepted()
      else await (await this.session()).tokens.get()
      token = {ok: true}
    } catch (error) {
      const e = error instanceof BkError ? error : new BkError(String((error as Error).message))
      const refused = e.exitCode === ExitCode.auth
      const message = c.accessToken && !refused ? `the access token was not checked: ${e.message}` : e.message
      token = {ok: false, error: message, code: e.code}
      process.exitCode = e.exitCode
    }
    const origins = Object.fromEntries(Object.entries(c.origins).filter(([, v]) => v !== undefined)) as Record<
      string,
      string
    >
    const result: AuthStatusResult = {
      source: c.source,
      profile: c.profileName ?? null,
      environment: c.environment,
      baseUrl: c.baseUrl,
      business: c.businessId ?? null,
      scope: c.scope ?? null,
      clientId: c.clientId ?? null,
      origins,
      store,
      volatileSecrets: volatile.map((v) => ({key: v.key, id: v.id})),
      token,
    }
    if (!this.jsonEnabled()) {
      const {describeOrigin} = await import('../../auth/resolve.js')
      const from = (key: string) => (origins[key] ? `  (${describeOrigin(origins[key])})` : '')
      this.log(
        [
          `profile:       ${c.profileName ?? '(none: environment variables)'}${from('profile')}`,
          `environment:   ${c.environment}${from('environment')}`,
          `base URL:      ${c.baseUrl}${from('baseUrl')}`,
          `business:      ${c.businessId ?? '(none)'}${from('business')}`,
          `scope:         ${c.scope ?? '(all the client may use)'}${from('scope')}`,
          c.accessToken
            ? `access token:  set${from('accessToken')}`
            : `client id:     ${c.clientId}${from('clientId')}\nclient secret: ${secret === 'missing' ? `missing from the ${store} (\`bk profiles add ${c.profileName ?? 'NAME'} … --client-secret-stdin\` stores one)` : `${secret ?? 'none'}${from('clientSecret')}`}`,
          `secret store:  ${store}`,
          `token:         ${token.ok ? (c.accessToken ? 'ok, the service accepted the access token' : 'ok, a token was obtained') : `FAILED: ${token.error}`}`,
        ].join('\n'),
      )
      const warning = describeVolatile(volatile)
      if (warning)
        this.note(
          `Warning: ${warning}. bk no longer reads it: \`bk auth move-secret -p NAME\` moves a profile's secret where it lasts.`,
        )
    }
    return result
  }

  /** One page of one business, the least a token can be asked for; a 403 is a token accepted without that scope. */
  private async accessTokenAccepted(): Promise<void> {
    const {api} = await this.session({tenantLevel: true})
    try {
      await api.businesses.list({pageSize: 1}).first()
    } catch (error) {
      if ((error as BkError).code === 'forbidden') return
      throw error
    }
  }
}
