import * as Args from '@oclif/core/args'

import {BaseCommand, type FieldsListing} from '../../../cli/base-command.js'
import {chosenFields, fieldsFlag} from '../../../cli/flags.js'
import type {PresetDetails} from '../../../bills/presets.js'
import type {FieldInfo} from '../../../output/field-paths.js'

/** The fields of a preset, for --fields. */
const PRESET_FIELDS: FieldInfo[] = [
  {path: 'name', kind: 'id'},
  {path: 'title', kind: 'text'},
  {path: 'needs', kind: 'text'},
  {path: 'sources', kind: 'text'},
  {path: 'file', kind: 'text'},
  {path: 'text', kind: 'text'},
]

export default class BillsMapsShow extends BaseCommand<typeof BillsMapsShow> {
  static override summary = 'Print a preset: the flags it needs, where its layouts are documented, and the map.'
  static override description = `Prints the preset as shipped (maps/NAME.yaml): the flags it needs from you, the documentation each layout it reads comes from, and every column it maps, ignores or takes under another spelling. Copy it to a file to change it, and pass that file to bills import --map.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> sage50',
    '<%= config.bin %> <%= command.id %> xero > my-xero.yaml',
    '<%= config.bin %> <%= command.id %> xero --fields needs,sources',
  ]

  static override args = {
    name: Args.string({description: 'The preset (bk bills maps lists them).', required: true}),
  }

  static override flags = {fields: fieldsFlag()}

  async run(): Promise<PresetDetails | FieldsListing> {
    if (this.flags.fields === '') return this.listFields(PRESET_FIELDS)
    const fields = await chosenFields(this.flags.fields, PRESET_FIELDS, 'a preset', 'bills maps show')
    const {presetDetails} = await import('../../../bills/presets.js')
    const preset = await presetDetails(this.args.name)
    if (fields) {
      const {projector} = await import('../../../output/field-paths.js')
      const chosen = projector(fields)(preset) as PresetDetails
      if (!this.jsonEnabled()) {
        const {formatFields} = await import('../../../output/field-view.js')
        process.stdout.write(formatFields(chosen, fields, PRESET_FIELDS))
      }
      return chosen
    }
    if (!this.jsonEnabled()) process.stdout.write(preset.text.endsWith('\n') ? preset.text : `${preset.text}\n`)
    return preset
  }
}
