import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {ENVIRONMENTS} from '../../auth/profiles.js'

export interface ProfilesAddResult {
  name: string
  env: string
  baseUrl: string
  active: boolean
  storage: string
}

export default class ProfilesAdd extends BaseCommand<typeof ProfilesAdd> {
  static override summary = 'Add (or replace) a profile; its secret goes to the OS keychain.'
  static override description =
    'The client secret is read from a masked prompt, or from standard input with --client-secret-stdin; never from a flag, since argv is visible to other users. Where no keychain is reachable, use environment variables or --insecure-storage.'
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
  }

  async run(): Promise<ProfilesAddResult> {
    const {flags, args} = this
    const {buildProfile, saveProfile} = await import('../../auth/profile-setup.js')
    // Check everything else before asking for the secret.
    buildProfile({
      env: flags.env,
      clientId: flags['client-id'],
      baseUrl: flags['base-url'],
      business: flags.business,
      scope: flags.scope,
    })
    const {readClientSecret} = await import('../../auth/read-secret.js')
    const clientSecret = await readClientSecret({fromStdin: flags['client-secret-stdin'], canPrompt: this.canPrompt})
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
    this.note(
      `Profile ${saved.name} saved (${saved.profile.env}, ${saved.profile.baseUrl}); secret in ${saved.storedIn}.${saved.active ? ' It is the active profile.' : ` Use it with --profile ${saved.name} or \`bk profiles use ${saved.name}\`.`}`,
    )
    return {
      name: saved.name,
      env: saved.profile.env,
      baseUrl: saved.profile.baseUrl,
      active: saved.active,
      storage: saved.profile.storage,
    }
  }
}
