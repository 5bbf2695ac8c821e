/**
 * Where the emulator delivers webhooks, changeable at run time (the service configures it in a
 * dashboard): `bk webhooks listen` registers itself here when it listens for a loopback
 * emulator, and unregisters on exit, as `stripe listen` does. Registrations stack (hub.ts): the
 * last one is in force, and one that leaves gives the deliveries back to the one before it.
 *
 * Every answer carries `instance` and `started_at`: this start of the emulator (a listener
 * watching them sees a restart, which forgot its registration).
 * GET /_emulator/webhook: `{data: {url, registered, key_since, instance, started_at}}` (url null
 * when none; registered: the listeners' URLs, oldest first; key_since: when the signing key came
 * into use).
 * PUT /_emulator/webhook `{url}`: deliveries go there from now on; 200 `{data: {url, previous}}`.
 * DELETE /_emulator/webhook?url=URL: takes URL out of the registrations; when it was in force,
 * the one registered before it is, else --webhook-url (or none). 200 `{data: {url, removed}}`.
 * No token needed, never faulted.
 */
import {HttpError, ok, parseJsonObject} from '../http.js'
import {WEBHOOK_URL_RULE, webhookUrl} from '../webhooks/url.js'
import type {EmulatorContext} from './context.js'

function checkUrl(value: unknown): string {
  const url = webhookUrl(value)
  if (url === undefined) throw new HttpError(422, `url must be ${WEBHOOK_URL_RULE}`, {field: 'url', value})
  return url
}

export function register({router, webhooks}: EmulatorContext): void {
  const start = {instance: webhooks.instance, started_at: webhooks.startedAt}

  router.add('GET', '/_emulator/webhook', () =>
    ok({
      data: {
        url: webhooks.url ?? null,
        registered: webhooks.registered,
        key_since: new Date(webhooks.signer.since).toISOString(),
        ...start,
      },
    }),
  )

  router.add('PUT', '/_emulator/webhook', (ctx) => {
    const url = checkUrl(parseJsonObject(ctx.rawBody, '{url}').url)
    const previous = webhooks.register(url) ?? null
    return ok({data: {url, previous, ...start}})
  })

  router.add('DELETE', '/_emulator/webhook', (ctx) => {
    const removed = webhooks.unregister(checkUrl(ctx.query.get('url')))
    return ok({data: {url: webhooks.url ?? null, removed, ...start}})
  })
}
