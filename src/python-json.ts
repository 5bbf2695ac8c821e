/**
 * Python's `json.dumps(obj)` with its defaults (ensure_ascii=True, separators ", " and ": ",
 * no indent), reproduced byte for byte, because the service signs that text.
 *
 * Two entry points:
 * - `pythonJsonFromText(raw)`: re-serialises a JSON text WITHOUT going through JS values: a small
 *   tokenizer keeps key order, duplicate keys and number literals as written (`1.0` stays `1.0`,
 *   `1e-05` stays `1e-05`). With `{numbers: 'python'}` it instead does what Python's
 *   `json.dumps(json.loads(raw))` does to numbers (`1.50` -> `1.5`, `1E5` -> `100000.0`, `-0` -> `0`)
 *   and keeps the last value of a duplicate key at the place of the first.
 * - `pythonJsonDumps(value)`: the same text from JS values (the emulator's own messages). A JS
 *   number that is an integer prints as an int; others print as Python's `repr(float)`;
 *   `new JsonLiteral('1.0')` prints its literal unchanged.
 */

/** A number literal kept exactly as written, for values that must not pass through a JS number. */
export class JsonLiteral {
  constructor(readonly literal: string) {
    if (!NUMBER.test(literal) && !/^(-?Infinity|NaN)$/.test(literal))
      throw new TypeError(`Not a JSON number literal: ${literal}`)
  }

  toJSON(): number {
    return Number(this.literal)
  }
}

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(`${message} at character ${position}`)
    this.name = 'JsonSyntaxError'
  }
}

export interface FromTextOptions {
  /** 'literal' (default) keeps number literals as written; 'python' normalises them as json.loads + json.dumps would. */
  numbers?: 'literal' | 'python'
}

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/

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
  if (value instanceof JsonLiteral) return value.literal
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
// From the raw text: a tokenizer that builds a small tree of the JSON with its literals.

export type JsonNode =
  | {kind: 'object'; members: Array<[string, JsonNode]>}
  | {kind: 'array'; items: JsonNode[]}
  | {kind: 'string'; value: string}
  | {kind: 'number'; literal: string}
  | {kind: 'literal'; text: 'true' | 'false' | 'null'}

/** The JSON text as a tree, numbers kept as their literals. Accepts NaN and ±Infinity, as Python's json.loads does. */
export function parseJsonTree(text: string): JsonNode {
  const p = new Parser(text)
  p.ws()
  const node = p.value(0)
  p.ws()
  if (p.i < text.length) throw new JsonSyntaxError('Extra data after the JSON value', p.i)
  return node
}

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

/** The tree back to plain JS values (numbers through Number(); use for display only). */
export function treeToValue(node: JsonNode): unknown {
  switch (node.kind) {
    case 'string':
      return node.value
    case 'number':
      return Number(node.literal)
    case 'literal':
      return node.text === 'null' ? null : node.text === 'true'
    case 'array':
      return node.items.map(treeToValue)
    case 'object': {
      const o: Record<string, unknown> = {}
      for (const [k, v] of node.members) o[k] = treeToValue(v)
      return o
    }
  }
}

const MAX_DEPTH = 512
const NUMBER_AT = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y

class Parser {
  i = 0
  constructor(private readonly s: string) {}

  ws(): void {
    const s = this.s
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i)
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.i++
      else break
    }
  }

  value(depth: number): JsonNode {
    if (depth > MAX_DEPTH) throw new JsonSyntaxError('JSON nested too deeply', this.i)
    const c = this.s[this.i]
    if (c === '{') return this.object(depth)
    if (c === '[') return this.array(depth)
    if (c === '"') return {kind: 'string', value: this.string()}
    if (c === 't' || c === 'f' || c === 'n') {
      for (const text of ['true', 'false', 'null'] as const) {
        if (this.s.startsWith(text, this.i)) {
          this.i += text.length
          return {kind: 'literal', text}
        }
      }
    }
    if (c !== 'N' && c !== 'I' && c !== '-') return this.number(c)
    for (const text of ['NaN', 'Infinity', '-Infinity']) {
      if (this.s.startsWith(text, this.i)) {
        this.i += text.length
        return {kind: 'number', literal: text}
      }
    }
    return this.number(c)
  }

  number(c: string | undefined): JsonNode {
    NUMBER_AT.lastIndex = this.i
    const hit = NUMBER_AT.exec(this.s)
    if (hit && hit[0] !== '') {
      this.i += hit[0].length
      return {kind: 'number', literal: hit[0]}
    }
    throw new JsonSyntaxError(
      c === undefined ? 'Unexpected end of JSON' : `Unexpected character ${JSON.stringify(c)}`,
      this.i,
    )
  }

  object(depth: number): JsonNode {
    this.i++ // {
    const members: Array<[string, JsonNode]> = []
    this.ws()
    if (this.s[this.i] === '}') {
      this.i++
      return {kind: 'object', members}
    }
    for (;;) {
      this.ws()
      if (this.s[this.i] !== '"') throw new JsonSyntaxError('Expected a property name in double quotes', this.i)
      const key = this.string()
      this.ws()
      if (this.s[this.i] !== ':') throw new JsonSyntaxError("Expected ':' after a property name", this.i)
      this.i++
      this.ws()
      members.push([key, this.value(depth + 1)])
      this.ws()
      const c = this.s[this.i++]
      if (c === '}') return {kind: 'object', members}
      if (c !== ',') throw new JsonSyntaxError("Expected ',' or '}' in an object", this.i - 1)
    }
  }

  array(depth: number): JsonNode {
    this.i++ // [
    const items: JsonNode[] = []
    this.ws()
    if (this.s[this.i] === ']') {
      this.i++
      return {kind: 'array', items}
    }
    for (;;) {
      this.ws()
      items.push(this.value(depth + 1))
      this.ws()
      const c = this.s[this.i++]
      if (c === ']') return {kind: 'array', items}
      if (c !== ',') throw new JsonSyntaxError("Expected ',' or ']' in an array", this.i - 1)
    }
  }

  /** A string literal, escapes decoded to UTF-16 units (a lone \ud800 stays a lone unit, as in Python). */
  string(): string {
    const s = this.s
    const begin = this.i
    this.i++ // "
    let out = ''
    let start = this.i
    for (;;) {
      if (this.i >= s.length) throw new JsonSyntaxError('Unterminated string', begin)
      const c = s.charCodeAt(this.i)
      if (c === 0x22) {
        out += s.slice(start, this.i)
        this.i++
        return out
      }
      if (c < 0x20) throw new JsonSyntaxError('Control character in a string', this.i)
      if (c !== 0x5c) {
        this.i++
        continue
      }
      out += s.slice(start, this.i)
      const e = s[this.i + 1]
      switch (e) {
        case '"':
          out += '"'
          break
        case '\\':
          out += '\\'
          break
        case '/':
          out += '/'
          break
        case 'b':
          out += '\b'
          break
        case 'f':
          out += '\f'
          break
        case 'n':
          out += '\n'
          break
        case 'r':
          out += '\r'
          break
        case 't':
          out += '\t'
          break
        case 'u': {
          const hex = s.slice(this.i + 2, this.i + 6)
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new JsonSyntaxError('Invalid \\u escape', this.i)
          out += String.fromCharCode(parseInt(hex, 16))
          this.i += 4
          break
        }
        default:
          throw new JsonSyntaxError('Invalid escape', this.i)
      }
      this.i += 2
      start = this.i
    }
  }
}
