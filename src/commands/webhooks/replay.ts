import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {BkError, ExitCode, InterruptedError, withHint} from '../../shared/errors.js'
import {closedList} from '../../cli/flags.js'
import {WEBHOOK_STATUSES} from '../../shared/spec.js'

export interface WebhooksReplayResult {
  count: number
  failed: number
  lastId: string | null
  items: Array<{
    id: string
    datetime: string
    /** Delivery status: pending, sent or error (unknown when it changed while bk read). */
    status: string
    type: string
    notification: unknown
    forwarded: {url: string; status: number | null; ok: boolean; error?: string; detail?: string} | null
  }>
}

export default class WebhooksReplay extends BaseCommand<typeof WebhooksReplay> {
  static override summary = 'List past webhook notifications, or re-post them to a URL.'
  static override description = `Pages through the notifications the service kept (all after --since, filtered by --status) and prints them with their delivery status (pending, sent, error: what was never delivered), or re-posts each original message to --forward-to and reports each answer. Replayed posts cannot be re-signed: they carry content-type, svc-id (the original id) and bk-replay: 1, and no svc-signature.

Ctrl-C stops after the notification in progress and prints the last id handled; run again with --since that id to continue. Exit codes: 0 done; ${ExitCode.partial} some re-posts failed; ${ExitCode.interrupted} interrupted.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> --status error',
    '<%= config.bin %> <%= command.id %> --since msg_000001a2b3c4d5 --forward-to http://localhost:3000/webhooks',
    '<%= config.bin %> <%= command.id %> --status pending,error --limit 50 --json',
  ]

  static override flags = {
    since: Flags.string({
      summary: 'Only notifications created after this one (the svc-id of the last webhook received).',
      helpValue: 'SVC_ID',
    }),
    status: Flags.string({
      summary: 'Only these statuses: pending, sent, error (comma-separated).',
      helpValue: 'STATUS,…',
    }),
    'forward-to': Flags.string({summary: 'Re-post each original message to this URL.', helpValue: 'URL'}),
    limit: Flags.integer({summary: 'Stop after this many notifications.', min: 1}),
    'page-size': Flags.integer({summary: 'Notifications per request (1 to 100).', min: 1, max: 100}),
    junit: Flags.string({
      summary: 'Also write a JUnit XML report for CI test views: one test case per notification.',
      helpValue: 'FILE.xml',
    }),
  }

  async run(): Promise<WebhooksReplayResult> {
    const {flags} = this
    const status = closedList(flags.status, WEBHOOK_STATUSES, 'notification status in --status', 'bk webhooks replay')
    const {forwardUrl} = await import('../../webhooks/forward.js')
    const forwardTo = flags['forward-to'] === undefined ? undefined : forwardUrl(flags['forward-to'])
    const ci = flags.junit === undefined ? undefined : await import('../../ci/webhook-replay.js')
    if (flags.junit) await ci?.checkJunitPath(flags.junit)
    const started = performance.now()
    const {client} = await this.session({tenantLevel: true})
    const {replay} = await import('../../webhooks/replay.js')
    const {formatDatetime} = await import('../../output/display.js')
    const {counted, formatCount} = await import('../../shared/counts.js')
    const json = this.jsonEnabled()
    const items: WebhooksReplayResult['items'] = []
    let refusedUnsigned = false
    const controller = new AbortController()
    const onSignal = () => {
      if (controller.signal.aborted) process.exit(ExitCode.interrupted)
      process.stderr.write('Stopping after the notification in progress (Ctrl-C again to stop at once)…\n')
      controller.abort()
    }
    process.on('SIGINT', onSignal)
    process.on('SIGTERM', onSignal)
    let summary
    try {
      summary = await replay({
        client,
        since: flags.since,
        status,
        limit: flags.limit,
        pageSize: flags['page-size'],
        forwardTo,
        signal: controller.signal,
        onItem: (item) => {
          items.push({
            id: item.id,
            datetime: item.datetime,
            status: item.status,
            type: item.type,
            notification: item.notification,
            forwarded: item.forwarded,
          })
          if (json) return
          const f = item.forwarded
          const fwd = f
            ? `  → ${f.ok ? 'ok' : 'FAILED'} ${f.status ?? f.error ?? ''}${!f.ok && f.detail ? `: ${f.detail}` : ''}`
            : ''
          if (f && !f.ok && f.status !== null && f.status >= 400 && f.status < 500) refusedUnsigned = true
          // For people: what, when and whether it arrived; the body is in --json.
          process.stdout.write(
            `${item.id}  ${formatDatetime(item.datetime)}  ${item.status.padEnd(7)}  ${item.type}${fwd}\n`,
          )
        },
      })
    } catch (error) {
      // The only id replay looks up is --since's; the general hint would name a --business replay lacks.
      if (flags.since && error instanceof BkError && error.exitCode === ExitCode.notFound)
        throw withHint(
          error,
          `\`${this.config.bin} webhooks replay\` without --since lists the notifications the service kept, with their ids.`,
        )
      throw error
    } finally {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
    }
    const result: WebhooksReplayResult = {count: summary.count, failed: summary.failed, lastId: summary.lastId, items}
    if (flags.junit) ci?.writeReplayJunit(flags.junit, items, forwardTo, performance.now() - started)
    const again = (id: string) =>
      `${this.config.bin} webhooks replay --since ${id}${flags.status ? ` --status ${flags.status}` : ''}${flags['forward-to'] ? ` --forward-to ${flags['forward-to']}` : ''}`
    if (summary.interrupted) {
      throw new InterruptedError(
        `Interrupted after ${counted(summary.count, 'notification')}; last replayed: ${summary.lastId ?? 'none'}`,
        {
          details: result,
          ...(summary.lastId ? {hint: `Continue with: ${again(summary.lastId)}`} : {}),
        },
      )
    }
    if (summary.failed > 0) {
      process.stderr.write(
        `${formatCount(summary.failed)} of ${counted(summary.count, 're-post')} to ${forwardTo} failed:\n`,
      )
      const reasons = items
        .filter((i) => i.forwarded && !i.forwarded.ok)
        .map(
          (i) =>
            `${i.id}: ${i.forwarded!.error ?? `HTTP ${i.forwarded!.status}`}${i.forwarded!.detail ? `: ${i.forwarded!.detail}` : ''}`,
        )
      const partial = this.partial(result, {failed: summary.failed, unconfirmed: 0}, reasons)
      if (refusedUnsigned)
        this.note(
          'The target refused them: replays carry no signature (bk cannot sign), only `bk-replay: 1`. A `bk webhooks listen` takes them with --accept-replays (from this machine); an app of your own must accept that header where it checks signatures.',
        )
      return partial
    }
    this.note(
      `${counted(summary.count, 'notification')}${forwardTo ? ` re-posted to ${forwardTo}` : ''}${summary.lastId ? `; last: ${summary.lastId}` : ''}`,
    )
    return result
  }
}
