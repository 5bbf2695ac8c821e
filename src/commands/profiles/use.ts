import * as Args from '@oclif/core/args'

import {BaseCommand} from '../../cli/base-command.js'
import {ConfigError} from '../../shared/errors.js'

export default class ProfilesUse extends BaseCommand<typeof ProfilesUse> {
  static override summary = 'Make a profile the active one.'
  static override examples = ['<%= config.bin %> <%= command.id %> sandbox']
  static override args = {name: Args.string({required: true, description: 'Profile name'})}

  async run(): Promise<{active: string}> {
    const {ProfileStore} = await import('../../auth/profiles.js')
    const store = new ProfileStore(this.configDir)
    await store.update((config) => {
      if (!config.profiles[this.args.name]) {
        throw new ConfigError(`No profile named "${this.args.name}"`, {
          code: 'unknown_profile',
          hint: 'Run `bk profiles list` to see your profiles.',
        })
      }
      config.active = this.args.name
    })
    this.note(`Active profile: ${this.args.name}`)
    return {active: this.args.name}
  }
}
