import {BaseCommand} from '../../base-command.js'
import type {Profile} from '../../auth/profiles.js'

export type ProfilesListResult = Array<Profile & {name: string; active: boolean}>

export default class ProfilesList extends BaseCommand<typeof ProfilesList> {
  static override summary = 'List profiles; the active one is marked.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<ProfilesListResult> {
    const {ProfileStore} = await import('../../auth/profiles.js')
    const config = await new ProfileStore(this.configDir).load()
    const rows = Object.entries(config.profiles).map(([name, p]) => ({name, active: config.active === name, ...p}))
    if (!this.jsonEnabled()) {
      if (rows.length === 0) {
        this.log('No profiles. Add one with `bk profiles add NAME --env sandbox --client-id ID --base-url URL`.')
      } else {
        const {createListWriter} = await import('../../output/list-writer.js')
        const {openSink} = await import('../../output/sink.js')
        const writer = await createListWriter<ProfilesListResult[number]>('table', await openSink(), [
          {header: '', get: (r) => (r.active ? '*' : '')},
          {header: 'NAME', get: (r) => r.name},
          {header: 'ENV', get: (r) => r.env},
          {header: 'BASE URL', get: (r) => r.baseUrl},
          {header: 'CLIENT ID', get: (r) => r.clientId},
          {header: 'BUSINESS', get: (r) => r.business},
          {header: 'SECRET IN', get: (r) => r.storage},
        ])
        await writer.write(rows)
        await writer.end()
      }
    }
    return rows
  }
}
