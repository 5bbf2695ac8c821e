/**
 * Secrets never reach output, logs or --debug traces: the Authorization header, client_secret
 * and tokens are replaced before a line is written.
 */
export const REDACTED = '[redacted]'

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
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, SECRET_KEYS.test(k) ? REDACTED : redactValue(v)]),
    )
  }
  return value
}

/** Last line of defence: removes each known secret string wherever it appears in a text. */
export function redactText(text: string, secrets: Iterable<string | undefined>): string {
  let out = text
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join(REDACTED)
  return out
}
