/**
 * Shared shapes of the spec. Every object schema is loose (unknown fields pass through) and,
 * since the spec rarely says which fields are required, only identifiers are required.
 */
import {z} from './zod.js'
import {JsonNumber} from '../../shared/exact-json.js'
import {issueMessage} from '../../shared/validation-issues.js'

/** An identifier with its kind prefix, e.g. id('bil_'). */
export const id = (prefix: string) =>
  z.string().check(z.startsWith(prefix, {message: `expected an id starting with ${prefix}`}))
/** A field the spec lists but does not mark as required. */
export const opt = <T extends z.ZodMiniType>(schema: T) => z.nullish(schema)

/**
 * A JSON number: a JavaScript number, or a JsonNumber when a double would change the service's
 * digits (src/api/answer-json.ts). Amounts are read, summed and printed through `numberText`.
 */
export const jsonNumber = z.custom<number | JsonNumber>(
  (value) => (typeof value === 'number' && Number.isFinite(value)) || value instanceof JsonNumber,
  // Worded as a number's type mismatch is (src/shared/validation-issues.ts), which this stands in for.
  {error: (issue) => issueMessage({code: 'invalid_type', expected: 'number', input: issue.input})},
)

export const datetime = z.string()
export const metadata = z.record(z.string(), z.unknown())
/** A decimal string such as "120.50" (the spec's decimal-string amounts). */
export const decimalString = z.string().check(z.regex(/^[+-]?\d*\.?\d+$/, {message: 'expected a decimal string'}))
export const tagAllocations = z.record(z.string(), z.array(z.looseObject({amount: decimalString, value: z.string()})))

export const pagination = z.looseObject({
  next_page_token: z.nullable(z.string()),
  previous_page_token: z.nullable(z.string()),
})
export type Pagination = z.infer<typeof pagination>

/** `{data: [...], pagination}` of every list endpoint. */
export const paginated = <T extends z.ZodMiniType>(item: T) => z.looseObject({data: z.array(item), pagination})
/** A list page with its items not yet checked: Pager checks them one page at a time. */
export const pageEnvelope = paginated(z.unknown())
/** `{data: {...}}` of every single-object endpoint. */
export const single = <T extends z.ZodMiniType>(item: T) => z.looseObject({data: item})

/** The spec's error body `{error, data}`; task deletion may also answer `{message, data}`. */
export const errorBody = z.looseObject({error: z.nullable(z.string()), data: z.unknown()})
export const messageErrorBody = z.looseObject({message: z.string(), data: z.unknown()})
