import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../../cli/base-command.js'
import {billReadingFlags} from '../../../cli/flags.js'
import type {LookupFileResult} from '../../../bills/lookups-init.js'
import {counted} from '../../../shared/counts.js'
import {shellWord} from '../../../output/shell-word.js'

const reading = billReadingFlags()

export default class BillsLookupsInit extends BaseCommand<typeof BillsLookupsInit> {
  static override summary = 'Write the lookup files a map needs: every value of the export, with an empty id to fill.'
  static override description = `Reads FILE as bills import --map M reads it and writes one lookup file per field the map looks up (vendors.csv, ledgers.csv, in --dir): every distinct value of the export (or key, for a lookup the map keys by several columns) with an empty id column. Fill in the bk ids, then pass each file to bills import with --lookup FIELD=FILE. Run it again on a newer export: it adds the values not listed yet and keeps every row already there, ids included (each file is replaced atomically). A value still without an id is named by bills import --dry-run.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> export.csv --map map.yaml',
    '<%= config.bin %> <%= command.id %> export.csv --map xero --dir lookups',
  ]

  static override args = {
    file: Args.string({description: 'The export to read (a CSV file).', required: true}),
  }

  static override flags = {
    map: Flags.string({
      summary: "How the export is read: the map file (bk bills maps init writes one), or a preset's name.",
      helpValue: 'FILE.yaml|PRESET',
      required: true,
    }),
    dir: Flags.string({
      summary: 'The folder of the lookup files (created when missing).',
      default: '.',
      helpValue: 'DIR',
    }),
    delimiter: reading.delimiter,
    encoding: reading.encoding,
    'lines-file': Flags.string({
      summary: "The bills' lines, for a map that reads them from a second file (lines_file: in the map).",
      helpValue: 'FILE.csv',
    }),
  }

  async run(): Promise<LookupFileResult[]> {
    const {flags} = this
    const {delimiterFlag, loadBillMap, withOverrides} = await import('../../../bills/map-file.js')
    const map = withOverrides(await loadBillMap(flags.map), {
      delimiter: flags.delimiter,
      encoding: flags.encoding,
      linesFile: flags['lines-file'],
    })
    const {initLookups} = await import('../../../bills/lookups-init.js')
    const results = await initLookups(this.args.file, map, flags.dir)
    if (!this.jsonEnabled()) {
      for (const r of results) {
        const toFill = r.values - r.filled
        this.log(
          `${r.file}: ${counted(r.values, 'value')} of ${r.columns.join(' + ')} (${r.added} added), ${toFill} without an id${toFill > 0 ? ': fill in the bk id of each' : ''}`,
        )
      }
      const lines = flags['lines-file'] ? ` --lines-file ${shellWord(flags['lines-file'])}` : ''
      // The import reads the file as this command did: with the same delimiter and encoding.
      const shape = [
        ...(flags.delimiter ? [delimiterFlag(flags.delimiter)] : []),
        ...(flags.encoding ? [`--encoding ${flags.encoding}`] : []),
      ]
      // The flags maps init's command carries for this map (formats, --currency, needs:): without
      // them an import of a preset with needs: stops before reading a row.
      const {importFlagsBeyondLookups} = await import('../../../bills/map-init.js')
      const given = [...shape, ...(lines ? [lines.trim()] : [])]
      const {before, after} = await importFlagsBeyondLookups(this.args.file, flags.map, map, given)
      const lookups = results.map((r) => `--lookup ${shellWord(`${r.field}=${r.file}`)}`)
      const args = [...shape, ...before, ...lookups, ...after].join(' ')
      this.log(
        `Then: bk bills import ${shellWord(this.args.file)}${lines} --map ${shellWord(flags.map)} ${args} --dry-run`,
      )
    }
    return results
  }
}
