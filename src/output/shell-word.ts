/**
 * A value as one word of a command bk prints for the user to copy (`Use it with:`, `Then:`, a
 * hint): left as it is when sh reads it so, else in single quotes, each `'` inside as `'\''`.
 * Pasted into sh, the command then passes every value exactly as given.
 */
export function shellWord(text: string): string {
  return /^[\w./:@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`
}
