import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {BkError, ExitCode, InputError, InterruptedError} from '../../shared/errors.js'
import {formatCount as n} from '../../shared/counts.js'
import {businessFlag, performedByFlag, yesFlag} from '../../cli/flags.js'
import type {FileSummary} from '../../journal-entries/files.js'
import type {FileEntries, JournalMode, Outcome, PostResult} from '../../journal-entries/post.js'

export interface JournalEntriesCreateResult {
  dryRun: boolean
  files: FileSummary[]
  created: Outcome[]
  /** Created by an earlier run (--resume): not sent again. */
  skipped: Outcome[]
  failed: Outcome[]
  /** Sent, but the answer never came back: check before sending again. */
  unconfirmed: Outcome[]
  /** Not sent because the run stopped first (Ctrl-C, a lost connection): --resume posts them. */
  notSent: Outcome[]
}

export default class JournalEntriesCreate extends BaseCommand<typeof JournalEntriesCreate> {
  static override summary = 'Post journal entries from YAML files, after checking every one locally.'
  static override description = `Validates every entry of every file first (as validate does) and sends nothing if any is invalid. Then posts each entry, prints the created je_ ids, and records them in a journal beside each file (FILE.bk-journal, or --journal), so that a re-run after a failure never posts an entry twice: run again with --resume. A file that has a journal is refused without --resume or --restart. - reads stdin (no journal then, unless --journal FILE).`
  static override examples = [
    '<%= config.bin %> <%= command.id %> examples/journal-entries.yaml',
    '<%= config.bin %> <%= command.id %> march.yaml --resume',
    '<%= config.bin %> <%= command.id %> march.yaml april.yaml --dry-run',
    '$ cat entry.yaml | <%= config.bin %> <%= command.id %> - --json',
  ]

  static override usage = 'journal-entries create FILE... [FLAGS]'
  static override strict = false
  static override args = {}
  static override flags = {
    business: businessFlag(),
    'performed-by': performedByFlag('External id of who performs the action (sent as a request header).'),
    'dry-run': Flags.boolean({summary: 'Only validate, as `journal-entries validate` does; send nothing.'}),
    resume: Flags.boolean({
      summary: 'Continue after an earlier run: skip the entries its journal records as created.',
      exclusive: ['restart'],
    }),
    journal: Flags.string({
      summary: 'Journal file [default: <FILE>.bk-journal; none for stdin]. Only with one input.',
      helpValue: 'FILE',
    }),
    restart: Flags.boolean({
      summary: 'Forget the journal of an earlier run and post every entry again (asks first, or needs --yes).',
      exclusive: ['resume'],
    }),
    junit: Flags.string({
      summary: 'Also write a JUnit XML report for CI test views: one test case per entry.',
      helpValue: 'FILE.xml',
    }),
    yes: yesFlag(),
  }

  async run(): Promise<JournalEntriesCreateResult> {
    const {argv} = await this.parse(JournalEntriesCreate)
    const {flags} = this
    const paths = argv as string[]
    const {validateFiles, problemsError, stdinPieces, STDIN} = await import('../../journal-entries/files.js')
    const {JournalEntriesReport} = await import('../../ci/journal-entries.js')
    const report = await JournalEntriesReport.open('create', flags.junit)
    const v = await validateFiles(paths, stdinPieces)
    if (v.problems.length > 0) {
      report?.problems(v)
      throw problemsError(v, (line) => this.note(line), !flags['dry-run'])
    }
    const empty = {created: [], skipped: [], failed: [], unconfirmed: [], notSent: []}
    if (flags['dry-run']) {
      report?.valid(v)
      if (!this.jsonEnabled())
        for (const f of v.files)
          this.log(`${f.file}: ${f.entries} entr${f.entries === 1 ? 'y' : 'ies'} valid; nothing sent (--dry-run)`)
      return {dryRun: true, files: v.files, ...empty}
    }

    if (flags.journal !== undefined && paths.length > 1)
      throw new InputError('--journal takes one input file; each of several files keeps its own journal beside it')
    if (paths.includes(STDIN) && flags.journal === undefined) {
      if (flags.resume || flags.restart)
        throw new InputError('--resume and --restart need a journal: stdin (-) has none', {
          hint: 'Pass --journal FILE to keep one for stdin.',
        })
      this.note(
        'Reading stdin: no journal is kept, so a re-run cannot tell which entries were already posted (pass --journal FILE to keep one).',
      )
    }
    const businessId = await this.businessId()
    const mode = flags.resume ? 'resume' : flags.restart ? 'restart' : 'new'
    const {resumeLogPathFor} = await import('../../files/resume-log.js')
    const files = v.results.map((r, i) => {
      const path = paths[i] as string
      return {
        file: r.file,
        journalPath: flags.journal ?? (path === STDIN ? undefined : resumeLogPathFor(path)),
        entries: r.entries,
      }
    })
    // Every journal (and so its lock beside it) must be writable before the first entry is posted.
    const {checkWritable} = await import('../../output/sink.js')
    for (const f of files)
      if (f.journalPath) await checkWritable(flags.journal ? '--journal' : 'journal', f.journalPath)
    // Each journal's lock is held from reading it to the last post: two runs of one file at once
    // would otherwise both post every entry.
    const {acquireRunLocks} = await import('../../files/run-lock.js')
    const locks = acquireRunLocks(
      files.flatMap((f) => (f.journalPath ? [f.journalPath] : [])),
      (path) => `The journal ${path}`,
    )
    try {
      if (mode === 'restart') await this.confirmRestart(files)
      return await this.post(files, v.files, {mode, businessId}, (result) => report?.posted(v, result))
    } finally {
      for (const lock of locks) lock.release()
    }
  }

