import {BaseCommand} from '../../base-command.js'
import {listFlags} from '../../flags.js'
import type {Business} from '../../api/schemas/business.js'
import type {ListResult} from '../../output/list-command.js'

export type BusinessesListResult = ListResult<Business>

export default class BusinessesList extends BaseCommand<typeof BusinessesList> {
  static override summary = 'List the businesses of the tenant.'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --all --output csv --file businesses.csv',
    '<%= config.bin %> <%= command.id %> --json --page-size 10',
  ]

  static override flags = listFlags()

  async run(): Promise<BusinessesListResult | undefined> {
    const {flags} = this
    const {api} = await this.session({tenantLevel: true})
    const {pagingOptions, runList} = await import('../../output/list-command.js')
    return runList({
      pager: api.businesses.list(pagingOptions(flags)),
      flags,
      json: this.jsonEnabled(),
      // The spec shows only the id; the other columns fill in when the service sends them.
      columns: [
        {header: 'ID', get: (b) => b.id},
        {header: 'NAME', get: (b) => b.name},
        {header: 'EXTERNAL ID', get: (b) => b.external_id},
        {header: 'ACTIVE', get: (b) => b.active},
      ],
      onMore: (token) => this.note(`More businesses: --page-token ${token}, or --all.`),
    })
  }
}
