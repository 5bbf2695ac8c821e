/** Local checks of the ids `bk documents unlink` sends, so a wrong id never reaches the service. */
import {InputError} from '../errors.js'

/** Same list as UNLINKABLE_PREFIXES in src/api/resources/documents.ts (kept here to stay light). */
export const UNLINKABLE = ['eac_', 'txn_', 'je_'] as const

export function checkPrefix(what: string, value: string, prefix: string): void {
  if (!value.startsWith(prefix) || value.length === prefix.length) {
    throw new InputError(`Invalid ${what} "${value}": expected an id starting with ${prefix}`, {details: {value, expected: prefix}})
  }
}

/** The ids to unlink, deduplicated; any id of another kind is an error naming it. */
export function unlinkTargets(ids: readonly string[]): string[] {
  const list = [...new Set(ids.map((s) => s.trim()).filter(Boolean))]
  if (!list.length) throw new InputError('--from needs at least one id (eac_…, txn_… or je_…)')
  const bad = list.filter((id) => !UNLINKABLE.some((p) => id.startsWith(p) && id.length > p.length))
  if (bad.length) {
    throw new InputError(`--from: ${bad.map((b) => `"${b}"`).join(', ')} cannot be unlinked: only external accounts (eac_…), transactions (txn_…) and journal entries (je_…)`, {
      details: {invalid: bad},
    })
  }
  return list
}
