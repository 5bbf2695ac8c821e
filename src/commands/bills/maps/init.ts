import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../../cli/base-command.js'
import type {MapInitFindings} from '../../../bills/map-init.js'
import {counted} from '../../../shared/counts.js'

export default class BillsMapsInit extends BaseCommand<typeof BillsMapsInit> {
  static override summary = 'Tell what an export is: the preset that reads it, or a starter map to finish.'
  static override description = `Reads the header and the first rows of FILE (its delimiter and encoding told from its first bytes). When FILE is in bk's own format (its header names bk's columns), says so and prints the import command: no map is needed. When a preset reads the file, names it and prints the import command, with the flags the sample tells (--date-format, --number-format, --delimiter) and those it needs from you. Otherwise names the nearest preset and the headers that differ, and writes a commented starter map: every column with a proposed target or ~ (dropped), the date and number formats seen, the credit markers found and the lookups the map needs. A format the sample reads two ways (03/04/2025) is never guessed: the map marks it "# DECIDE:" and the import refuses the map until you resolve it. The map goes to stdout, or to --out (never over an existing file unless --force); with --out, a file a preset reads is refused with the import command, as no starter map is needed.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> export.csv',
    '<%= config.bin %> <%= command.id %> export.csv --out map.yaml',
    '<%= config.bin %> <%= command.id %> export.csv --json',
  ]

  static override args = {
    file: Args.string({description: 'The export to read (a CSV file).', required: true}),
  }

  static override flags = {
    out: Flags.string({char: 'o', summary: 'Write the starter map to this file instead of stdout.', helpValue: 'FILE'}),
    force: Flags.boolean({summary: 'With --out: replace a file already there.', dependsOn: ['out']}),
  }

  async run(): Promise<MapInitFindings> {
    const {initMap} = await import('../../../bills/map-init.js')
    const findings = await initMap(this.args.file)
    const {out, force} = this.flags
    // bk's own format: nothing to map, the file imports as it is.
    if (findings.ownFormat && out) {
      const {InputError} = await import('../../../shared/errors.js')
      throw new InputError(`${findings.file} is in bk's own format: no starter map written to ${out}`, {
        hint: `It imports as it is, with no map: ${findings.ownFormat.command}`,
      })
    }
    // A preset reads the file: a starter map would be a worse copy of it, so none is written.
    if (findings.preset && out) {
      const {InputError} = await import('../../../shared/errors.js')
      const p = findings.preset
      throw new InputError(`${findings.file} matches the preset ${p.name}: no starter map written to ${out}`, {
        hint: `Import it with: ${p.command}\nTo change the preset, copy it: bk bills maps show ${p.name} > map.yaml, then import with --map map.yaml.`,
      })
    }
    if (findings.map !== null && out) {
      const {replacePrivateFile, writeNewPrivateFile} = await import('../../../files/private-file.js')
      if (force) await replacePrivateFile(out, findings.map)
      else await writeNewPrivateFile('--out', out, findings.map)
    }
    if (this.jsonEnabled()) return findings
    const say = (text: string) => process.stderr.write(`${text}\n`)
    if (findings.ownFormat) {
      process.stdout.write(
        `${findings.file} is in bk's own format (its header names bk's columns): it imports as it is, with no map. Import it with:\n  ${findings.ownFormat.command}\n`,
      )
      return findings
    }
    if (findings.preset) {
      const p = findings.preset
      process.stdout.write(`${findings.file} matches the preset ${p.name}. Import it with:\n  ${p.command}\n`)
      for (const d of findings.decide) process.stdout.write(`Decide: ${d}\n`)
      for (const n of findings.notes) process.stdout.write(`Note: ${n}\n`)
      if (p.needs.length > 0)
        process.stdout.write(`What ${p.name} needs from you:\n${p.needs.map((n) => `  ${n}`).join('\n')}\n`)
      if (p.lookups) process.stdout.write(`Write the lookup files with: ${p.lookups}\n`)
      return findings
    }
    const n = findings.nearest
    say(
      n
        ? `No preset reads ${findings.file}; the nearest is ${n.name} (${counted(n.shared, 'header')} in common; not in it: ${n.unknown.join(', ') || 'none'}; in it, not in the file: ${n.absent.join(', ') || 'none'}).`
        : `No preset reads ${findings.file}, and none shares a header with it.`,
    )
    for (const r of findings.repeated)
      say(
        `The header row names "${r.header}" on columns ${r.columns.join(', ')}: a map names a header once, so the starter map reads every column by its position (header: false). Check which of them is which.`,
      )
    if (out) say(`Wrote a starter map to ${out}.`)
    else process.stdout.write(findings.map!)
    if (findings.decide.length > 0)
      say(
        `Decide before importing (each is a DECIDE line of the map):\n${findings.decide.map((d) => `  - ${d}`).join('\n')}`,
      )
    return findings
  }
}
