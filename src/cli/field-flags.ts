/**
 * `--field key=value` flags (`bk api`, `bk emulator trigger`): each one split at its first `=`,
 * and a value read as JSON when it parses as JSON (`true`, `5`, `["a"]`), as text otherwise.
 */
import {InputError} from '../shared/errors.js'
import {parseJsonTree, printJsonTree} from '../shared/exact-json.js'

export function parseFieldFlags(fields: readonly string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  for (const f of fields ?? []) {
    const eq = f.indexOf('=')
    if (eq <= 0) throw new InputError(`--field "${f}" is not key=value`)
    out[f.slice(0, eq)] = f.slice(eq + 1)
  }
  return out
}

function parseLoose(value: string): unknown {
  try {
    return JSON.parse(value)
  } catch {
    return value
  }
}

/** Fields as a JSON object, each value read with parseLoose. */
export function jsonFields(fields: Record<string, string>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, parseLoose(v)]))
}

/**
 * Fields as the text of a JSON object, each value read as parseLoose reads it but a number kept
 * as typed (`1234567890123456789.10` is sent with every digit, not through a double).
 */
export function jsonFieldsText(fields: Record<string, string>): string {
  const members = Object.entries(fields).map(([k, v]) => `${JSON.stringify(k)}:${looseJsonText(v)}`)
  return `{${members.join(',')}}`
}

function looseJsonText(value: string): string {
  try {
    return printJsonTree(parseJsonTree(value, {nonFinite: false}))
  } catch {
    return JSON.stringify(value)
  }
}
