import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {ENVIRONMENTS, type Profile} from '../../auth/profiles.js'
import {BkError, ExitCode} from '../../shared/errors.js'
import {requestTimeoutMs} from '../../net/request-timeout.js'

export interface ProfilesAddResult {
  name: string
  env: string
  baseUrl: string
  active: boolean
  storage: string
  /** Whether the service accepted the secret (`passed`), could not be asked, or was not asked. */
  check: SecretCheck
}

export type SecretCheck = 'passed' | 'not_checked' | 'skipped'

export default class ProfilesAdd extends BaseCommand<typeof ProfilesAdd> {
  static override summary = 'Add (or replace) a profile; its secret goes to the OS keychain.'
  static override description =
    'The client secret is read from a masked prompt, or from standard input with --client-secret-stdin; never from a flag, since argv is visible to other users. Where no keychain is reachable, use environment variables or --insecure-storage.\n\nBefore saving, bk checks the client id and secret by asking the service for a token, as `bk auth login` does: a secret the service refuses is not saved (exit 3); when the service cannot be reached the profile is saved and bk says it was not checked. --no-verify saves without asking.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> sandbox --env sandbox --base-url https://sandbox.example.com --client-id abc123',
    '$ printf %s "$SECRET" | <%= config.bin %> <%= command.id %> ci --env sandbox --base-url https://sandbox.example.com --client-id abc123 --client-secret-stdin',
    '$ printf %s local-secret | <%= config.bin %> <%= command.id %> local --env local --client-id local-client --business biz_demo_acme --client-secret-stdin',
  ]

  static override args = {name: Args.string({required: true, description: 'Profile name'})}
  static override flags = {
    env: Flags.option({options: ENVIRONMENTS, required: true, summary: 'Environment of the credentials.'})(),
    'client-id': Flags.string({required: true, summary: 'OAuth client id.'}),
    'base-url': Flags.string({
      summary: 'API address (https; http only for loopback). Required for sandbox and production.',
    }),
    business: Flags.string({char: 'b', summary: 'Default business (biz_…); tokens are scoped to it.'}),
    scope: Flags.string({
      summary: 'Space-separated scopes to limit tokens to, e.g. "bill:create journal_entry:create".',
    }),
    'client-secret-stdin': Flags.boolean({summary: 'Read the client secret from standard input.'}),
    'insecure-storage': Flags.boolean({summary: 'Store the secret in a plain file (0600) instead of the OS keychain.'}),
    'no-verify': Flags.boolean({summary: 'Save without checking the secret with the service (no token request).'}),
  }

  async run(): Promise<ProfilesAddResult> {
    const {flags, args} = this
    const {buildProfile, saveProfile} = await import('../../auth/profile-setup.js')
    // Check everything else before asking for the secret.
    const profile = buildProfile({
      env: flags.env,
      clientId: flags['client-id'],
      baseUrl: flags['base-url'],
      business: flags.business,
      scope: flags.scope,
    })
    const {readClientSecret} = await import('../../auth/read-secret.js')
    const clientSecret = await readClientSecret({fromStdin: flags['client-secret-stdin'], canPrompt: this.canPrompt})
    const {check, unchecked} = flags['no-verify']
      ? {check: 'skipped' as const, unchecked: undefined}
      : await this.checkSecret(args.name, profile, clientSecret)
    const saved = await saveProfile(this.configDir, {
      name: args.name,
      env: flags.env,
      clientId: flags['client-id'],
      clientSecret,
      baseUrl: flags['base-url'],
      business: flags.business,
      scope: flags.scope,
      insecureStorage: flags['insecure-storage'],
    })
    if (flags['insecure-storage'])
      this.warn(
        `The client secret is stored in plain text in ${saved.storedIn}, readable by anyone with access to your account.`,
      )
    if (check === 'skipped') this.note('The secret was not checked (--no-verify).')
    // Said once the profile is saved: saving can still fail (no keychain), and then nothing is.
    if (unchecked)
      this.warn(
        `The secret was not checked: ${unchecked}. The profile is saved; \`bk doctor --profile ${saved.name}\` checks it once the service answers.`,
      )
    this.note(
      `Profile ${saved.name} saved (${saved.profile.env}, ${saved.profile.baseUrl}); secret in ${saved.storedIn}.${saved.active ? ' It is the active profile.' : ` Use it with --profile ${saved.name} or \`bk profiles use ${saved.name}\`.`}`,
    )
    return {
      name: saved.name,
      env: saved.profile.env,
      baseUrl: saved.profile.baseUrl,
      active: saved.active,
      storage: saved.profile.storage,
      check,
    }
  }

  /**
   * A token request with the new credentials, as `bk auth login` makes: refused, nothing is saved;
   * no answer (the service unreachable or failing), saved all the same, and said to be unchecked
   * (`unchecked`: why) once it is.
   */
  private async checkSecret(
    name: string,
    profile: Profile,
    clientSecret: string,
  ): Promise<{check: SecretCheck; unchecked?: string | undefined}> {
    const [{BkClient}, {Api}, {ApiError}] = await Promise.all([
      import('../../api/client.js'),
      import('../../api/api.js'),
      import('../../api/errors.js'),
    ])
    // One try, not the commands' retries: an answer that does not come is said at once.
    const client = new BkClient({
      baseUrl: profile.baseUrl,
      secrets: [clientSecret],
      maxRetries: 0,
      ...this.transportOptions,
      timeoutMs: requestTimeoutMs(process.env, 10),
    })
    try {
      const {clientId, business, scope} = profile
      await new Api(client).auth.token({clientId, clientSecret, businessId: business, scope})
      this.note('Checked: the service issued a token for this client id and secret.')
      return {check: 'passed'}
    } catch (error) {
      if (error instanceof ApiError && error.exitCode === ExitCode.auth) {
        throw new BkError(`The service refused the client id and secret of profile ${name}: ${error.message}`, {
          code: 'credentials_refused',
          exitCode: ExitCode.auth,
          hint: `Nothing was saved. Check the client id and secret for ${profile.baseUrl}, then run the command again (--no-verify saves without checking).`,
        })
      }
      if (!(error instanceof BkError) || error.exitCode !== ExitCode.unavailable) throw error
      return {check: 'not_checked', unchecked: error.message}
    } finally {
      await client.close()
    }
  }
}
