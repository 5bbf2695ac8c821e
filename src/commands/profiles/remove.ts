import * as Args from '@oclif/core/args'

import {BaseCommand} from '../../cli/base-command.js'
import {yesFlag} from '../../cli/flags.js'

export default class ProfilesRemove extends BaseCommand<typeof ProfilesRemove> {
  static override summary = 'Remove a profile and its keychain entries.'
  static override description =
    'Removing the active profile leaves no profile active: bk does not pick another in its place. `bk profiles use NAME` makes one active.'
  static override examples = ['<%= config.bin %> <%= command.id %> old-sandbox --yes']
  static override args = {name: Args.string({required: true, description: 'Profile name'})}
  static override flags = {yes: yesFlag()}

  async run(): Promise<{removed: string}> {
    const {removeProfile, requireProfile} = await import('../../auth/profile-setup.js')
    // Asking to remove a profile that is not there would be a question with no right answer.
    await requireProfile(this.configDir, this.args.name)
    await this.confirm(`remove profile ${this.args.name} and its stored secret?`, this.flags.yes)
    const {wasActive, left} = await removeProfile(this.configDir, this.args.name)
    const {noActiveProfileHint} = await import('../../auth/profiles.js')
    this.note(
      wasActive && left.length
        ? `Removed profile ${this.args.name}, the active one: no profile is active now. ${noActiveProfileHint(left)}`
        : `Removed profile ${this.args.name}.`,
    )
    return {removed: this.args.name}
  }
}
