import * as Args from '@oclif/core/args'

import {BaseCommand} from '../../../cli/base-command.js'
import type {PresetDetails} from '../../../bills/presets.js'

export default class BillsMapsShow extends BaseCommand<typeof BillsMapsShow> {
  static override summary = 'Print a preset: the flags it needs, where its layouts are documented, and the map.'
  static override description = `Prints the preset as shipped (maps/NAME.yaml): the flags it needs from you, the documentation each layout it reads comes from, and every column it maps, ignores or takes under another spelling. Copy it to a file to change it, and pass that file to bills import --map.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> sage50',
    '<%= config.bin %> <%= command.id %> xero > my-xero.yaml',
    '<%= config.bin %> <%= command.id %> xero --json',
  ]

  static override args = {
    name: Args.string({description: 'The preset (bk bills maps lists them).', required: true}),
  }

  async run(): Promise<PresetDetails> {
    const {presetDetails} = await import('../../../bills/presets.js')
    const preset = presetDetails(this.args.name)
    if (!this.jsonEnabled()) process.stdout.write(preset.text.endsWith('\n') ? preset.text : `${preset.text}\n`)
    return preset
  }
}
