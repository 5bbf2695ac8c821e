/**
 * The service's rules for one bill of POST …/bills, as the spec states them ("Bill (create input)",
 * the tag rules) and, where it is silent, as bk decides (docs/bills.md, "Decisions"). One
 * list, used by both sides: the emulator checks every bill it is sent with it, and `bk bills import`
 * checks every bill it would send (with `--dry-run` too), so that dry-run and the emulator cannot
 * disagree about a body. Rules that need the service's records (the vendor, the ledgers and the tag
 * fields exist) are the emulator's alone: bk cannot know them offline.
 *
 * The bill is read as a JSON tree (src/shared/exact-json.ts): numbers as their literals, duplicate keys
 * kept, so that what a parser would silently change is refused instead.
 */
import {firstDuplicateKey, JsonNumber, treeToExactValue, type JsonNode} from './exact-json.js'
import {parseIsoDatetime, yearProblem} from './datetime.js'
import {Decimal, MAX_EXACT_DIGITS} from './money.js'
import {ID_PREFIX, ID_SUFFIX} from './spec.js'
import {codePoint} from './code-point.js'

/** One rule a bill breaks: where (`currency`, `lines[1].amount`, `tags.department[0].amount`) and why. */
export interface BillViolation {
  path: string
  message: string
}

export interface BillContext {
  /** The business of the request: a `business_id` in the bill must name it. */
  businessId?: string | undefined
}

let currencies: ReadonlySet<string> | undefined
/** ISO 4217 as the Node.js runtime knows it (capitals only). */
function isoCurrencies(): ReadonlySet<string> {
  currencies ??= new Set(Intl.supportedValuesOf('currency'))
  return currencies
}

/** Why a text is not an ISO 4217 currency code, or undefined. */
export function currencyProblem(text: string): string | undefined {
  if (isoCurrencies().has(text)) return undefined
  if (/^[a-z]{3}$/i.test(text) && isoCurrencies().has(text.toUpperCase()))
    return `is not an ISO 4217 code as written: expected ${text.toUpperCase()}`
  return /^[A-Z]{3}$/.test(text)
    ? 'is not an ISO 4217 currency code (three capitals, but no currency): expected one such as EUR or USD'
    : 'is not an ISO 4217 currency code: expected three capital letters such as EUR or USD'
}

/** Why a text is not an id of the kind `prefix` names, or undefined. */
export function idProblem(text: string, prefix: string): string | undefined {
  if (text === '') return `is empty: expected an id starting with ${prefix}`
  if (!text.startsWith(prefix) || text.length === prefix.length || !ID_SUFFIX.test(text.slice(prefix.length)))
    return `is not an id starting with ${prefix} (such as ${prefix}abc123)`
  return undefined
}

/** Why a datetime of a bill is not one the service takes (UTC ISO 8601, a plausible year), or undefined. */
export function datetimeProblem(text: string): string | undefined {
  const parsed = parseIsoDatetime(text)
  if (!parsed.ok || parsed.value.time === undefined || text !== text.trim())
    return 'is not an ISO 8601 datetime such as 2026-01-31T09:30:00Z'
  if (parsed.value.offsetMinutes !== 0) return 'is not in UTC: the spec takes timestamps in UTC (end with Z)'
  return yearProblem(Number(parsed.value.date.slice(0, 4)), 'a bill')
}

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/

/** Why a text field holds what no bill text should (control characters but tab and line breaks), or undefined. */
export function textProblem(text: string): string | undefined {
  const m = CONTROL.exec(text)
  if (!m) return undefined
  return `holds the control character ${codePoint(m[0])} at position ${m.index + 1}: remove it`
}

/**
 * Why a metadata value is not a free-form JSON object as the service keeps it, as `[path, why]`
 * (path relative to the object, '' for itself), or undefined: a key twice (parsers disagree on
 * which value wins) or a number a double cannot hold exactly (it would arrive changed).
 */
