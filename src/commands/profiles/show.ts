import * as Args from '@oclif/core/args'

import {BaseCommand, type FieldsListing} from '../../cli/base-command.js'
import {ConfigError} from '../../shared/errors.js'
import {chosenFields, fieldsFlag} from '../../cli/flags.js'
import {PROFILE_FIELDS, profileRecord, type ProfileRecord} from '../../auth/profile-fields.js'

export type ProfilesShowResult = ProfileRecord | FieldsListing

export default class ProfilesShow extends BaseCommand<typeof ProfilesShow> {
  static override summary = 'Show a profile (the active one by default); never its secret.'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> production --json',
    '<%= config.bin %> <%= command.id %> --fields base_url,business',
  ]
  static override args = {name: Args.string({description: 'Profile name (default: the active profile)'})}
  static override flags = {fields: fieldsFlag()}

  async run(): Promise<ProfilesShowResult> {
    if (this.flags.fields === '') return this.listFields(PROFILE_FIELDS)
    const fields = await chosenFields(this.flags.fields, PROFILE_FIELDS, 'a profile', 'profiles show')
    const {ProfileStore, noActiveProfileHint, unknownProfile} = await import('../../auth/profiles.js')
    const config = await new ProfileStore(this.configDir).load()
    const name = this.args.name ?? this.flags.profile ?? config.active
    if (!name) {
      throw new ConfigError('No active profile', {
        code: 'unknown_profile',
        hint: noActiveProfileHint(Object.keys(config.profiles)),
      })
    }
    const profile = config.profiles[name]
    if (!profile) throw unknownProfile(name, Object.keys(config.profiles))
    const result = profileRecord(name, config.active === name, profile)
    if (fields) {
      const {projector} = await import('../../output/field-paths.js')
      const chosen = projector(fields)(result) as ProfilesShowResult
      if (!this.jsonEnabled()) {
        const {formatFields} = await import('../../output/field-view.js')
        process.stdout.write(formatFields(chosen, fields, PROFILE_FIELDS))
      }
      return chosen
    }
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
