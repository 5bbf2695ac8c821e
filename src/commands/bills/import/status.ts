import * as Args from '@oclif/core/args'

import {BaseCommand} from '../../../cli/base-command.js'
import {counted, formatCount as n} from '../../../shared/counts.js'
import {inputName} from '../../../bills/input-name.js'
import type {JournalStatus} from '../../../bills/import-status.js'

export default class BillsImportStatus extends BaseCommand<typeof BillsImportStatus> {
  static override summary = 'Show what an import journal holds: created, failed, unconfirmed, not sent, and when.'
  static override description = `Reads a bills import journal (offline; nothing is sent) and shows the input file, business and base URL it is of, when it started and when each run ran, and how many of its bills were created, refused by the service (failed), unconfirmed, settled, or not sent yet (the next --resume sends those), and whether the last run read its input to the end (the bills after where it stopped are in no count). Bills invalid here never reach the journal: they are in the rejects file.

JOURNAL is a *.bk-journal file, or the imported file (its journal is beside it, FILE.bk-journal); with none, the only journal in the current folder.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> bills.csv',
    '<%= config.bin %> <%= command.id %> nightly/2026-03-01.csv.bk-journal --json',
  ]

  static override args = {
    journal: Args.string({
      description: 'The journal (*.bk-journal), or the imported file [default: the only journal here].',
    }),
  }

  async run(): Promise<JournalStatus> {
    const {journalFromArgument, journalStatus} = await import('../../../bills/import-status.js')
    const status = await journalStatus(journalFromArgument(this.args.journal))
    if (!this.jsonEnabled()) this.print(status)
    return status
  }

  private print(s: JournalStatus): void {
    // An import from stdin names its journal on every run.
    const file = s.input === '-' ? `- --journal ${s.journal}` : s.input
    const rows: Array<[string, string]> = [
      ['journal', s.journal],
      ['input', s.input],
      ['business', s.business],
      ['base URL', s.baseUrl],
      ['started', s.startedAt],
      ...s.runs.map((r, i): [string, string] => [`run ${i + 1}`, `${r.at}${r.resume ? ' (--resume)' : ''}`]),
      ['bills', `${n(s.bills)} in ${counted(s.batches, 'batch', 'batches')}`],
      ['created', n(s.created)],
      ['failed', `${n(s.failed)}${s.failed > 0 ? ' (refused by the service; listed in the rejects file)' : ''}`],
      [
        'unconfirmed',
        `${n(s.unconfirmed)}${s.unconfirmed > 0 ? ` (may exist; never re-sent by bk: ${this.config.bin} bills unconfirmed ${file})` : ''}`,
      ],
      [
        'not sent',
        `${n(s.notSent)}${s.notSent > 0 ? ` (sent by ${this.config.bin} bills import ${file} --resume)` : ''}`,
      ],
      ['read', this.readWords(s, file)],
      ...(s.settlements.length === 0
        ? [['settled', '0'] as [string, string]]
        : s.settlements.map((t): [string, string] => [
            'settled',
            `${t.at}: ${n(t.created)} found (now created), ${n(t.absent)} never created`,
          ])),
    ]
    if (s.running)
      rows.push([
        'running',
        `bk process ${s.running.pid} holds the journal: bills of its batches in flight count as unconfirmed until their answer is recorded`,
      ])
    const width = Math.max(...rows.map(([label]) => label.length))
    for (const [label, value] of rows) this.log(`${label.padEnd(width)}  ${value}`)
  }

  /** How much of the input the last run read: bills it did not reach are in no count above. */
  private readWords(s: JournalStatus, file: string): string {
    const resume = `${this.config.bin} bills import ${file} --resume`
    const input = inputName(s.input)
    if (s.readToEnd) return `to the end of ${input} (by the last run)`
    if (s.readToEnd === false)
      return `not to the end: the last run stopped before the end of ${input}; ${resume} reads the rest`
    if (s.running) return 'not known yet: a run is going'
    return `not known: the last run recorded no end (it was killed, or run by an earlier bk); ${resume} reads what is left`
  }
}
