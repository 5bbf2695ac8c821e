/**
 * Starts the real emulator in-process on a loopback port (port 0) and gives the environment
 * that points bk at it with no profile at all.
 */
import {startEmulator, type RunningEmulator} from '../../src/emulator/server.js'
import type {EmulatorOptions} from '../../src/emulator/options.js'

export type {RunningEmulator}

export function start(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  return startEmulator({port: 0, ...options})
}

/** Environment-only credentials for bk (the CI way): BK_BASE_URL, BK_CLIENT_ID/SECRET, business. */
/** Pass `null` for no business (an unscoped token). */
export function envFor(
  emulator: RunningEmulator,
  business: string | null = emulator.businessIds[0] ?? null,
): Record<string, string | undefined> {
  return {
    BK_BASE_URL: emulator.baseUrl,
    BK_CLIENT_ID: emulator.clientId,
    BK_CLIENT_SECRET: emulator.clientSecret,
    BK_BUSINESS_ID: business ?? undefined,
  }
}

/** The arguments of `bk profiles add NAME` for this emulator (the secret goes to stdin), then `extra`. */
export function addProfileArgs(emulator: RunningEmulator, name: string, ...extra: string[]): string[] {
  return [
    ...['profiles', 'add', name, '--env', 'local', '--base-url', emulator.baseUrl],
    ...['--client-id', emulator.clientId, '--client-secret-stdin', ...extra],
  ]
}

/** A token straight from the emulator's token endpoint, for tests of raw HTTP. */
export async function tokenFor(emulator: RunningEmulator, form: Record<string, string> = {}): Promise<string> {
  const res = await fetch(`${emulator.baseUrl}/v0/auth/token`, {
    method: 'POST',
    headers: {'content-type': 'application/x-www-form-urlencoded'},
    body: new URLSearchParams({client_id: emulator.clientId, client_secret: emulator.clientSecret, ...form}),
  })
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${await res.text()}`)
  return ((await res.json()) as {access_token: string}).access_token
}
