/**
 * Secrets never reach output, logs, --debug traces or files: the Authorization header,
 * client_secret and tokens are replaced before a line is written.
 *
 * Besides the secret-named keys, one registry per process holds every secret value this run
 * knows (environment values, the profile's client secret, each token once obtained): stdout,
 * stderr (guardStandardStreams) and every file bk writes (redactKnown in the file writers) are
 * cleaned of them, so a service that echoes a secret back cannot make bk print or store it.
 * Only secrets of MIN_SEARCHED_SECRET_LENGTH or more are searched for: a shorter one would match
 * ordinary data. Redaction by key (headers, forms, bodies in --debug traces) applies to any length.
 */
import {JsonNumber, parseJsonTree, printJsonTree, type JsonNode} from '../shared/exact-json.js'

export const REDACTED = '[redacted]'

/**
 * The shortest secret searched for in text. Client secrets and access tokens a service issues
 * are long (dozens of characters); a secret of a few characters ("1001") also occurs in invoice
 * numbers, amounts and dates, and replacing it there would silently change exported data. Eight
 * characters is short for a credential yet long enough that data rarely holds it by chance.
 */
export const MIN_SEARCHED_SECRET_LENGTH = 8

const SECRET_KEYS = /^(authorization|client_secret|access_token|refresh_token|password|token|x-svc-signature)$/i

export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue
    out[k] = SECRET_KEYS.test(k) ? REDACTED : Array.isArray(v) ? v.join(', ') : v
  }
  return out
}

/** Redacts secret-named keys at any depth of a JSON-like value. */
export function redactValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactValue)
  if (value && typeof value === 'object' && !(value instanceof JsonNumber)) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, SECRET_KEYS.test(k) ? REDACTED : redactValue(v)]),
    )
  }
  return value
}

/**
 * A JSON text with secret-named keys redacted at any depth, compact, every number as written (a
 * --debug trace shows the body bk sends, digit for digit).
 */
export function redactJsonText(text: string): string {
  return printJsonTree(redactNode(parseJsonTree(text)))
}

function redactNode(node: JsonNode): JsonNode {
  if (node.kind === 'array') return {kind: 'array', items: node.items.map(redactNode)}
  if (node.kind !== 'object') return node
  return {
    kind: 'object',
    members: node.members.map(([k, v]) => [k, SECRET_KEYS.test(k) ? {kind: 'string', value: REDACTED} : redactNode(v)]),
  }
}

/** Last line of defence: removes each known secret string wherever it appears in a text. */
function redactText(text: string, secrets: Iterable<string | undefined>): string {
  let out = text
  for (const s of secrets) if (s && out.includes(s)) out = out.split(s).join(REDACTED)
  return out
}

const known = new Set<string>()
const revealed = new Set<string>()

/** Adds values that must never be printed or written (env values, client secret, a token). */
export function registerSecret(...secrets: Array<string | undefined>): void {
  for (const s of secrets) if (s && s.length >= MIN_SEARCHED_SECRET_LENGTH && !revealed.has(s)) known.add(s)
}

/** The one value a command exists to print (`bk auth token`): shown, not redacted. */
export function revealSecret(secret: string): void {
  revealed.add(secret)
  known.delete(secret)
}

/** A text with every registered secret replaced. */
export function redactKnown(text: string): string {
  return known.size === 0 ? text : redactText(text, known)
}

/** The environment variables whose values are secrets. */
const SECRET_ENV = ['BK_CLIENT_SECRET', 'BK_ACCESS_TOKEN'] as const

/**
 * Registers the secrets the environment gives (idempotent), and returns the names of those too
 * short to be searched for, for a warning.
 */
export function registerEnvironmentSecrets(env: NodeJS.ProcessEnv = process.env): string[] {
  registerSecret(...SECRET_ENV.map((name) => env[name]))
  return SECRET_ENV.filter((name) => {
    const value = env[name]
    return value !== undefined && value !== '' && value.length < MIN_SEARCHED_SECRET_LENGTH
  })
}

let guarded = false

/** Cleans every write to stdout and stderr of the registered secrets (once per process). */
export function guardStandardStreams(): void {
  if (guarded) return
  guarded = true
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean
    stream.write = ((chunk: unknown, ...rest: unknown[]) => write(cleanChunk(chunk), ...rest)) as typeof stream.write
  }
}

function cleanChunk(chunk: unknown): unknown {
  if (known.size === 0) return chunk
  if (typeof chunk === 'string') return redactKnown(chunk)
  if (chunk instanceof Uint8Array) {
    // Searched as bytes: a chunk holding no secret (nearly all) is passed on without a copy.
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    for (const s of known) if (bytes.includes(s)) return Buffer.from(redactKnown(bytes.toString('utf8')), 'utf8')
  }
  return chunk
}
