import {Args} from '@oclif/core'

import {BaseCommand} from '../../base-command.js'
import {ConfigError} from '../../errors.js'
import type {Profile} from '../../auth/profiles.js'

export type ProfilesShowResult = Profile & {name: string; active: boolean}

export default class ProfilesShow extends BaseCommand<typeof ProfilesShow> {
  static override summary = 'Show a profile (the active one by default); never its secret.'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> production --json',
  ]
  static override args = {name: Args.string({description: 'Profile name (default: the active profile)'})}

  async run(): Promise<ProfilesShowResult> {
    const {ProfileStore} = await import('../../auth/profiles.js')
    const config = await new ProfileStore(this.configDir).load()
    const name = this.args.name ?? this.flags.profile ?? config.active
    const profile = name ? config.profiles[name] : undefined
    if (!name || !profile) {
      throw new ConfigError(name ? `No profile named "${name}"` : 'No active profile', {
        code: 'unknown_profile',
        hint: 'Run `bk profiles list` to see your profiles.',
      })
    }
    const result = {name, active: config.active === name, ...profile}
    if (!this.jsonEnabled()) {
      this.log(
        [
          `name:      ${name}${result.active ? ' (active)' : ''}`,
          `env:       ${profile.env}`,
          `base URL:  ${profile.baseUrl}`,
          `client id: ${profile.clientId}`,
          `business:  ${profile.business ?? '-'}`,
          `scope:     ${profile.scope ?? '(all the client may use)'}`,
          `secret:    stored in ${profile.storage === 'keychain' ? 'the OS keychain' : 'a plain file (insecure storage)'}`,
        ].join('\n'),
      )
    }
    return result
  }
}
