import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../cli/base-command.js'
import {businessFlag} from '../cli/flags.js'
import {commandLineError, unknownChoice} from '../cli/usage-errors.js'
import {unreadableBecause} from '../files/file-errors.js'
import type {JsonNode, JsonText} from '../shared/exact-json.js'

const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const

function contentType(headers: Record<string, string | string[] | undefined>): string | undefined {
  const value = headers['content-type']
  return Array.isArray(value) ? value[0] : value
}

export default class ApiCommand extends BaseCommand<typeof ApiCommand> {
  static override summary = 'Call any endpoint of the service with your credentials (like `gh api`).'
  static override description =
    'PATH is relative to the base URL, e.g. /v0/business. {business_id} in PATH is replaced with the resolved business. The method goes before PATH or in --method; without either it is GET (unlike gh, fields never make a call a POST: a write is always named). --field k=v goes to the query string for GET and DELETE, and into a JSON body otherwise (values that parse as JSON are sent as JSON).'
  static override usage =
    '<%= command.id %> [METHOD] PATH [--method METHOD] [--field k=v]... [--input FILE] [--paginate]'
  static override examples = [
    '<%= config.bin %> <%= command.id %> /v0/business --paginate',
    '<%= config.bin %> <%= command.id %> GET /v0/business/{business_id}/invoice --field status=open --field page_size=5',
    '<%= config.bin %> <%= command.id %> PATCH /v0/business/{business_id}/rules/receipts --field is_enabled=true',
    '<%= config.bin %> <%= command.id %> POST /v0/business/{business_id}/journal-entries --input entry.json',
  ]

  static override args = {
    method: Args.string({
      required: true,
      description: 'HTTP method (GET, POST, PATCH, PUT, DELETE); or PATH, the method left out (GET, or --method)',
    }),
    path: Args.string({description: 'Path after a METHOD, e.g. /v0/business'}),
  }

  /** The service's answer as received: bk's snake_case printing has nothing to change in it. */
  protected override readonly jsonAsReceived = true

  static override flags = {
    field: Flags.string({char: 'f', multiple: true, summary: 'A key=value parameter (repeatable).'}),
    input: Flags.string({summary: 'File with the JSON request body (- for stdin).', exclusive: ['field']}),
    method: Flags.string({
      char: 'X',
      summary: 'HTTP method, as gh api takes it (or give it before PATH).',
      options: [...METHODS, ...METHODS.map((m) => m.toLowerCase())],
    }),
    paginate: Flags.boolean({summary: 'Follow next_page_token and print every item of every page as one JSON array.'}),
    business: businessFlag(),
  }

  async run(): Promise<unknown> {
    const {flags, args} = this
    const {InputError} = await import('../shared/errors.js')
    const {method, path} = methodAndPath(args.method, args.path, flags.method)
    let rawPath = path.startsWith('/') ? path : `/${path}`
    if (rawPath.includes('{business_id}'))
      rawPath = rawPath.replaceAll('{business_id}', encodeURIComponent(await this.businessId()))
    const [pathPart, queryPart] = rawPath.split('?', 2) as [string, string | undefined]
    const query: Record<string, string> = Object.fromEntries(new URLSearchParams(queryPart ?? ''))
    // Bodies travel as text: a number past a double's precision (an amount) goes as written.
    let jsonText: string | undefined
    const {jsonFieldsText, parseFieldFlags} = await import('../cli/field-flags.js')
    const fields = parseFieldFlags(flags.field)
    if (method === 'GET' || method === 'DELETE') {
      Object.assign(query, fields)
    } else if (flags.input) {
      const label = flags.input === '-' ? 'stdin' : flags.input
      const {readFile} = await import('node:fs/promises')
      const {buffer} = await import('node:stream/consumers')
      const {decodeUtf8} = await import('../shared/utf8.js')
      const bytes =
        flags.input === '-'
          ? await buffer(process.stdin)
          : await readFile(flags.input).catch((error: unknown) => {
              throw new InputError(`Cannot read --input ${flags.input}: ${unreadableBecause(error)}`)
            })
      jsonText = decodeUtf8(bytes, label)
      try {
        JSON.parse(jsonText)
      } catch (error) {
        throw new InputError(`${label} is not valid JSON: ${(error as Error).message}`)
      }
    } else if (Object.keys(fields).length) {
      jsonText = jsonFieldsText(fields)
    }
    // Before any request (a token's included): a usage error sends nothing.
    if (flags.paginate && method !== 'GET') throw new InputError('--paginate works only with GET')
    if (method !== 'GET' && method !== 'DELETE') await this.announceWrite(`${method} ${pathPart}`)
    const {client} = await this.session()
    const {answerText, itemsText, pageOf} = await import('../output/answer-text.js')
    let printed: JsonText | undefined
    if (flags.paginate) {
      const items: JsonNode[] = []
      let token: string | undefined = query.page_token
      const {CursorTrail} = await import('../api/cursor-trail.js')
      const trail = new CursorTrail(`GET ${pathPart}`, token)
      do {
        const res = await client.request<string>({
          method,
          path: pathPart,
          query: {...query, page_token: token},
          responseText: true,
        })
        const page = pageOf(res.data, contentType(res.headers))
        // Known only from the answer: the service's, not a usage error (exit 2 says nothing was sent).
        if (!page) {
          const {ResponseShapeError} = await import('../api/errors.js')
          throw new ResponseShapeError(
            `GET ${pathPart} did not answer with a paginated list (an object with data and pagination), so --paginate cannot follow it`,
            undefined,
            'Run it again without --paginate to print the answer as it is.',
          )
        }
        items.push(...page.items)
        token = page.nextPageToken
        if (token) trail.follow(token)
      } while (token)
      printed = itemsText(items)
    } else {
      const res = await client.request<string>({method, path: pathPart, query, jsonText, responseText: true})
      printed = answerText(res.data, contentType(res.headers))
    }
    if (!this.jsonEnabled()) this.log(printed?.text ?? '')
    return printed ?? null
  }
}

/**
 * `bk api GET PATH` as before, or gh's `bk api PATH [-X METHOD]`: the first argument is the
 * method when it names one. A method given both ways must agree.
 */
function methodAndPath(
  first: string,
  second: string | undefined,
  flag: string | undefined,
): {method: (typeof METHODS)[number]; path: string} {
  const named = METHODS.find((m) => m === first.toUpperCase())
  const fromFlag = flag?.toUpperCase() as (typeof METHODS)[number] | undefined
  if (named === undefined) {
    if (second !== undefined) throw unknownChoice('HTTP method', first, METHODS, 'bk api')
    return {method: fromFlag ?? 'GET', path: first}
  }
  if (second === undefined)
    throw commandLineError(`Missing PATH after ${named}`, `Give the endpoint's path, e.g. bk api ${named} /v0/business`)
  if (fromFlag !== undefined && fromFlag !== named)
    throw commandLineError(`${named} and --method ${fromFlag} name two methods`, 'Keep one of them.')
  return {method: named, path: second}
}
