import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {InputError} from '../../shared/errors.js'
import type {ListenerEvent, RunningListener} from '../../webhooks/listener.js'
import {closedList, jwksFlag} from '../../cli/flags.js'
import {EVENT_TYPES} from '../../shared/webhook-events.js'

export type WebhooksListenResult = undefined

export default class WebhooksListen extends BaseCommand<typeof WebhooksListen> {
  static override summary = 'Receive webhooks locally: verify, print and forward each delivery.'
  static override description = `Listens on 127.0.0.1:PORT (point the service at it; the local emulator is pointed at it by listen itself, and back on exit). Each POST is verified: invalid ones are answered 400, valid ones 200 and printed once per svc-id (--json: one JSON line each). With --forward-to, the text that was signed is posted there with the original headers, and the answer follows the target: 200 when it answered 2xx, 502 otherwise, so that the service retries. With --state, the deliveries handled are remembered across restarts, and --catch-up forwards first, in order, what the target has not acknowledged: from the oldest delivery it refused (or a kill cut short), else what the service sent after the last one handled. A kill during a forward may repeat that one delivery: at most one repeat, with the same svc-id, so the target can drop it. Against the emulator, listen registers again when the emulator restarts, says on stderr when another listener takes the deliveries over (and when they come back), and on exit takes only its own URL out. Stops on Ctrl-C.`

