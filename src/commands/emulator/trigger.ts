import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'

import {isLoopback} from '../../net/loopback.js'
import {BaseCommand} from '../../cli/base-command.js'
import {EVENT_FIELDS, EVENT_TYPES} from '../../emulator/events.js'
import {BkError, ExitCode, InputError, withHint} from '../../shared/errors.js'
import {businessFlag} from '../../cli/flags.js'
import {unknownChoice} from '../../cli/usage-errors.js'

export interface EmulatorTriggerResult {
  type: string
  content: Record<string, unknown>
}

export default class EmulatorTrigger extends BaseCommand<typeof EmulatorTrigger> {
  static override summary = 'Make the running emulator emit a webhook event (like `stripe trigger`).'
  static override description =
    "Emits one event of the spec's table from the emulator at the base URL, which signs and delivers it to its --webhook-url and records it for `bk webhooks replay`. Fields not given with --field are filled with plausible values (docs/emulator.md lists them); the business is the one given with --business or the default one. The business events change the emulator as the spec says: BUSINESS_CREATED creates a new business (or the one --business names), BUSINESS_ACTIVATED and BUSINESS_DEACTIVATED make it active or inactive. Works only against the bundled emulator (a loopback base URL)."
  static override examples = [
    '<%= config.bin %> <%= command.id %> RECEIPT_MATCHED',
    '<%= config.bin %> <%= command.id %> TASK_REQUEST --field task_types=\'["request_statement"]\'',
    '<%= config.bin %> <%= command.id %> BUSINESS_ACTIVATED --business biz_demo_initech --json',
  ]

  static override args = {
    // The types in the description, not as `options`: oclif prints options as one unbreakable
    // word (A|B|C) that its wrapping cuts mid-name; run() checks the type instead.
    type: Args.string({required: true, description: `Event type: ${EVENT_TYPES.join(', ')}.`}),
  }

  static override flags = {
    field: Flags.string({
      char: 'f',
      multiple: true,
      summary: 'A content field, key=value (repeatable; JSON values such as ["a"] are sent as JSON).',
    }),
    business: businessFlag(),
  }

  async run(): Promise<EmulatorTriggerResult> {
    const {args, flags} = this
    if (!(EVENT_TYPES as readonly string[]).includes(args.type))
      throw unknownChoice('event type', args.type, EVENT_TYPES, `${this.config.bin} ${this.id?.split(':').join(' ')}`)
    const type = args.type as keyof typeof EVENT_FIELDS
    const {jsonFields, parseFieldFlags} = await import('../../cli/field-flags.js')
    const content = jsonFields(parseFieldFlags(flags.field))
    const credentials = await this.credentials()
    if (!isLoopback(new URL(credentials.baseUrl).hostname)) {
      throw new InputError(
        `bk emulator trigger talks to the bundled emulator only, and ${credentials.baseUrl} is not a loopback address`,
        {
          hint: 'Point bk at the emulator: bk emulator start prints the profile or environment to use.',
        },
      )
    }
    // BUSINESS_CREATED makes a new business: only a --business given names it, never the default.
    const business = type === 'BUSINESS_CREATED' ? flags.business : credentials.businessId
    if (business && (EVENT_FIELDS[type] as readonly string[]).includes('business_id')) content.business_id ??= business
    // An emulator-only route that takes no token: a plain client, not a session (no secret read).
    const {BkClient} = await import('../../api/client.js')
    const [{single}, {webhookMessage}] = await Promise.all([
      import('../../api/schemas/common.js'),
      import('../../api/schemas/webhook.js'),
    ])
    const client = new BkClient({baseUrl: credentials.baseUrl, ...this.transportOptions})
    let res
    let webhookUrl: string | null | undefined
    try {
      res = await client
        .request({
          method: 'POST',
          path: '/_emulator/events',
          // The business also for types whose content names none (RECEIPT_MATCHED): its document and
          // transaction fill the content, and the emulator refuses a business it does not hold.
          json: {type, content, ...(business && type !== 'BUSINESS_CREATED' ? {business_id: business} : {})},
          auth: false,
          schema: single(webhookMessage),
        })
        .catch((error: unknown) => {
          // The only id the route looks up is the business's.
          if (error instanceof BkError && error.exitCode === ExitCode.notFound)
            throw withHint(error, '`bk businesses list` shows the businesses the emulator holds; --business picks one.')
          throw error
        })
      // Where it went: an event with no webhook URL set reaches no listener, and must say so.
      const where = await client
        .request<{data?: {url?: string | null}}>({method: 'GET', path: '/_emulator/webhook', auth: false})
        .catch(() => undefined)
      webhookUrl = where?.data.data?.url
    } finally {
      await client.close()
    }
    const result = {type: res.data.data.type, content: res.data.data.content}
    if (!this.jsonEnabled()) this.log(`${result.type} emitted: ${JSON.stringify(result.content)}`)
    if (webhookUrl === null)
      process.stderr.write(
        'Warning: the emulator has no webhook URL, so the event was delivered nowhere (it waits as a pending notification for `bk webhooks replay`). Start `bk webhooks listen --port 8787` against this emulator (it registers itself), or restart the emulator with --webhook-url URL.\n',
      )
    return result
  }
}
