import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {InputError} from '../../shared/errors.js'
import {ID_PREFIX} from '../../shared/spec.js'

export default class AuthLogin extends BaseCommand<typeof AuthLogin> {
  static override summary = 'Set up a profile interactively and check it by fetching a token.'
  static override description =
    'Asks for the environment, base URL, client id and secret (masked), checks them against the service, then saves the profile. For scripts, use `bk profiles add … --client-secret-stdin`.'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --profile sandbox',
  ]
  static override flags = {
    'insecure-storage': Flags.boolean({summary: 'Store the secret in a plain file (0600) instead of the OS keychain.'}),
  }

  async run(): Promise<{name: string; env: string; baseUrl: string}> {
    if (!this.canPrompt) {
      throw new InputError('`bk auth login` needs a terminal to ask its questions', {
        code: 'no_tty',
        hint: 'Use `printf %s "$SECRET" | bk profiles add NAME --env sandbox --base-url URL --client-id ID --client-secret-stdin`.',
      })
    }
    if (!this.flags['insecure-storage']) {
      // Find out now, not after every question, that the secret would have nowhere to go.
      const {probeKeychain} = await import('../../auth/credential-store.js')
      await probeKeychain()
    }
    const {input, password, select} = await import('../../cli/prompts.js')
    const {ENVIRONMENTS} = await import('../../auth/profiles.js')
    const {defaultBaseUrl, validateBaseUrl} = await import('../../auth/base-url.js')
    const out = {output: process.stderr}
    const env = await select({message: 'Environment', choices: ENVIRONMENTS.map((e) => ({value: e}))}, out)
    const name = this.flags.profile ?? (await input({message: 'Profile name', default: env}, out))
    const baseUrl = await input(
      {
        message: 'Base URL',
        ...(defaultBaseUrl(env) ? {default: defaultBaseUrl(env) as string} : {}),
        validate: (v) => {
          try {
            validateBaseUrl(v)
            return true
          } catch (error) {
            return (error as Error).message
          }
        },
      },
      out,
    )
    const clientId = await input({message: 'Client id', validate: (v) => (v ? true : 'Required')}, out)
    const clientSecret = await password(
      {message: 'Client secret', mask: '*', validate: (v) => (v ? true : 'Required')},
      out,
    )
    const business = await input(
      {
        message: 'Default business id (optional)',
        validate: (v) => (!v || v.startsWith(ID_PREFIX.business) ? true : `Expected ${ID_PREFIX.business}…`),
      },
      out,
    )

    const {BkClient} = await import('../../api/client.js')
    const {Api} = await import('../../api/api.js')
    const client = new BkClient({baseUrl, secrets: [clientSecret], ...this.transportOptions})
    try {
      process.stderr.write('Checking the credentials… ')
      await new Api(client).auth.token({clientId, clientSecret, businessId: business || undefined})
      process.stderr.write('ok\n')
    } finally {
      await client.close()
    }
    const {saveProfile} = await import('../../auth/profile-setup.js')
    const saved = await saveProfile(this.configDir, {
      name,
      env,
      baseUrl,
      clientId,
      clientSecret,
      business: business || undefined,
      insecureStorage: this.flags['insecure-storage'],
    })
    this.note(
      `Profile ${saved.name} saved; secret in ${saved.storedIn}.${saved.active ? ' It is the active profile.' : ''}`,
    )
    return {name: saved.name, env: saved.profile.env, baseUrl: saved.profile.baseUrl}
  }
}
