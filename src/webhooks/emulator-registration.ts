/**
 * `bk webhooks listen` against the local emulator registers itself as the emulator's webhook URL
 * (as `stripe listen` does with Stripe's), so `listen --port N` and `bk emulator trigger` meet
 * with no other flag, and unregisters on exit. Only for a loopback base URL that answers as the
 * emulator (`GET /_emulator/webhook`); the service proper is configured in its dashboard.
 */
import {isLoopback} from '../auth/base-url.js'

export interface Registration {
  /** The URL deliveries went to before. */
  previous: string | null
  /** Stops deliveries to this listener, unless another one took the place since. */
  unregister(): Promise<void>
}

const TIMEOUT_MS = 5_000

/** Registers `url` with the emulator at `baseUrl`; undefined when that is not a loopback emulator. */
export async function registerWithEmulator(baseUrl: string, url: string): Promise<Registration | undefined> {
  const base = new URL(baseUrl)
  if (!isLoopback(base.hostname)) return undefined
  const endpoint = new URL('/_emulator/webhook', base)
  const probe = await fetch(endpoint, {signal: AbortSignal.timeout(TIMEOUT_MS)}).catch(() => undefined)
  if (!probe || probe.status !== 200) return undefined
  const res = await fetch(endpoint, {
    method: 'PUT',
    headers: {'content-type': 'application/json'},
    body: JSON.stringify({url}),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  })
  if (res.status !== 200) return undefined
  const {data} = (await res.json()) as {data: {previous: string | null}}
  return {
    previous: data.previous,
    unregister: async () => {
      const gone = new URL(endpoint)
      gone.searchParams.set('url', url)
      await fetch(gone, {method: 'DELETE', signal: AbortSignal.timeout(TIMEOUT_MS)}).catch(() => undefined)
    },
  }
}
