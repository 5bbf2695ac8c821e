/** Local checks of the ids `bk documents unlink` sends, so a wrong id never reaches the service. */
import {UNLINKABLE_PREFIXES} from '../shared/spec.js'
import {InputError} from '../shared/errors.js'

/** The prefix and at least one character after it. */
const isIdOf = (value: string, prefix: string): boolean => value.startsWith(prefix) && value.length > prefix.length

export function checkPrefix(what: string, value: string, prefix: string): void {
  if (!isIdOf(value, prefix)) {
    throw new InputError(`Invalid ${what} "${value}": expected an id starting with ${prefix}`, {
      details: {value, expected: prefix},
      hint: `Give the whole ${what} as the service wrote it: ${prefix} and what follows.`,
    })
  }
}

/** The ids to unlink, deduplicated; any id of another kind is an error naming it. */
export function unlinkTargets(ids: readonly string[]): string[] {
  const list = [...new Set(ids.map((s) => s.trim()).filter(Boolean))]
  if (!list.length) throw new InputError('--from needs at least one id (eac_…, txn_… or je_…)')
  const bad = list.filter((id) => !UNLINKABLE_PREFIXES.some((p) => isIdOf(id, p)))
  if (bad.length) {
    throw new InputError(
      `--from: ${bad.map((b) => `"${b}"`).join(', ')} cannot be unlinked: only external accounts (eac_…), transactions (txn_…) and journal entries (je_…)`,
      {
        details: {invalid: bad},
      },
    )
  }
  return list
}

/**
 * An argument the command needs, unless it only lists its fields (`--fields` alone): optional
 * to oclif, so its absence is said here, with the command to run.
 */
export function requireArgument(what: string, value: string | undefined, usage: string): string {
  if (value === undefined || value === '')
    throw new InputError(`Missing the ${what}`, {hint: `Run \`${usage}\`.`, details: {missing: what}})
  return value
}
