import {Flags} from '@oclif/core'

import {BaseCommand} from '../../base-command.js'
import {jwksFlag, splitList} from '../../flags.js'

export type WebhooksListenResult = undefined

export default class WebhooksListen extends BaseCommand<typeof WebhooksListen> {
  static override summary = 'Receive webhooks locally: verify, print and forward each delivery.'
  static override description = `Listens on 127.0.0.1:PORT (point the service, or \`bk emulator start --webhook-url\`, at it). Each POST is verified: invalid ones are answered 400, valid ones 200 and printed once per svc-id (--json: one JSON line each). With --forward-to, valid deliveries are posted there with their original headers and body, and the answer follows the target: 200 when it answered 2xx, 502 otherwise, so that the service retries. Stops on Ctrl-C.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> --port 8787',
    '<%= config.bin %> <%= command.id %> --port 8787 --forward-to http://localhost:3000/webhooks --events BUSINESS_CREATED,TASK_REQUEST',
    '<%= config.bin %> <%= command.id %> --port 8787 --jwks jwks.json --json',
  ]

  static override flags = {
    port: Flags.integer({
      summary: 'Port to listen on (0 picks a free one; the address is printed on stderr).',
      required: true,
      min: 0,
      max: 65535,
    }),
    host: Flags.string({summary: 'Address to listen on.', default: '127.0.0.1'}),
    'forward-to': Flags.string({
      summary: 'Post each verified delivery to this URL, headers and body unchanged.',
      helpValue: 'URL',
    }),
    events: Flags.string({
      summary: 'Only these event types (comma-separated) are printed and forwarded; others are acknowledged.',
      helpValue: 'TYPE,…',
    }),
    jwks: jwksFlag(),
  }

  async run(): Promise<WebhooksListenResult> {
    const {flags} = this
    const {forwardUrl} = await import('../../webhooks/forward.js')
    const forwardTo = flags['forward-to'] === undefined ? undefined : forwardUrl(flags['forward-to'])
    const events = splitList(flags.events)
    const {webhookKeys} = await import('../../webhooks/keys.js')
    const {startListener} = await import('../../webhooks/listener.js')
    const keys = await webhookKeys({jwks: flags.jwks, credentials: () => this.credentials(), configDir: this.configDir})
    // Fail now, not at the first delivery, when the key set cannot be had.
    const first = await keys.current()
    const json = this.jsonEnabled()
    const listener = await startListener({
      port: flags.port,
      host: flags.host,
      keys,
      forwardTo,
      events,
      onEvent: (e) => {
        if (json) {
          this.writeJsonLine(e)
          return
        }
        const time = e.receivedAt.slice(11, 19)
        const what = e.valid ? `valid${e.duplicate ? ' (duplicate, ignored)' : ''}` : `INVALID: ${e.reason ?? ''}`
        const fwd = e.forwarded ? `  → ${e.forwarded.status ?? e.forwarded.error ?? '?'}` : ''
        process.stdout.write(`${time}  ${e.status}  ${e.svcId ?? '-'}  ${e.type ?? '-'}  ${what}${fwd}\n`)
      },
    }).catch(async (error: NodeJS.ErrnoException) => {
      const {listenError} = await import('../../listen-error.js')
      throw listenError(error, flags.host, flags.port)
    })
    process.stderr.write(
      `Listening on ${listener.url} (key ${first.kid ?? 'without kid'} from ${first.source})${forwardTo ? `, forwarding to ${forwardTo}` : ''}. Ctrl-C to stop.\n`,
    )
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve)
      process.once('SIGTERM', resolve)
    })
    await listener.close()
    return undefined
  }
}
