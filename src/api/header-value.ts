/**
 * What bk lets a value from the user carry into a request header: printable ASCII, and for a
 * token (one word) not even a space. undici refuses a header with a control character before a
 * byte leaves, which an import would read as a broken connection; the stricter rule also keeps
 * out a pasted non-breaking space or curly quote, which the service would not recognise anyway.
 * The callers word the refusal: they know what the value is and where it came from.
 */
export function headerProblem(value: string, options: {word: boolean}): {index: number; char: string} | undefined {
  const bad = (options.word ? /[^\x21-\x7e]/ : /[^\x20-\x7e]/).exec(value)
  return bad ? {index: bad.index, char: bad[0]} : undefined
}
