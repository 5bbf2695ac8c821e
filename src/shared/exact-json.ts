/**
 * The one JSON parser of bk that keeps numbers exact: a tokenizer that builds a small tree of the
 * text with every number as its literal (`1.0` stays `1.0`, `12345678901234567890` loses no
 * digit), keys in their order and duplicate keys kept. Among its readers:
 * - webhooks (src/webhooks, src/shared/python-json.ts): a signed body is re-serialised from its literals,
 *   as Python's json.dumps wrote it;
 * - the emulator's bill route: amounts are summed from their text with decimal.js, so totals and
 *   allocations are exact (`parseJsonExact`, numbers as `JsonNumber`);
 * - `bk api`: `--field` values, its --debug trace and the answer it prints keep every number as
 *   written (`printJsonTree`);
 * - every other answer of the service that holds a number a double would change
 *   (src/api/answer-json.ts), its JsonNumbers written back by `stringifyExact`.
 * Strict JSON (RFC 8259) but for NaN and ±Infinity, which it reads as Python's json.loads does
 * unless told not to; nesting at most 512 deep; errors are JsonSyntaxError with the position.
 */

/** A JSON number as its text, for values that must not pass through a binary float. */
export class JsonNumber {
  constructor(readonly text: string) {
    if (!NUMBER.test(text) && !/^(-?Infinity|NaN)$/.test(text))
      throw new TypeError(`Not a JSON number literal: ${text}`)
  }

  toJSON(): number {
    exactNumbersMet++
    return Number(this.text)
  }
}

/** How many JsonNumbers JSON.stringify has met: stringifyExact's sign that its text lost digits. */
let exactNumbersMet = 0

/**
 * JSON.stringify, but a JsonNumber is written as its literal. The native JSON.stringify writes
 * the value first, and meets a JsonNumber through its toJSON: only a value holding one is written
 * again, by printJsonTree, so a value holding none costs what JSON.stringify costs.
 */
export function stringifyExact(value: unknown, indent?: number): string {
  const before = exactNumbersMet
  const text = indent ? JSON.stringify(value, null, indent) : JSON.stringify(value)
  return exactNumbersMet === before ? text : printJsonTree(valueToTree(value), indent)
}

/** A JS value as a tree, as JSON.stringify sees it (toJSON called, undefined and functions left out). */
function valueToTree(value: unknown): JsonNode {
  if (value instanceof JsonNumber) return {kind: 'number', literal: value.text}
  if (value !== null && typeof value === 'object' && typeof (value as {toJSON?: unknown}).toJSON === 'function')
    return valueToTree((value as {toJSON: () => unknown}).toJSON())
  switch (typeof value) {
    case 'string':
      return {kind: 'string', value}
    case 'number':
      return Number.isFinite(value) ? {kind: 'number', literal: JSON.stringify(value)} : {kind: 'literal', text: 'null'}
    case 'boolean':
      return {kind: 'literal', text: value ? 'true' : 'false'}
    case 'object':
      if (value === null) return {kind: 'literal', text: 'null'}
      if (Array.isArray(value))
        return {kind: 'array', items: value.map((v) => (omitted(v) ? {kind: 'literal', text: 'null'} : valueToTree(v)))}
      return {
        kind: 'object',
        members: Object.entries(value)
          .filter(([, v]) => !omitted(v))
          .map(([k, v]) => [k, valueToTree(v)]),
      }
    default:
      return {kind: 'literal', text: 'null'}
  }
}

const omitted = (v: unknown) => v === undefined || typeof v === 'function' || typeof v === 'symbol'

/**
 * A JSON document already written as text (`bk api`'s answer, numbers as received): printed, or
 * given to --jq, as it is, never through JSON.parse.
 */
