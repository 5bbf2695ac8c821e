/**
 * HTTP helpers of the emulator: the spec's error body `{error, data}`, JSON replies, and body
 * reading with a size bound.
 */
import type {IncomingMessage} from 'node:http'

import {JsonSyntaxError, parseJsonExact} from '../shared/exact-json.js'

export interface Reply {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

/** A failure the emulator answers with the spec's error body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly data: unknown = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }

  /** The body sent for this error (task deletion may use `{message, data}` instead). */
  body(): unknown {
    return {error: this.message, data: this.data}
  }
}

export const ok = (body: unknown, status = 200): Reply => ({status, body})

export const MAX_BODY_BYTES = 10 * 1024 * 1024

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > MAX_BODY_BYTES) throw new HttpError(413, `Request body larger than ${MAX_BODY_BYTES} bytes`)
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** A request's JSON body, or 422 when it is empty or not JSON. */
export function parseJsonBody(text: string): unknown {
  if (text === '') throw new HttpError(422, 'Request body is empty; expected JSON')
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new HttpError(422, `Request body is not valid JSON: ${(error as Error).message}`)
  }
}

/** parseJsonBody, but every number comes back as its text (a JsonNumber), for exact amounts. */
export function parseJsonBodyExact(text: string): unknown {
  if (text === '') throw new HttpError(422, 'Request body is empty; expected JSON')
  try {
    return parseJsonExact(text)
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw new HttpError(422, `Request body is not valid JSON: ${error.message}`)
    throw error
  }
}

/** A JSON object body, or 422 naming the shape expected; with `optional`, an empty body is `{}`. */
export function parseJsonObject(
  text: string,
  shape: string,
  options: {optional?: boolean} = {},
): Record<string, unknown> {
  const body = options.optional && text.trim() === '' ? {} : parseJsonBody(text)
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new HttpError(422, `Body must be a JSON object ${shape}`)
  return body as Record<string, unknown>
}

/** Reads an integer query parameter within bounds, or answers 422 naming it. */
export function intParam(
  query: URLSearchParams,
  name: string,
  options: {min: number; max: number; default: number},
): number {
  const raw = query.get(name)
  if (raw === null || raw === '') return options.default
  if (!/^-?\d+$/.test(raw)) throw new HttpError(422, `${name} must be an integer`, {field: name, value: raw})
  const n = Number(raw)
  if (n < options.min || n > options.max) {
    throw new HttpError(422, `${name} must be between ${options.min} and ${options.max}`, {field: name, value: n})
  }
  return n
}

/** A comma-separated list parameter, each value checked against the allowed ones when given. */
export function listParam(query: URLSearchParams, name: string, allowed?: readonly string[]): string[] | undefined {
  const raw = query.get(name)
  if (raw === null || raw === '') return undefined
  const values = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  if (allowed) {
    const bad = values.find((v) => !allowed.includes(v))
    if (bad !== undefined)
      throw new HttpError(422, `${name}: "${bad}" is not one of ${allowed.join(', ')}`, {field: name, value: bad})
  }
  return values
}
