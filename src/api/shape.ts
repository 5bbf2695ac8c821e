/**
 * Checking a response against its zod schema, in one place: a mismatch is a ResponseShapeError
 * naming the request and the first field path that is wrong (`data.3.lines.0.amount`), and what
 * was expected and found there, with a hint (errors.ts).
 */
import type {z} from 'zod/mini'

import {issueMessage} from '../shared/validation-issues.js'
import {parseAnswerJson} from './answer-json.js'
import {ResponseShapeError} from './errors.js'

/** `value` parsed with `schema`; `at` is where `value` sits in the body (e.g. `['data', 3]`). */
export function checkShape<T>(
  schema: z.ZodMiniType<T>,
  value: unknown,
  what: string,
  at: ReadonlyArray<PropertyKey> = [],
): T {
  // bk's words for what was expected and found (zod's English for the rest).
  const result = schema.safeParse(value, {error: (issue) => issueMessage(issue)})
  if (result.success) return result.data
  const path = (issue: z.core.$ZodIssue) => [...at, ...issue.path].map(String).join('.') || '(root)'
  const first = result.error.issues[0]
  throw new ResponseShapeError(
    `Unexpected response from ${what}: field ${first ? path(first) : '(root)'}: ${first?.message ?? 'invalid'}`,
    {
      issues: result.error.issues.slice(0, 5).map((issue) => ({path: path(issue), message: issue.message})),
    },
  )
}

/** A JSON body parsed (its numbers exact: src/api/answer-json.ts), or a ResponseShapeError when it is not JSON. */
export function parseResponseJson(text: string, what: string): unknown {
  try {
    return parseAnswerJson(text)
  } catch {
    throw new ResponseShapeError(`Unexpected response from ${what}: not JSON`)
  }
}
