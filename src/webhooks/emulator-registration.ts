/**
 * `bk webhooks listen` against the local emulator registers itself as the emulator's webhook URL
 * (as `stripe listen` does with Stripe's), so `listen --port N` and `bk emulator trigger` meet
 * with no other flag, and unregisters on exit. Only for a loopback base URL that answers as the
 * emulator (`GET /_emulator/webhook`); the service proper is configured in its dashboard.
 *
 * The registration is kept in step while listening: the emulator's registration route is read
 * every second. A new `instance` (the emulator restarted) or this URL missing from `registered`
 * means the registration is gone: the listener registers again. Still registered but not in
 * force means another listener took over (the emulator gives the deliveries back when that one
 * leaves). Each change is reported once.
 *
 * Leaving takes only this URL out (DELETE ?url=): the emulator then gives the deliveries back to
 * whoever had them before this listener, if still registered, and changes nothing when another
 * listener is in force. Nothing is restored from memory, so a restarted emulator never gets a URL
 * it did not have.
 */
import {isLoopback} from '../net/loopback.js'

/** What changed in the registration, as the watch saw it. */
export type RegistrationChange =
  | {kind: 'unreachable'}
  | {kind: 'registered-again'; restarted: boolean}
  | {kind: 'taken-over'; by: string}
  | {kind: 'back'}

export interface Registration {
  /** The URL deliveries went to before (at the last registration). */
  previous: string | null
  /** Stops watching and takes this listener's URL out of the emulator's registrations. */
  unregister(): Promise<void>
}

export interface RegistrationOptions {
  onChange(change: RegistrationChange): void
  /** Between two reads of the registration route. */
  intervalMs?: number
}

interface RouteState {
  url: string | null
  registered?: string[]
  instance?: string
  previous?: string | null
}

const TIMEOUT_MS = 5_000
const WATCH_INTERVAL_MS = 1_000

/** Registers `url` with the emulator at `baseUrl` and keeps it so; undefined when that is not a loopback emulator. */
export async function registerWithEmulator(
  baseUrl: string,
  url: string,
  options: RegistrationOptions,
): Promise<Registration | undefined> {
  const base = new URL(baseUrl)
  if (!isLoopback(base.hostname)) return undefined
  const endpoint = new URL('/_emulator/webhook', base)
  if (!(await read(endpoint))) return undefined
  const put = async () => {
    const res = await fetch(endpoint, {
      method: 'PUT',
      headers: {'content-type': 'application/json'},
      body: JSON.stringify({url}),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    })
    return res.status === 200 ? ((await res.json()) as {data: RouteState}).data : undefined
  }
  const first = await put()
  if (!first) return undefined
  const registration: Registration & {instance: string | undefined} = {
    previous: first.previous ?? null,
    instance: first.instance,
    unregister: async () => {
      stopped = true
      clearTimeout(timer)
      await ticking
      const gone = new URL(endpoint)
      gone.searchParams.set('url', url)
      await fetch(gone, {method: 'DELETE', signal: AbortSignal.timeout(TIMEOUT_MS)}).catch(() => undefined)
    },
  }

  let stopped = false
  let now: 'in-force' | 'unreachable' | 'taken-over' = 'in-force'
  const tell = (next: typeof now, change: RegistrationChange) => {
    now = next
    options.onChange(change)
  }
  const tick = async () => {
    const seen = await read(endpoint)
    if (stopped) return
    if (!seen) {
      if (now !== 'unreachable') tell('unreachable', {kind: 'unreachable'})
    } else if (seen.instance !== registration.instance || !seen.registered?.includes(url)) {
      const again = await put().catch(() => undefined)
      if (!again || stopped) return
      const restarted = again.instance !== registration.instance
      registration.instance = again.instance
      registration.previous = again.previous ?? null
      tell('in-force', {kind: 'registered-again', restarted})
    } else if (seen.url !== url) {
      if (now !== 'taken-over') tell('taken-over', {kind: 'taken-over', by: seen.url ?? '(none)'})
    } else if (now !== 'in-force') {
      tell('in-force', {kind: 'back'})
    }
  }
  let ticking: Promise<void> = Promise.resolve()
  let timer: NodeJS.Timeout | undefined
  const schedule = () => {
    timer = setTimeout(() => {
      ticking = tick().finally(() => {
        if (!stopped) schedule()
      })
    }, options.intervalMs ?? WATCH_INTERVAL_MS)
    // The listener's server keeps the process alive; the watch alone must not.
    timer.unref()
  }
  schedule()
  return registration
}

/** The registration route's answer, or undefined when the emulator does not answer as one. */
async function read(endpoint: URL): Promise<RouteState | undefined> {
  const res = await fetch(endpoint, {signal: AbortSignal.timeout(TIMEOUT_MS)}).catch(() => undefined)
  if (!res || res.status !== 200) return undefined
  const body = (await res.json().catch(() => undefined)) as {data?: RouteState} | undefined
  return body?.data
}