export class JsonText {
  constructor(readonly text: string) {}
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

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/

export type JsonNode =
  | {kind: 'object'; members: Array<[string, JsonNode]>}
  | {kind: 'array'; items: JsonNode[]}
  | {kind: 'string'; value: string}
  | {kind: 'number'; literal: string}
  | {kind: 'literal'; text: 'true' | 'false' | 'null'}

export interface ParseOptions {
  /** Accept NaN, Infinity and -Infinity as numbers, as Python's json.loads does (default true). */
  nonFinite?: boolean
}

/** The JSON text as a tree, numbers kept as their literals. */
export function parseJsonTree(text: string, options: ParseOptions = {}): JsonNode {
  const p = new Parser(text, options.nonFinite ?? true)
  p.ws()
  const node = p.value(0)
  p.ws()
  if (p.i < text.length) throw new JsonSyntaxError('Extra data after the JSON value', p.i)
  return node
}

/**
 * JSON.parse, but every number comes back as a JsonNumber (its text) and NaN or Infinity is a
 * syntax error: for amounts that must stay exact.
 */
export function parseJsonExact(text: string): unknown {
  return treeToExactValue(parseJsonTree(text, {nonFinite: false}))
}

/**
 * The tree as JS values, numbers as JsonNumber (or as `number` makes them from their literals). As
 * with JSON.parse, a duplicate key keeps its last value, and `__proto__` is a key like any other
 * (an own property, not the object's prototype).
 */
export function treeToExactValue(
  node: JsonNode,
  number: (literal: string) => unknown = (literal) => new JsonNumber(literal),
): unknown {
  const value = (n: JsonNode): unknown => {
    switch (n.kind) {
      case 'string':
        return n.value
      case 'number':
        return number(n.literal)
      case 'literal':
        return n.text === 'null' ? null : n.text === 'true'
      case 'array':
        return n.items.map(value)
      case 'object': {
        const o: Record<string, unknown> = {}
        for (const [k, v] of n.members) {
          if (k === '__proto__')
            Object.defineProperty(o, k, {value: value(v), enumerable: true, writable: true, configurable: true})
          else o[k] = value(v)
        }
        return o
      }
    }
  }
  return value(node)
}

/**
 * The first key that an object of the tree holds twice, with the path to that object (`$` for
 * the top, then `.key` and `[i]`), or undefined. Parsers disagree on such a key (first or last
 * value wins), so a signed text must not be read through one.
 */
export function firstDuplicateKey(node: JsonNode, path = '$'): {key: string; path: string} | undefined {
  if (node.kind === 'array') {
    for (let i = 0; i < node.items.length; i++) {
      const found = firstDuplicateKey(node.items[i] as JsonNode, `${path}[${i}]`)
      if (found) return found
    }
  } else if (node.kind === 'object') {
    const seen = new Set<string>()
    for (const [k] of node.members) {
      if (seen.has(k)) return {key: k, path}
      seen.add(k)
    }
    for (const [k, v] of node.members) {
      const found = firstDuplicateKey(v, `${path}.${k}`)
      if (found) return found
    }
  }
  return undefined
}

/**
 * The tree as JSON text, every number as its literal: compact, or indented as
 * JSON.stringify(value, null, indent) would (strings are written as JSON.stringify writes them).
 */
export function printJsonTree(node: JsonNode, indent = 0): string {
  return printAt(node, indent, '')
}

function printAt(node: JsonNode, indent: number, margin: string): string {
  switch (node.kind) {
    case 'string':
      return JSON.stringify(node.value)
    case 'number':
      return node.literal
    case 'literal':
      return node.text
    case 'array':
    case 'object': {
      const inner = indent ? margin + ' '.repeat(indent) : ''
      const parts =
        node.kind === 'array'
          ? node.items.map((v) => printAt(v, indent, inner))
          : node.members.map(([k, v]) => `${JSON.stringify(k)}:${indent ? ' ' : ''}${printAt(v, indent, inner)}`)
      const [open, close] = node.kind === 'array' ? ['[', ']'] : ['{', '}']
      if (!parts.length) return open + close
      if (!indent) return open + parts.join(',') + close
      return `${open}\n${inner}${parts.join(`,\n${inner}`)}\n${margin}${close}`
    }
  }
}

const MAX_DEPTH = 512
const NUMBER_AT = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y

class Parser {
  i = 0
  constructor(
    private readonly s: string,
    private readonly nonFinite: boolean,
  ) {}

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
    if (!this.nonFinite || (c !== 'N' && c !== 'I' && c !== '-')) return this.number(c)
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
