/**
 * Python's `json.dumps(obj)` with its defaults (ensure_ascii=True, separators ", " and ": ",
 * no indent), reproduced byte for byte, because the service signs that text.
 *
 * Two entry points:
 * - `pythonJsonFromText(raw)`: re-serialises a JSON text WITHOUT going through JS values: the tree
 *   of src/shared/exact-json.ts keeps key order, duplicate keys and number literals as written (`1.0`
 *   stays `1.0`, `1e-05` stays `1e-05`). With `{numbers: 'python'}` it instead does what Python's
 *   `json.dumps(json.loads(raw))` does to numbers (`1.50` -> `1.5`, `1E5` -> `100000.0`, `-0` -> `0`)
 *   and keeps the last value of a duplicate key at the place of the first.
 * - `pythonJsonDumps(value)`: the same text from JS values (the emulator's own messages). A JS
 *   number that is an integer prints as an int; others print as Python's `repr(float)`;
 *   `new JsonNumber('1.0')` prints its text unchanged.
 */
import {JsonNumber, parseJsonTree, type JsonNode} from './exact-json.js'

export interface FromTextOptions {
  /** 'literal' (default) keeps number literals as written; 'python' normalises them as json.loads + json.dumps would. */
  numbers?: 'literal' | 'python'
}

/** Escapes a string as Python's json encoder does with ensure_ascii=True. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/

function pythonString(s: string): string {
  if (PLAIN.test(s)) return '"' + s + '"'
  return '"' + s.replace(ESCAPED, escapeUnit) + '"'
}

const ESCAPED = /[^\x20\x21\x23-\x5b\x5d-\x7e]/g
const SHORT: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
}

// Everything outside printable ASCII, one UTF-16 unit at a time: characters beyond the BMP come
// out as their surrogate pair, as Python writes them.
function escapeUnit(c: string): string {
  return SHORT[c] ?? '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')
}

/** Python's repr() of a float, from a JS number (the same IEEE double). */
export function pythonFloatRepr(n: number): string {
  if (Number.isNaN(n)) return 'NaN'
  if (n === Number.POSITIVE_INFINITY) return 'Infinity'
  if (n === Number.NEGATIVE_INFINITY) return '-Infinity'
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0'
  // toExponential() with no argument gives the shortest digits that round-trip, as repr does.
  const [mantissa, expText] = n.toExponential().split('e') as [string, string]
  const exp = Number(expText)
  const negative = mantissa.startsWith('-')
  const digits = mantissa.replace('-', '').replace('.', '')
  const sign = negative ? '-' : ''
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits
    const e = Math.abs(exp).toString().padStart(2, '0')
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${e}`
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`
  const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, '0')
  const frac = digits.slice(exp + 1)
  return `${sign}${intPart}.${frac || '0'}`
}

/** What json.dumps(json.loads(literal)) prints for one number literal. */
function pythonNumberFromLiteral(literal: string): string {
  if (/^-?\d+$/.test(literal)) return BigInt(literal).toString()
  if (literal === 'NaN' || literal === 'Infinity' || literal === '-Infinity') return literal
  return pythonFloatRepr(Number(literal))
}

/** json.dumps(value) for JS values: objects keep their key order; undefined members are skipped. */
export function pythonJsonDumps(value: unknown): string {
  if (value === null) return 'null'
  if (value === true) return 'true'
  if (value === false) return 'false'
  if (typeof value === 'string') return pythonString(value)
  if (typeof value === 'number')
    return Number.isInteger(value) && !Object.is(value, -0) ? String(BigInt(value)) : pythonFloatRepr(value)
  if (typeof value === 'bigint') return value.toString()
  if (value instanceof JsonNumber) return value.text
  if (Array.isArray(value)) return '[' + value.map((v) => pythonJsonDumps(v === undefined ? null : v)).join(', ') + ']'
  if (typeof value === 'object') {
    const parts: string[] = []
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v === undefined || typeof v === 'function') continue
      parts.push(pythonString(k) + ': ' + pythonJsonDumps(v))
    }
    return '{' + parts.join(', ') + '}'
  }
  throw new TypeError(`Cannot serialise a ${typeof value} as JSON`)
}

// ---------------------------------------------------------------------------------------------
// From the raw text, through the tree of src/shared/exact-json.ts (literals kept as written).

/** The re-serialisation of a JSON text as Python's json.dumps writes it (see the file comment). */
export function pythonJsonFromText(raw: string, options: FromTextOptions = {}): string {
  return pythonJsonFromTree(parseJsonTree(raw), options)
}

export function pythonJsonFromTree(node: JsonNode, options: FromTextOptions = {}): string {
  const python = options.numbers === 'python'
  const walk = (n: JsonNode): string => {
    switch (n.kind) {
      case 'string':
        return pythonString(n.value)
      case 'number':
        return python ? pythonNumberFromLiteral(n.literal) : n.literal
      case 'literal':
        return n.text
      case 'array': {
        let out = '['
        for (let i = 0; i < n.items.length; i++) out += (i ? ', ' : '') + walk(n.items[i] as JsonNode)
        return out + ']'
      }
      case 'object': {
        const members = python ? lastValueWins(n.members) : n.members
        let out = '{'
        for (let i = 0; i < members.length; i++) {
          const [k, v] = members[i] as [string, JsonNode]
          out += (i ? ', ' : '') + pythonString(k) + ': ' + walk(v)
        }
        return out + '}'
      }
    }
  }
  return walk(node)
}

/** dict(pairs): a repeated key stays where it first appeared and takes the last value. */
function lastValueWins(members: Array<[string, JsonNode]>): Array<[string, JsonNode]> {
  const map = new Map<string, JsonNode>()
  for (const [k, v] of members) map.set(k, v)
  return [...map.entries()]
}
