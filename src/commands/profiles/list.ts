import {BaseCommand, type FieldsListing} from '../../cli/base-command.js'
import {chosenFields, fieldsFlag} from '../../cli/flags.js'
import {PROFILE_FIELDS, profileRecord, type ProfileRecord} from '../../auth/profile-fields.js'
import type {OutputColumn} from '../../output/list-writer.js'

type ProfileRow = ProfileRecord
export type ProfilesListResult = ProfileRow[] | FieldsListing

export default class ProfilesList extends BaseCommand<typeof ProfilesList> {
  static override summary = 'List profiles; the active one is marked.'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --json',
    '<%= config.bin %> <%= command.id %> --fields name,env,base_url',
  ]

  static override flags = {fields: fieldsFlag()}

  async run(): Promise<ProfilesListResult> {
    if (this.flags.fields === '') return this.listFields(PROFILE_FIELDS)
    const fields = await chosenFields(this.flags.fields, PROFILE_FIELDS, 'a profile', 'profiles list')
    const {ProfileStore} = await import('../../auth/profiles.js')
    const config = await new ProfileStore(this.configDir).load()
    const rows = Object.entries(config.profiles).map(([name, p]) => profileRecord(name, config.active === name, p))
    if (!this.jsonEnabled()) {
      if (rows.length === 0) {
        this.log('No profiles. Add one with `bk profiles add NAME --env sandbox --client-id ID --base-url URL`.')
      } else {
        const {createListWriter} = await import('../../output/list-writer.js')
        const {kindOfPath, valueAt} = await import('../../output/field-paths.js')
        const {openSink} = await import('../../output/sink.js')
        const columns: Array<OutputColumn<ProfileRow>> = fields
          ? fields.map((path) => ({header: path, get: (r) => valueAt(r, path), kind: kindOfPath(path, PROFILE_FIELDS)}))
          : [
              {header: '', get: (r) => (r.active ? '*' : '')},
              {header: 'NAME', get: (r) => r.name, kind: 'id'},
              {header: 'ENV', get: (r) => r.env, kind: 'id'},
              {header: 'BASE URL', get: (r) => r.base_url, kind: 'text'},
              {header: 'CLIENT ID', get: (r) => r.client_id, kind: 'id', priority: 2},
              {header: 'BUSINESS', get: (r) => r.business, kind: 'id', priority: 3},
              {header: 'SECRET IN', get: (r) => r.storage, kind: 'id', priority: 1},
            ]
        const writer = await createListWriter<ProfileRow>('table', await openSink(), columns)
        await writer.write(rows)
        await writer.end()
      }
    }
    if (!fields) return rows
    const {projector} = await import('../../output/field-paths.js')
    return rows.map(projector(fields)) as ProfileRow[]
  }
}
