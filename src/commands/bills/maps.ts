import {BaseCommand} from '../../cli/base-command.js'
import type {PresetInfo} from '../../bills/presets.js'

export default class BillsMaps extends BaseCommand<typeof BillsMaps> {
  static override summary = 'List the presets for accounting-package exports, and what each needs.'
  static override description = `A preset is a map shipped with bk: pass its name to bills import --map. A preset never guesses what depends on your region: the flags listed for each (--date-format, --number-format, --amounts, the --lookup files) are yours to give. \`bk bills maps show NAME\` prints one in full, with the documentation of each layout it reads; docs/bills.md shows each with an example export.`

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<PresetInfo[]> {
    const {listPresets} = await import('../../bills/presets.js')
    const presets = await listPresets()
    if (!this.jsonEnabled()) {
      for (const p of presets) {
        this.log(`${p.name}  ${p.title}`)
        for (const n of p.needs) this.log(`    ${n}`)
      }
    }
    return presets
  }
}
