/** A character as messages name it, by its code point: `U+000D`, `U+201C`. */
export function codePoint(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`
}
