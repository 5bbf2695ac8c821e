/**
 * Builds request paths with every interpolated value percent-encoded, so an id can never
 * change the path it is put into: path`/v0/business/${id}/bills`.
 */
export function path(strings: TemplateStringsArray, ...values: Array<string | number>): string {
  let out = strings[0] ?? ''
  values.forEach((value, i) => {
    const text = String(value)
    if (text === '' || text === '.' || text === '..') throw new TypeError(`Invalid path parameter: "${text}"`)
    out += encodeURIComponent(text) + (strings[i + 1] ?? '')
  })
  return out
}
