/**
 * "Did you mean …?": the closest of a list of words to what was typed, for mistyped commands,
 * flags and fixed values alike.
 */

/** The closest candidate, when it differs from what was typed in at most a third of its letters (2 at least). */
export function closestWord(typed: string, candidates: readonly string[]): string | undefined {
  let best: {word: string; distance: number} | undefined
  const lower = typed.toLowerCase()
  for (const word of candidates) {
    const distance = editDistance(lower, word.toLowerCase())
    if (!best || distance < best.distance) best = {word, distance}
  }
  if (!best) return undefined
  return best.distance <= Math.max(2, Math.floor(best.word.length / 3)) ? best.word : undefined
}

/**
 * Edits from `a` to `b`: a letter added, removed or changed, or two neighbours swapped (`debti`
 * for `debit` is one edit, the commonest slip of typing); Damerau-Levenshtein, optimal string
 * alignment. Past `limit` the count stops: any number above it means "further than that", which
 * spares a search over many names most of its work.
 */
export function editDistance(a: string, b: string, limit = Infinity): number {
  // Each edit changes the length by one at most.
  if (Math.abs(a.length - b.length) > limit) return limit + 1
  let before: number[] = []
  let previous = Array.from({length: b.length + 1}, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    let rowLeast = i
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        current[j] = Math.min(current[j]!, before[j - 2]! + 1)
      rowLeast = Math.min(rowLeast, current[j]!)
    }
    // No row's least count is below the row before's, so the distance is at least this one's.
    if (rowLeast > limit) return limit + 1
    before = previous
    previous = current
  }
  return previous[b.length]!
}