export function metadataProblem(node: JsonNode): [path: string, why: string] | undefined {
  if (node.kind !== 'object') return ['', 'is not a JSON object: expected {"key": "value"}']
  return valueProblem(node, '')
}

function valueProblem(node: JsonNode, path: string): [string, string] | undefined {
  switch (node.kind) {
    case 'number': {
      const n = Number(node.literal)
      if (!Number.isFinite(n) || !new Decimal(node.literal).equals(new Decimal(String(n))))
        return [
          path,
          `has the number ${node.literal}${path ? ` at ${path}` : ''}, which a JSON number (a double) cannot hold exactly: write it as a string ("${node.literal}")`,
        ]
      return undefined
    }
    case 'array':
      for (let i = 0; i < node.items.length; i++) {
        const found = valueProblem(node.items[i]!, `${path}[${i}]`)
        if (found) return found
      }
      return undefined
    case 'object': {
      const seen = new Set<string>()
      for (const [k, v] of node.members) {
        const at = path ? `${path}.${k}` : k
        if (seen.has(k)) return [at, `has the key "${at}" twice: keep one`]
        seen.add(k)
        const found = valueProblem(v, at)
        if (found) return found
      }
      return undefined
    }
    case 'string':
    case 'literal':
      return undefined
  }
}

const BILL_FIELDS = new Set([
  'business_id',
  'number',
  'description',
  'due_at',
  'issued_at',
  'vendor_id',
  'lines',
  'currency',
  'tags',
  'metadata_',
])
const LINE_FIELDS = new Set(['description', 'amount', 'ledger_id', 'metadata_'])
const ALLOCATION_FIELDS = new Set(['value', 'amount'])

type Obj = Record<string, unknown>

const isObject = (v: unknown): v is Obj =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof JsonNumber)

/** A JSON number's literal: a JsonNumber's text, or how JSON.stringify writes a JS number. */
function literalOf(v: unknown): string | undefined {
  if (v instanceof JsonNumber) return v.text
  if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : undefined
  return undefined
}

/** Plain decimal literals of at most 15 digits need no decimal.js: most amounts are decided here. */
const SHORT_PLAIN = /^-?\d{1,15}(?:\.\d{0,15})?$/

/** Why a number literal cannot be a JSON-number amount (a double carries at most 15 digits exactly). */
export function amountLiteralProblem(literal: string, options: {nonNegative?: boolean} = {}): string | undefined {
  if (SHORT_PLAIN.test(literal) && literal.length <= 16 + (literal[0] === '-' ? 1 : 0)) {
    if (options.nonNegative && literal[0] === '-' && /[1-9]/.test(literal)) return 'must be 0 or more'
    return undefined
  }
  const value = new Decimal(literal)
  if (!value.isFinite()) return 'is not a finite number'
  if (options.nonNegative && value.lt(0)) return 'must be 0 or more'
  // 1e400 or 1e-400: beyond what a double holds (it would arrive as Infinity or 0).
  const double = Number(literal)
  if (!Number.isFinite(double) || (double === 0 && !value.isZero()))
    return 'is beyond the range of a JSON number (a double)'
  if (value.precision(true) > MAX_EXACT_DIGITS || !value.equals(new Decimal(String(double))))
    return `has more than ${MAX_EXACT_DIGITS} significant digits, which a JSON number cannot carry exactly`
  return undefined
}

/** A string field: its text, or undefined when absent (null is absent); a violation when not a string. */
function text(bill: Obj, key: string, path: string, out: BillViolation[]): string | undefined {
  const value = bill[key]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') {
    out.push({path, message: 'must be a string'})
    return undefined
  }
  const problem = textProblem(value)
  if (problem) out.push({path, message: problem})
  return value
}

function unknownFields(o: Obj, known: ReadonlySet<string>, prefix: string, out: BillViolation[]): void {
  for (const key in o)
    if (Object.hasOwn(o, key) && !known.has(key))
      out.push({path: `${prefix}${key}`, message: 'is not a field of the spec: remove it'})
}

