/**
 * Schema validation issues (zod's) in bk's words: what was expected and what was found
 * (`expected a number, found the text "12.50"`), and a missing value as `is required` whatever
 * the field's type. Given to zod as the error map of a parse (a service's answer, a fixtures
 * file); an issue not worded here keeps zod's English message.
 */

/** The parts of a zod issue (classic or mini, both zod 4) that the wording needs. */
export interface ValidationIssue {
  code?: string | undefined
  input?: unknown
  expected?: string | undefined
  values?: readonly unknown[] | undefined
  errors?: ReadonlyArray<ReadonlyArray<{code?: string; expected?: string}>> | undefined
  /** For too_small and too_big: what was measured (`array`, `string`, `number`) and the bound. */
  origin?: string | undefined
  minimum?: unknown
  maximum?: unknown
  inclusive?: boolean | undefined
}

const EXPECTED: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  bigint: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  record: 'an object',
  date: 'a date',
  null: 'null',
}

/** A value as a message shows it: its kind, and a short scalar itself, escaped as JSON. */
export function describeFound(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (value === null) return 'null'
  if (typeof value === 'string') {
    const shown = value.length > 40 ? `${value.slice(0, 39)}…` : value
    return value === '' ? 'empty text' : `the text ${JSON.stringify(shown)}`
  }
  if (typeof value === 'number' || typeof value === 'bigint') return `the number ${String(value)}`
  if (typeof value === 'boolean') return String(value)
  if (value instanceof Date) return 'a date'
  if (Array.isArray(value)) return 'a list'
  return 'an object'
}

const expected = (name: string) => EXPECTED[name] ?? name

/** The issue's message in bk's words, or undefined for zod's own. */
export function issueMessage(issue: ValidationIssue): string | undefined {
  const found = describeFound(issue.input)
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required'
      return `expected ${expected(issue.expected ?? 'another type')}, found ${found}`
    case 'invalid_union': {
      if (issue.input === undefined) return 'is required'
      // Each option's first issue, when each says which type it wanted: "text or a date".
      const wanted = (issue.errors ?? []).map((option) =>
        option[0]?.code === 'invalid_type' && option[0].expected ? expected(option[0].expected) : undefined,
      )
      if (wanted.length > 0 && wanted.every(Boolean))
        return `expected ${[...new Set(wanted)].join(' or ')}, found ${found}`
      return `is not of a form expected here, found ${found}`
    }
    case 'invalid_value': {
      const values = (issue.values ?? []).map((v) => JSON.stringify(v))
      if (values.length === 0) return undefined
      return `expected ${values.length === 1 ? values[0] : `one of ${values.join(', ')}`}, found ${found}`
    }
    case 'too_small':
      if (issue.origin === 'array' && issue.minimum === 1)
        return `expected at least one item, found ${Array.isArray(issue.input) ? 'an empty list' : found}`
      if (issue.origin === 'string' && issue.minimum === 1) return `expected text, found ${found}`
      if (issue.origin === 'number')
        return `expected ${issue.inclusive === false ? `more than ${String(issue.minimum)}` : `${String(issue.minimum)} or more`}, found ${found}`
      return undefined
    case 'too_big':
      if (issue.origin === 'number')
        return `expected ${issue.inclusive === false ? `less than ${String(issue.maximum)}` : `${String(issue.maximum)} or less`}, found ${found}`
      return undefined
    default:
      return undefined
  }
}
