import {BaseCommand, type FieldsListing} from '../../cli/base-command.js'
import {chosenFields, listFlags} from '../../cli/flags.js'
import type {Business} from '../../api/schemas/business.js'
import type {ListJson} from '../../output/list-command.js'

export type BusinessesListResult = ListJson<Business> | FieldsListing

export default class BusinessesList extends BaseCommand<typeof BusinessesList> {
  static override summary = 'List the businesses of the tenant.'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --all --output csv --file businesses.csv',
    '<%= config.bin %> <%= command.id %> --json --page-size 10',
    "<%= config.bin %> <%= command.id %> --all --jq '.[].id'",
  ]

  static override flags = listFlags()

  async run(): Promise<BusinessesListResult | undefined> {
    const {flags} = this
    const {businessFields} = await import('../../records/business-fields.js')
    if (flags.fields === '') return this.listFields(businessFields)
    const fields = await chosenFields(flags.fields, businessFields, 'a business', 'businesses list')
    const {checkOutputFlags, pagingOptions, runList} = await import('../../output/list-command.js')
    checkOutputFlags(flags, this.jqGiven, this.jsonEnabled())
    const {api} = await this.session({tenantLevel: true})
    return runList({
      pager: api.businesses.list(pagingOptions(flags)),
      flags,
      json: this.jsonEnabled(),
      // The spec shows only the id; the other columns fill in when the service sends them.
      columns: [
        {header: 'ID', get: (b) => b.id, kind: 'id'},
        {header: 'NAME', get: (b) => b.name, kind: 'text'},
        {header: 'EXTERNAL ID', get: (b) => b.external_id, kind: 'id', priority: 1},
        {header: 'ACTIVE', get: (b) => b.active, kind: 'text', priority: 2},
      ],
      fields: fields && {paths: fields, catalog: businessFields},
      collect: this.jqGiven,
      noun: ['business', 'businesses'],
      onMore: (token) => this.note(`More businesses: --page-token ${token}, or --all.`),
    })
  }
}