function metadata(o: Obj, path: string, out: BillViolation[]): void {
  const value = o.metadata_
  if (value === undefined || value === null) return
  if (!isObject(value)) {
    out.push({path, message: 'is not a JSON object: expected {"key": "value"}'})
    return
  }
  const problem = plainValueProblem(value, '')
  if (problem) out.push({path: `${path}.${problem[0]}`, message: problem[1]})
}

/** metadataProblem for plain values (keys are unique there): a number a double cannot hold. */
function plainValueProblem(value: unknown, path: string): [string, string] | undefined {
  if (value instanceof JsonNumber) return valueProblem({kind: 'number', literal: value.text}, path)
  if (typeof value === 'number')
    return Number.isFinite(value) ? undefined : [path, `has the number ${value} at ${path}, which JSON cannot hold`]
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = plainValueProblem(value[i], `${path}[${i}]`)
      if (found) return found
    }
  } else if (isObject(value)) {
    for (const k in value) {
      if (!Object.hasOwn(value, k)) continue
      const found = plainValueProblem(value[k], path ? `${path}.${k}` : k)
      if (found) return found
    }
  }
  return undefined
}

const lastDate = {
  issued_at: {text: '', problem: undefined as string | undefined},
  due_at: {text: '', problem: undefined as string | undefined},
}

/**
 * Every rule of the spec (and of bk's assumptions) that one bill of the request body breaks, in
 * the order of its fields; empty when the bill is one the service takes, but for its references.
 * The bill as the JSON text reads: a key given twice anywhere in it is a violation too.
 */
export function billViolations(bill: JsonNode, context: BillContext = {}): BillViolation[] {
  const duplicate = firstDuplicateKey(bill, '')
  const out = billValueViolations(treeToExactValue(bill), context)
  if (duplicate) {
    const at = duplicate.path ? `${duplicate.path}.${duplicate.key}` : duplicate.key
    out.unshift({path: at.replace(/^\./, ''), message: `has the key "${duplicate.key}" twice: keep one`})
  }
  return out
}

/**
 * The same rules for a bill held as values (objects with unique keys; numbers as JS numbers, as
 * bk sends them, or JsonNumber, as the emulator reads them).
 */
export function billValueViolations(bill: unknown, context: BillContext = {}): BillViolation[] {
  const out: BillViolation[] = []
  if (!isObject(bill)) return [{path: '', message: 'must be a JSON object'}]
  unknownFields(bill, BILL_FIELDS, '', out)
  const number = text(bill, 'number', 'number', out)
  if (number === undefined || number.trim() === '')
    out.push({path: 'number', message: 'is required: expected the bill number'})
  const vendor = text(bill, 'vendor_id', 'vendor_id', out)
  const vp = idProblem(vendor ?? '', ID_PREFIX.vendor)
  if (vp) out.push({path: 'vendor_id', message: vendor === undefined ? 'is required' : vp})
  const business = text(bill, 'business_id', 'business_id', out)
  if (business !== undefined) {
    const bp = idProblem(business, ID_PREFIX.business)
    if (bp) out.push({path: 'business_id', message: bp})
    else if (context.businessId && business !== context.businessId)
      out.push({
        path: 'business_id',
        message: `is not the business of the request (${context.businessId}): send each business's bills to its own path`,
      })
  }
  text(bill, 'description', 'description', out)
  for (const field of ['issued_at', 'due_at'] as const) {
    const value = text(bill, field, field, out)
    if (value === undefined) continue
    // Bills of one file share a few dates: the last answer is kept.
    const last = lastDate[field]
    if (last.text !== value) lastDate[field] = {text: value, problem: datetimeProblem(value)}
    const problem = lastDate[field].problem
    if (problem) out.push({path: field, message: problem})
  }
  const currency = text(bill, 'currency', 'currency', out)
  const cp = currency === undefined ? undefined : currencyProblem(currency)
  if (cp) out.push({path: 'currency', message: cp})
  metadata(bill, 'metadata_', out)
  const amounts = lines(bill.lines, out)
  tags(bill.tags, amounts, out)
  return out
}