  static override examples = [
    '<%= config.bin %> <%= command.id %> --port 8787',
    '<%= config.bin %> <%= command.id %> --port 8787 --forward-to http://localhost:3000/webhooks --events BUSINESS_CREATED,TASK_REQUEST',
    '<%= config.bin %> <%= command.id %> --port 8787 --jwks jwks.json --json',
    '<%= config.bin %> <%= command.id %> --port 8787 --forward-to http://localhost:3000/webhooks --state listen.state --catch-up',
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
      description: `The types of the spec: ${EVENT_TYPES.join(', ')}.`,
      helpValue: 'TYPE,…',
    }),
    jwks: jwksFlag(),
    state: Flags.string({
      summary: 'Remember the deliveries handled (and the last one) in this file, across restarts.',
      helpValue: 'FILE',
    }),
    'catch-up': Flags.boolean({
      summary:
        'On start, forward first what the target has not acknowledged, in order, from the oldest (from the notifications API).',
      dependsOn: ['state'],
    }),
    'accept-replays': Flags.boolean({
      summary: 'Accept unsigned replays (bk webhooks replay --forward-to) from this machine.',
    }),
    register: Flags.boolean({
      summary: 'Against the local emulator: become its webhook URL while listening (on by default).',
      default: true,
      allowNo: true,
    }),
  }

  async run(): Promise<WebhooksListenResult> {
    const {flags} = this
    const {forwardUrl} = await import('../../webhooks/forward.js')
    const forwardTo = flags['forward-to'] === undefined ? undefined : forwardUrl(flags['forward-to'])
    // A mistyped type would match nothing, and its deliveries be acknowledged unseen.
    const events = closedList(flags.events, EVENT_TYPES, 'event type in --events', 'bk webhooks listen')
    const {webhookKeys} = await import('../../webhooks/keys.js')
    const {startListener} = await import('../../webhooks/listener.js')
    const {DeliveryMemory} = await import('../../webhooks/delivery-memory.js')
    const {StateFileError} = await import('../../shared/state-file.js')
    const memory = await DeliveryMemory.open(flags.state).catch((error: unknown) => {
      if (error instanceof StateFileError)
        throw new InputError(error.message, {code: 'state_file_unusable', hint: error.hint})
      throw error
    })
    const keys = await webhookKeys({jwks: flags.jwks, credentials: () => this.credentials(), configDir: this.configDir})
    // Fail now, not at the first delivery, when the key set cannot be had.
    const first = await keys.current()
    const json = this.jsonEnabled()
    let caughtUp: () => void = () => {}
    const ready = flags['catch-up'] ? new Promise<void>((resolve) => (caughtUp = resolve)) : undefined
    const print = (e: ListenerEvent) => {
      if (json) {
        this.writeJsonLine(e)
        return
      }
      const time = e.receivedAt.slice(11, 19)
      const how = e.source === 'live' ? '' : ` (${e.source})`
      const what = e.valid ? `valid${how}${e.duplicate ? ' (duplicate, ignored)' : ''}` : `INVALID: ${e.reason ?? ''}`
      const fwd = e.forwarded ? `  → ${e.forwarded.status ?? e.forwarded.error ?? '?'}` : ''
      process.stdout.write(`${time}  ${e.status}  ${e.svcId ?? '-'}  ${e.type ?? '-'}  ${what}${fwd}\n`)
    }
    const listener = await startListener({
      port: flags.port,
      host: flags.host,
      keys,
      forwardTo,
      events,
      memory,
      ready,
      acceptReplays: flags['accept-replays'],
      onEvent: print,
      onForwardingChange: (failing, detail) =>
        process.stderr.write(
          failing
            ? `bk: FORWARDING TO ${forwardTo} IS FAILING (${detail}): deliveries are answered 502, so the service retries them\n`
            : `bk: forwarding to ${forwardTo} works again\n`,
        ),
    }).catch(async (error: NodeJS.ErrnoException) => {
      const {listenError} = await import('../../cli/listen-error.js')
      throw listenError(error, flags.host, flags.port)
    })
    const registration = flags.register ? await this.register(listener.port, flags.jwks) : undefined
    process.stderr.write(
      `Listening on ${listener.url} (key ${first.kid ?? 'without kid'} from ${first.source})${forwardTo ? `, forwarding to ${forwardTo}` : ''}${registration ? '; the emulator delivers here until listen stops' : ''}. Ctrl-C to stop.\n`,
    )
    const stop = new AbortController()
    const stopped = new Promise<void>((resolve) => {
      const onSignal = () => {
        stop.abort()
        resolve()
      }
      process.once('SIGINT', onSignal)
      process.once('SIGTERM', onSignal)
    })
    try {
      if (flags['catch-up']) await this.catchUp(listener, events, stop.signal, print)
      caughtUp()
      await stopped
    } finally {
      caughtUp()
      await registration?.unregister()
      await listener.close()
    }
    return undefined
  }

  /** Registers the listener with a loopback emulator at the base URL, when there is one. */
  private async register(port: number, jwks: string | undefined) {
    const {registerWithEmulator} = await import('../../webhooks/emulator-registration.js')
    const {keySetBaseUrl} = await import('../../webhooks/jwks.js')
    if (jwks !== undefined && !process.env.BK_BASE_URL && !process.env.BK_PROFILE) return undefined
    const baseUrl = await keySetBaseUrl(() => this.credentials()).catch(() => undefined)
    if (!baseUrl) return undefined
    const host = this.flags.host === '0.0.0.0' || this.flags.host === '::' ? '127.0.0.1' : this.flags.host
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}/`
    const say = (line: string) => process.stderr.write(`bk: ${line}\n`)
    return registerWithEmulator(baseUrl, url, {
      onChange: (change) => {
        if (change.kind === 'unreachable')
          say(`the emulator at ${baseUrl} does not answer; listening on, and registering again when it is back`)
        else if (change.kind === 'registered-again')
          say(
            `the emulator at ${baseUrl} ${change.restarted ? 'restarted' : 'forgot this listener'}; registered again, it delivers here until listen stops`,
          )
        else if (change.kind === 'taken-over')
          say(
            `another listener (${change.by}) took over the emulator's deliveries; this one gets them back when that one stops (Ctrl-C stops this one)`,
          )
        else say(`the emulator delivers here again`)
      },
    }).catch(() => undefined)
  }

  /** Forwards what the target has not acknowledged, from the service's notifications, before any live delivery. */
  private async catchUp(
    listener: RunningListener,
    events: readonly string[] | undefined,
    signal: AbortSignal,
    print: (e: ListenerEvent) => void,
  ): Promise<void> {
    const {client} = await this.session({tenantLevel: true})
    const {catchUp} = await import('../../webhooks/catch-up.js')
    const start = listener.memory.catchUpFrom()
    const from = !start
      ? 'from nothing handled yet'
      : start.unacknowledged.length > 0
        ? `from ${start.unacknowledged[0]}, the oldest delivery not acknowledged${start.since ? ` (reading after ${start.since})` : ''}`
        : `after ${start.since}, the last delivery handled`
    process.stderr.write(`Catching up ${from}…\n`)
    const memory = listener.memory
    const result = await catchUp({client, memory, events, forward: listener.forward, signal, onEvent: print})
    for (const id of result.lost)
      process.stderr.write(
        `bk: ${id} was not acknowledged by the target and the service does not list it after where the catch-up started; it was not forwarded (bk webhooks replay can find it)\n`,
      )
    process.stderr.write(
      result.note
        ? `Caught up nothing: ${result.note}.\n`
        : `Caught up: ${result.forwarded} forwarded, ${result.skipped} already handled; now live.\n`,
    )
  }
}
