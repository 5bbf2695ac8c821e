/**
 * Path ids of the read/edit routes: the kind prefix and a suffix of letters, digits, `_` or `-`.
 * Anything else is a malformed request (422), not an unknown record (404).
 */
import {HttpError} from './http.js'

const SUFFIX = /^[A-Za-z0-9_-]+$/

export function checkPathId(name: string, value: string, prefix: string): string {
  if (!value.startsWith(prefix) || !SUFFIX.test(value.slice(prefix.length))) {
    throw new HttpError(422, `${name} must be an id of the form ${prefix}…`, {field: name, value})
  }
  return value
}
