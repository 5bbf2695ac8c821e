import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {businessFlag, yesFlag} from '../../cli/flags.js'
import {InputError} from '../../shared/errors.js'

export interface BillsRecordResult {
  file: string
  /** Whether the file exists (no import into this business has run with this record folder). */
  exists: boolean
  created: number
  unconfirmed: number
  settled: number
  damagedLines: number[]
  damagedCount: number
  oldest: string | null
  newest: string | null
  /** With --forget-before: the bill lines forgotten (their bills no longer guarded). */
  forgotten?: number | undefined
}

export default class BillsRecord extends BaseCommand<typeof BillsRecord> {
  static override summary = 'Show the record of created bills of the business, and forget old entries.'
  static override description = `The record is what every import consults so that no bill is created twice (docs/bills.md, "Nightly exports that overlap"): one per environment and business, in the record folder. Shows its file, the bills created, those left unconfirmed and those settled as never created, damaged lines, and the oldest and newest entry.

With --forget-before DATE, entries recorded before that date are removed (the file is rewritten): later imports no longer know those bills and would create them again. Asks for confirmation on a terminal; pass --yes otherwise.`

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --forget-before 2025-01-01 --yes',
  ]

  static override flags = {
    business: businessFlag(),
    record: Flags.string({
      summary: 'Folder of the records of created bills [default: $BK_STATE_DIR/created-bills, or the config folder].',
      helpValue: 'DIR',
    }),
    'forget-before': Flags.string({
      summary: 'Forget the entries recorded before this date (YYYY-MM-DD, UTC, or an ISO 8601 time).',
      helpValue: 'DATE',
    }),
    yes: yesFlag(),
  }

  async run(): Promise<BillsRecordResult> {
    const {flags} = this
    const before = flags['forget-before'] === undefined ? undefined : parseDate(flags['forget-before'])
    const businessId = await this.businessId()
    const {baseUrl} = await this.credentials()
    const {createdRecordPath, readCreatedRecord, recordFolderFor} = await import('../../bills/created-record.js')
    const where = {folder: recordFolderFor(flags.record, this.configDir), baseUrl, businessId}
    const record = await readCreatedRecord(where)
    if (!record) {
      const file = createdRecordPath(where.folder, baseUrl, businessId)
      if (!this.jsonEnabled())
        process.stdout.write(`No record of created bills for ${businessId} at ${baseUrl}: ${file} does not exist.\n`)
      const empty = {file, exists: false, created: 0, unconfirmed: 0, settled: 0, damagedLines: [], damagedCount: 0}
      return {...empty, oldest: null, newest: null, ...(before ? {forgotten: 0} : {})}
    }
    try {
      let forgotten: number | undefined
      if (before) {
        await this.confirm(
          `Forget the bills recorded before ${before.toISOString()} in ${record.file} (an import would create them again)?`,
          flags.yes,
        )
        forgotten = (await record.forgetBefore(before)).forgotten
      }
      const s = await record.summary()
      const result: BillsRecordResult = {
        file: s.file,
        exists: true,
        created: s.created,
        unconfirmed: s.unconfirmed,
        settled: s.settled,
        damagedLines: s.damaged,
        damagedCount: s.damagedCount,
        oldest: s.oldest ?? null,
        newest: s.newest ?? null,
        ...(forgotten === undefined ? {} : {forgotten}),
      }
      if (!this.jsonEnabled()) this.show(result, before)
      return result
    } finally {
      record.close()
    }
  }

  private show(r: BillsRecordResult, before: Date | undefined): void {
    const lines = [
      `Record of created bills: ${r.file}`,
      `  created:      ${r.created}`,
      `  unconfirmed:  ${r.unconfirmed}`,
      `  settled as never created: ${r.settled}`,
      `  damaged lines: ${r.damagedCount}${r.damagedCount > 0 ? ` (line ${r.damagedLines.slice(0, 10).join(', ')}${r.damagedCount > 10 ? ', …' : ''})` : ''}`,
      `  oldest entry: ${r.oldest ?? '-'}`,
      `  newest entry: ${r.newest ?? '-'}`,
    ]
    if (before)
      lines.unshift(
        r.forgotten
          ? `Forgot ${r.forgotten} entries recorded before ${before.toISOString()}: those bills are no longer guarded (an import would create them again).`
          : `No entry was recorded before ${before.toISOString()}: nothing forgotten.`,
      )
    process.stdout.write(lines.join('\n') + '\n')
  }
}

/** A date (midnight UTC) or an ISO 8601 time. */
function parseDate(text: string): Date {
  const iso = /^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text
  const date = new Date(iso)
  if (
    !/^\d{4}-\d{2}-\d{2}/.test(text) ||
    Number.isNaN(date.getTime()) ||
    !date.toISOString().startsWith(text.slice(0, 10))
  )
    throw new InputError(`--forget-before: ${JSON.stringify(text)} is not a date`, {
      code: 'invalid_flag',
      hint: 'Give a date as YYYY-MM-DD (midnight UTC), or an ISO 8601 time such as 2026-01-31T18:00:00Z.',
    })
  return date
}
