/**
 * Raw HTTP against the emulator for its own tests: one call, its status, headers and parsed body.
 */
import type {RunningEmulator} from '../helpers/emulator.js'

export interface HttpResult<T = unknown> {
  status: number
  headers: Headers
  body: T
  text: string
}

export interface CallOptions {
  token?: string
  /** Sent as JSON. */
  json?: unknown
  /** Sent form-encoded. */
  form?: Record<string, string>
  /** Sent as is. */
  body?: string
  headers?: Record<string, string>
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read loosely shaped bodies
export async function call<T = any>(
  emulator: RunningEmulator | string,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<HttpResult<T>> {
  const base = typeof emulator === 'string' ? emulator : emulator.baseUrl
  const headers: Record<string, string> = {...options.headers}
  if (options.token) headers.authorization = `Bearer ${options.token}`
  let body: string | undefined = options.body
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(options.json)
  }
  if (options.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded'
    body = new URLSearchParams(options.form).toString()
  }
  const res = await fetch(base + path, {method, headers, ...(body === undefined ? {} : {body})})
  const text = await res.text()
  let parsed: unknown = text
  try {
    parsed = text === '' ? undefined : JSON.parse(text)
  } catch {
    // leave the text
  }
  return {status: res.status, headers: res.headers, body: parsed as T, text}
}

/** Asserts nothing; gives the form of a token request with the emulator's own credentials. */
export function credentials(emulator: RunningEmulator, extra: Record<string, string> = {}): Record<string, string> {
  return {client_id: emulator.clientId, client_secret: emulator.clientSecret, ...extra}
}

/** Records every event the emulator emits (installed as `state.events`). */
export function recordEvents(emulator: RunningEmulator): Array<{type: string; content: Record<string, unknown>}> {
  const events: Array<{type: string; content: Record<string, unknown>}> = []
  emulator.state.events = {emit: (type, content) => void events.push({type, content})}
  return events
}