/** The lines' checks; their amounts' literals, or undefined when one is not an amount. */
function lines(value: unknown, out: BillViolation[]): string[] | undefined {
  if (!Array.isArray(value) || value.length === 0) {
    out.push({path: 'lines', message: 'must be a list of at least one line'})
    return undefined
  }
  let amounts: string[] | undefined = []
  value.forEach((line: unknown, i) => {
    const at = `lines[${i}]`
    if (!isObject(line)) {
      out.push({path: at, message: 'must be a JSON object'})
      amounts = undefined
      return
    }
    unknownFields(line, LINE_FIELDS, `${at}.`, out)
    const literal = literalOf(line.amount)
    const problem =
      literal === undefined
        ? line.amount === undefined || line.amount === null
          ? 'is required'
          : 'must be a JSON number'
        : amountLiteralProblem(literal)
    if (problem) {
      out.push({path: `${at}.amount`, message: problem})
      amounts = undefined
    } else amounts?.push(literal!)
    const ledger = text(line, 'ledger_id', `${at}.ledger_id`, out)
    const lp = idProblem(ledger ?? '', ID_PREFIX.ledger)
    if (lp) out.push({path: `${at}.ledger_id`, message: ledger === undefined ? 'is required' : lp})
    text(line, 'description', `${at}.description`, out)
    metadata(line, `${at}.metadata_`, out)
  })
  return amounts
}

/**
 * Why allocations of these amounts (JSON number literals) do not fit a bill whose lines have
 * these amounts, or undefined: together they may allocate at most the bill total.
 */
export function allocationTotalProblem(allocated: readonly string[], lines: readonly string[]): string | undefined {
  const sum = allocated.reduce((t, a) => t.plus(a), new Decimal(0))
  const total = lines.reduce((t, a) => t.plus(a), new Decimal(0))
  if (!sum.greaterThan(total)) return undefined
  return `allocates ${sum.toFixed()} in total, more than the bill total ${total.toFixed()} (the sum of its line amounts)`
}

/** The inline tags: a value, or allocations `{value, amount}` that add up to at most the total. */
function tags(value: unknown, amounts: string[] | undefined, out: BillViolation[]): void {
  if (value === undefined || value === null) return
  if (!isObject(value)) {
    out.push({path: 'tags', message: 'must be an object of tag field to value or allocations'})
    return
  }
  for (const field in value) {
    if (!Object.hasOwn(value, field)) continue
    const spec = value[field]
    const at = `tags.${field}`
    if (field === '') out.push({path: at, message: 'names no tag field'})
    if (typeof spec === 'string') {
      const problem = spec.trim() === '' ? 'is empty: expected a tag value' : textProblem(spec)
      if (problem) out.push({path: at, message: problem})
      continue
    }
    if (!Array.isArray(spec)) {
      out.push({path: at, message: 'must be a tag value or a list of {value, amount}'})
      continue
    }
    let allocated: string[] | undefined = []
    spec.forEach((a: unknown, i) => {
      if (!isObject(a)) {
        out.push({path: `${at}[${i}]`, message: 'must be a JSON object {value, amount}'})
        allocated = undefined
        return
      }
      unknownFields(a, ALLOCATION_FIELDS, `${at}[${i}].`, out)
      const problem =
        typeof a.value !== 'string' || a.value.trim() === '' ? 'must be a non-empty string' : textProblem(a.value)
      if (problem) out.push({path: `${at}[${i}].value`, message: problem})
      const literal = literalOf(a.amount)
      const ap = literal === undefined ? 'must be a JSON number' : amountLiteralProblem(literal, {nonNegative: true})
      if (ap) {
        out.push({path: `${at}[${i}].amount`, message: ap})
        allocated = undefined
      } else allocated?.push(literal!)
    })
    if (!allocated || !amounts) continue
    const problem = allocationTotalProblem(allocated, amounts)
    if (problem) out.push({path: at, message: problem})
  }
}
