import * as Flags from '@oclif/core/flags'

import {counted} from '../../shared/counts.js'
import {BaseCommand} from '../../cli/base-command.js'
import {ConfigError} from '../../shared/errors.js'
import type {MoveResult} from '../../auth/volatile-move.js'

export default class AuthMoveSecret extends BaseCommand<typeof AuthMoveSecret> {
  static override summary = "Move a profile's client secret out of the kernel keyring, to a store that lasts."
  static override description =
    "On Linux with no Secret Service, older versions of bk kept secrets in the kernel keyring, which forgets them at logout and reboot; bk no longer reads it (`bk doctor` names what it holds). This moves the client secret of the profile (--profile, BK_PROFILE, or the active one) to the OS keychain's Secret Service, or with --insecure-storage to credentials.json (mode 0600), points the profile there, and removes the profile's keys from the kernel keyring. Run it in the login session that stored the secret: only that session can read it."
  static override examples = [
    '<%= config.bin %> <%= command.id %> -p production',
    '<%= config.bin %> <%= command.id %> -p production --insecure-storage',
  ]
  static override flags = {
    'insecure-storage': Flags.boolean({
      summary: 'Move it to credentials.json (plain text, mode 0600) rather than the Secret Service.',
    }),
  }

  async run(): Promise<MoveResult> {
    const {ProfileStore} = await import('../../auth/profiles.js')
    const name = this.flags.profile ?? process.env.BK_PROFILE ?? (await new ProfileStore(this.configDir).load()).active
    if (!name)
      throw new ConfigError('No profile given and none is active', {
        code: 'no_profile',
        hint: 'Name one with -p NAME (`bk doctor` names the profiles whose secrets are in the kernel keyring).',
      })
    const {moveVolatileSecret} = await import('../../auth/volatile-move.js')
    const result = await moveVolatileSecret(this.configDir, name, this.flags['insecure-storage'])
    this.note(
      `Moved the client secret of profile ${name} from the kernel keyring to the ${result.to}; removed ${counted(result.removed.length, 'key')} from the kernel keyring.`,
    )
    if (this.flags['insecure-storage']) this.note(`Warning: ${result.to} holds the secret in plain text (mode 0600).`)
    return result
  }
}
