/**
 * A list's view of its items: the fields its csv and table columns print, picked from the item's
 * schema, so that an export checks only what it writes (src/records/invoice-columns.ts).
 */

/** `{a: true, b: true}`, the mask of zod's pick. */
export function fieldMask<K extends string>(keys: readonly K[]): {[P in K]: true} {
  return Object.fromEntries(keys.map((k) => [k, true])) as {[P in K]: true}
}
