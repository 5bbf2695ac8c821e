import {BaseCommand} from '../../cli/base-command.js'
import {ConfigError} from '../../shared/errors.js'
import type {LogoutResult} from '../../auth/profile-setup.js'

export default class AuthLogout extends BaseCommand<typeof AuthLogout> {
  static override summary = "Forget a profile's client secret and cached tokens; keep the profile."
  static override description =
    'Removes the client secret and the cached access tokens of the profile (--profile, BK_PROFILE, or the active one) from where they are stored: the OS keychain, or credentials.json with --insecure-storage. The profile itself stays: store a secret again with `bk profiles add NAME … --client-secret-stdin`. Credentials given in the environment are not stored by bk: unset them instead.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> -p sandbox']

  async run(): Promise<LogoutResult> {
    const name = this.flags.profile ?? process.env.BK_PROFILE ?? (await this.activeProfile())
    if (!name)
      throw new ConfigError('No profile to log out of: none is given and none is active', {
        code: 'no_profile',
        hint: 'Name one with -p NAME (`bk profiles list` shows them). Credentials in BK_CLIENT_SECRET or BK_ACCESS_TOKEN are not stored by bk: unset them.',
      })
    const {logoutProfile} = await import('../../auth/profile-setup.js')
    const result = await logoutProfile(this.configDir, name)
    const what = [result.removed.clientSecret && 'client secret', result.removed.tokens && 'cached tokens'].filter(
      Boolean,
    )
    const store = result.store === 'OS keychain' ? 'the OS keychain' : `the file ${result.store}`
    this.note(
      what.length
        ? `Logged out of profile ${name}: removed its ${what.join(' and ')} from ${store}. The profile stays.`
        : `Profile ${name} had no stored secret or tokens in ${store}; nothing to remove. The profile stays.`,
    )
    return result
  }

  private async activeProfile(): Promise<string | undefined> {
    const {ProfileStore} = await import('../../auth/profiles.js')
    return (await new ProfileStore(this.configDir).load()).active
  }
}
