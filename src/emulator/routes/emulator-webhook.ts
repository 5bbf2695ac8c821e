/**
 * Where the emulator delivers webhooks, changeable at run time (the service configures it in a
 * dashboard): `bk webhooks listen` registers itself here when it listens for a loopback
 * emulator, and unregisters on exit, as `stripe listen` does.
 *
 * GET /_emulator/webhook: `{data: {url, key_since}}` (url null when none; key_since: when the
 * signing key came into use).
 * PUT /_emulator/webhook `{url}`: deliveries go there from now on; 200 `{data: {url, previous}}`.
 * DELETE /_emulator/webhook?url=URL: when URL is the one in force, back to --webhook-url (or
 * none); another URL changes nothing. 200 `{data: {url, removed}}`.
 * No token needed, never faulted.
 */
import {HttpError, ok, parseJsonObject} from '../http.js'
import type {EmulatorContext} from './context.js'

function checkUrl(value: unknown): string {
  let url: URL | undefined
  try {
    url = typeof value === 'string' ? new URL(value) : undefined
  } catch {
    url = undefined
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new HttpError(422, 'url must be an absolute http(s) URL', {field: 'url', value})
  return url.toString()
}

export function register({router, options, webhooks}: EmulatorContext): void {
  router.add('GET', '/_emulator/webhook', () =>
    ok({data: {url: webhooks.url ?? null, key_since: new Date(webhooks.signer.since).toISOString()}}),
  )

  router.add('PUT', '/_emulator/webhook', (ctx) => {
    const url = checkUrl(parseJsonObject(ctx.rawBody, '{url}').url)
    const previous = webhooks.url ?? null
    webhooks.url = url
    return ok({data: {url, previous}})
  })

  router.add('DELETE', '/_emulator/webhook', (ctx) => {
    const url = checkUrl(ctx.query.get('url'))
    const removed = webhooks.url === url
    if (removed) webhooks.url = options.webhookUrl === url ? undefined : options.webhookUrl
    return ok({data: {url: webhooks.url ?? null, removed}})
  })
}
