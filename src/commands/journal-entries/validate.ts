import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {counted} from '../../shared/counts.js'
import type {FileSummary} from '../../journal-entries/files.js'

export interface JournalEntriesValidateResult {
  valid: true
  files: FileSummary[]
}

export default class JournalEntriesValidate extends BaseCommand<typeof JournalEntriesValidate> {
  static override summary = 'Check journal entries in YAML files, offline: every problem with its line and column.'
  static override description = `Checks every entry of every file without sending anything: at least one debit and one credit line, positive decimal amounts, total debits equal to total credits (exactly), ledger_id (ldg_…) and tag_value_ids (tv_…), a UTC datetime, and no unknown keys. Lists every problem as FILE:LINE:COLUMN and exits 2 if there is any. - reads stdin.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> examples/journal-entries.yaml',
    '$ cat march.yaml | <%= config.bin %> <%= command.id %> -',
    '<%= config.bin %> <%= command.id %> *.yaml --json',
  ]

  static override usage = 'journal-entries validate FILE... [FLAGS]'
  static override strict = false
  static override args = {}
  static override flags = {
    junit: Flags.string({
      summary: 'Also write a JUnit XML report for CI test views: one test case per entry.',
      helpValue: 'FILE.xml',
    }),
  }

  async run(): Promise<JournalEntriesValidateResult> {
    const {argv} = await this.parse(JournalEntriesValidate)
    const {validateFiles, problemsError, stdinPieces} = await import('../../journal-entries/files.js')
    const {JournalEntriesReport} = await import('../../ci/journal-entries.js')
    const report = await JournalEntriesReport.open('validate', this.flags.junit)
    const v = await validateFiles(argv as string[], stdinPieces, {keepEntries: false})
    if (v.problems.length > 0) {
      report?.problems(v)
      throw problemsError(v, (line) => this.note(line), false)
    }
    report?.valid(v)
    if (!this.jsonEnabled()) {
      for (const f of v.files)
        this.log(`${f.file}: ${counted(f.entries, 'entry', 'entries')}, ${counted(f.lines, 'line')}, all balanced`)
    }
    return {valid: true, files: v.files}
  }
}
