import * as Args from '@oclif/core/args'

import {BaseCommand} from '../../cli/base-command.js'

export default class ProfilesUse extends BaseCommand<typeof ProfilesUse> {
  static override summary = 'Make a profile the active one.'
  static override examples = ['<%= config.bin %> <%= command.id %> sandbox']
  static override args = {name: Args.string({required: true, description: 'Profile name'})}

  async run(): Promise<{active: string}> {
    const {ProfileStore, unknownProfile} = await import('../../auth/profiles.js')
    const store = new ProfileStore(this.configDir)
    await store.update((config) => {
      if (!config.profiles[this.args.name]) throw unknownProfile(this.args.name, Object.keys(config.profiles))
      config.active = this.args.name
    })
    this.note(`Active profile: ${this.args.name}`)
    return {active: this.args.name}
  }
}
