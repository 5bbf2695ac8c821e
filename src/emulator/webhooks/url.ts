/**
 * The one rule for a URL the emulator delivers webhooks to, for `--webhook-url` at start as for
 * a listener's registration (PUT /_emulator/webhook): absolute, http or https.
 */
export const WEBHOOK_URL_RULE = 'an absolute http(s) URL'

/** The URL as the emulator keeps it, or undefined when it breaks the rule. */
export function webhookUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return undefined
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : undefined
}