  /** --restart posts again what the journals record: say how much, and ask (or need --yes). */
  private async confirmRestart(files: FileEntries[]): Promise<void> {
    const {readEntryLog} = await import('../../journal-entries/resume-log.js')
    let created = 0
    let unknown = 0
    let damaged = false
    for (const f of files) {
      if (!f.journalPath) continue
      try {
        const records = [...(readEntryLog(f.journalPath)?.entries.values() ?? [])]
        created += records.filter((r) => r.status === 'created').length
        unknown += records.filter((r) => r.status === 'sending').length
      } catch {
        damaged = true
      }
    }
    if (damaged)
      return this.confirm(
        'forget a damaged journal, which may record created entries, and post every entry again?',
        this.flags.yes,
      )
    if (created + unknown === 0) return
    await this.confirm(
      `forget the journal and post again ${created} entr${created === 1 ? 'y' : 'ies'} it records as created and ${unknown} unconfirmed (each would exist twice)?`,
      this.flags.yes,
    )
  }

  private async post(
    files: FileEntries[],
    validated: FileSummary[],
    {mode, businessId}: {mode: JournalMode; businessId: string},
    onPosted: (result: PostResult) => void,
  ): Promise<JournalEntriesCreateResult> {
    const {flags} = this
    const {planPosting, postPlanned} = await import('../../journal-entries/post.js')
    const {entryName} = await import('../../journal-entries/load.js')
    // The environment the journals were begun in must be this one (post.ts).
    const {baseUrl} = await this.credentials()
    const plans = planPosting(files, {mode, businessId, baseUrl})
    const toSend = plans.reduce((n, p) => n + p.toSend.length, 0)
    for (const s of plans.flatMap((p) => p.skipped))
      this.note(`skip  ${s.file} entry ${s.index}: already created as ${s.id}`)
    for (const u of plans.flatMap((p) => p.unconfirmed))
      this.note(`unconfirmed  ${u.file} entry ${u.index}: ${u.error}`)

    if (toSend > 0) await this.announceWrite(`posting ${toSend} journal entr${toSend === 1 ? 'y' : 'ies'}`)
    const {api} = toSend > 0 ? await this.session() : {api: undefined}
    // Ctrl-C stops between entries: the one in flight finishes and is recorded, so that --resume
    // skips it as created rather than leaving it unconfirmed. A second Ctrl-C stops at once.
    const stop = new AbortController()
    const onSignal = () => {
      if (stop.signal.aborted) process.exit(ExitCode.interrupted)
      stop.abort()
      process.stderr.write(
        'Stopping after the entry in progress (Ctrl-C again to stop at once: it becomes unconfirmed)…\n',
      )
    }
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
    let result: PostResult
    try {
      result = await postPlanned(plans, {
        businessId,
        baseUrl,
        mode,
        signal: stop.signal,
        create: (input) =>
          (api as NonNullable<typeof api>).journalEntries.create(businessId, input, {
            performedBy: flags['performed-by'],
          }),
        onOutcome: (kind, o) => {
          if (this.jsonEnabled()) return
          if (kind === 'created') this.log(`${o.id}  ${o.file} ${entryName(o.index, o.description)}`)
          else process.stderr.write(`failed  ${o.file} ${entryName(o.index, o.description)}: ${o.error}\n`)
        },
      })
    } finally {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
    }
    onPosted(result)
    const out: JournalEntriesCreateResult = {
      dryRun: false,
      files: validated,
      created: result.created,
      skipped: result.skipped,
      failed: result.failed,
      unconfirmed: result.unconfirmed,
      notSent: result.notSent,
    }
    const notSent = out.notSent.length > 0 ? `, ${n(out.notSent.length)} not sent` : ''
    const summary = `${n(out.created.length)} created, ${n(out.skipped.length)} already created, ${n(out.failed.length)} failed, ${n(out.unconfirmed.length)} unconfirmed${notSent}`
    if (result.interrupted)
      throw new InterruptedError(`Interrupted: ${summary}`, {
        details: out,
        hint:
          out.unconfirmed.length > 0
            ? 'Check in the ledger whether the unconfirmed entries exist; run again with --resume to post the rest (created entries are skipped, unconfirmed ones never re-sent).'
            : 'Run again with --resume to post the rest: created entries are skipped.',
      })
    const onlyRejected = out.created.length + out.skipped.length + out.unconfirmed.length === 0
    if (!result.stoppedBy && !onlyRejected && (out.failed.length > 0 || out.unconfirmed.length > 0)) {
      process.stderr.write(`${summary}:\n`)
      const reasons = [...out.failed, ...out.unconfirmed].map(
        (o) => `${o.file} ${entryName(o.index, o.description)}: ${o.error ?? 'outcome unknown'}`,
      )
      return this.partial(out, {failed: out.failed.length, unconfirmed: out.unconfirmed.length}, reasons)
    }
    if (result.stoppedBy || out.failed.length > 0 || out.unconfirmed.length > 0) {
      const stopped = result.stoppedBy
      const exitCode = stopped ? stopped.exitCode : onlyRejected ? ExitCode.rejected : ExitCode.partial
      throw new BkError(`${stopped ? `Stopped: ${stopped.message}. ` : ''}${summary}`, {
        code: stopped?.code ?? 'journal_entries_failed',
        exitCode,
        details: out,
        hint:
          out.unconfirmed.length > 0
            ? 'Check in the ledger whether the unconfirmed entries exist; run again with --resume to post the rest (unconfirmed entries are never re-sent).'
            : 'Fix the failed entries, then run again with --resume: created entries are skipped.',
      })
    }
    this.note(summary)
    return out
  }
}
