/**
 * The --map file: how an accounting package's bill export becomes bk's bills. It states the
 * file's shape (delimiter, encoding, header or positions), its date and number formats, which
 * column feeds which of bk's columns, how a line amount is computed, blank continuation cells,
 * credit notes and the bill key. Checked with zod; every problem names file:line:column and the fix.
 * `--map NAME` reads a preset shipped in `maps/NAME.yaml`. docs/bills.md describes each key.
 */
import {existsSync, readdirSync} from 'node:fs'
import {dirname, join, sep} from 'node:path'
import {fileURLToPath} from 'node:url'

import {z} from 'zod'

import {closestWord} from '../cli/closest.js'
import {BkError, InputError, withHint} from '../shared/errors.js'
import {issueMessage} from '../shared/validation-issues.js'
import {decodeUtf8} from '../shared/utf8.js'
import {
  BILL_COLUMNS,
  headerKey,
  KNOWN_COLUMNS,
  byForm,
  nearestName,
  spellingsOfKey,
  type BillColumn,
  type Column,
} from './columns.js'
import {
  NEGATIVE_FORMS,
  NUMBER_FORMATS,
  datePattern,
  type DateFormat,
  type NegativeForm,
  type NumberFormat,
} from './formats.js'
import {unreadableBecause} from '../files/file-errors.js'
import {firstDuplicateKey, readBoundedFile, SIZE_LIMITS, yamlToJs} from '../files/input-limits.js'
import {MAP_LANGUAGE_KEYS, METADATA_TARGET, canonicalTarget, mapLanguage, type MapLanguage} from './map-language.js'
import {STRUCTURE_KEYS, hasStructure, recordStructure, type RecordStructure} from './record-structure.js'

/** Source-only columns: they feed a computed line amount or mark a credit note; never sent. */
export const SOURCE_COLUMNS = [
  'quantity',
  'unit_price',
  'line_net',
  'line_tax',
  'line_gross',
  'credit_marker',
  'discount',
  'status',
  'amounts_are',
] as const
export type SourceColumn = (typeof SOURCE_COLUMNS)[number]
/** What a column of the file may feed: one of bk's columns, a tag, or a source-only column. */
export type Target = Column | SourceColumn | `tag:${string}` | `metadata:${string}` | `line_metadata:${string}`

export const ENCODINGS = ['utf-8', 'windows-1252', 'latin1'] as const
export type Encoding = (typeof ENCODINGS)[number]
export const DELIMITERS = {',': ',', ';': ';', tab: '\t', '\t': '\t'} as const
export type AmountBasis = 'net' | 'gross'

/** A delimiter (the character, or the flag's `tab`) as a printed command's flag: `--delimiter ';'`. */
export function delimiterFlag(delimiter: string): string {
  return delimiter === '\t' || delimiter === 'tab' ? '--delimiter tab' : `--delimiter '${delimiter}'`
}

/** A map, checked. Flags (`--date-format` …) are applied on top by `withOverrides`. */
export interface BillMap extends MapLanguage, RecordStructure {
  /** The file the map came from, or `preset NAME`, for messages. */
  source: string
  /** The preset's name when `--map NAME` named one. */
  preset?: string | undefined
  delimiter: string
  encoding: Encoding
  header: boolean
  dateFormat?: DateFormat | undefined
  /** Further patterns a map's `date_format:` list allows (one file may write `DD/MM/YYYY` and `DDMMYY`). */
  dateAlternatives?: DateFormat[] | undefined
  numberFormat?: NumberFormat | undefined
  currencySymbols: boolean
  /**
   * `currency_symbols: {"$": "USD"}`: the currency each symbol that names several means here; a
   * list (`{"$": [AUD, NZD]}`) when the package writes its local currency's symbol, whichever that is.
   */
  symbolCurrencies: Readonly<Partial<Record<string, string | readonly string[]>>>
  negativeParentheses: boolean
  /** The file's header (lower-cased), or its 1-based position as text, to a target or null (dropped). */
  columns: Map<string, Target | null>
  /** Constants for blank or missing cells: bk's columns, and the source columns of an amount. */
  defaults: Partial<Record<Column | SourceColumn, string>>
  amounts?: AmountBasis | undefined
  unitPrices: AmountBasis
  fillDown: BillColumn[]
  key: BillColumn[]
  /**
   * Credit notes: rows whose `column` holds one of `values` (a closed list with `bills`, the bill
   * types: a value in neither is refused), and/or bills whose total is negative.
   */
  credit?:
    {column?: string | undefined; values: string[]; bills?: string[] | undefined; negativeTotal: boolean} | undefined
  /** Only rows whose `column` holds one of `values` are bill rows; any other is an error. */
  rows?: {column: string; values: string[]} | undefined
  credits: 'refuse' | 'skip'
  caseInsensitiveLookups: string[]
  dueDays?: number | undefined
  // Spellings, negatives and header forms (see `spellingsOf`).
  /** Each header the map names, by its compared form (`headerKey`), as the map spells it. */
  spellings: Map<string, string>
  /** An alias's compared form to the compared form of the header it stands for. */
  aliasOf: Map<string, string>
  /** The negative number forms the file writes; undefined: `-1`, and the legacy switches. */
  negative?: NegativeForm[] | undefined
  /** The documented fields in order: a headerless layout's header row to skip, or a header layout's fixed-order form. */
  fieldOrder?: string[] | undefined
  /** Layout rules: when a file has the header (compared form), these headers mean something else. */
  whenColumn: Map<string, Map<string, Target | null>>
  /** Bills by the status column: those to import and those set aside (closed lists). */
  status?: {bills: string[]; setAside: string[]; reason: string} | undefined
  /** Whether each row's amount includes tax, by the `amounts_are` column (closed lists). */
  amountsAre?: AmountsAre | undefined
  /** The flags a user must give with this map, each with what it means; `optional`: flags that may help. */
  needs: Map<string, string>
  optional: Map<string, string>
}

/** `amounts_are:` the values of the column that say a row's amount is net, gross, or has no tax. */
export interface AmountsAre {
  net: string[]
  gross: string[]
  untaxed: string[]
  /** Rows where this column holds one of the values have no tax (GnuCash's taxable column). */
  untaxedWhen?: {column: string; values: string[]} | undefined
}

/** The flags a map's `needs:` may name: the choices only the user can confirm. */
export const NEEDABLE_FLAGS = [
  'date-format',
  'number-format',
  'amounts',
  'currency',
  'due-days',
  'delimiter',
  'encoding',
  'year',
  'credits',
] as const

/** The flags that beat the map. */
export interface MapOverrides {
  dateFormat?: string | undefined
  numberFormat?: string | undefined
  delimiter?: string | undefined
  encoding?: string | undefined
  currency?: string | undefined
  amounts?: string | undefined
  dueDays?: number | undefined
  year?: number | undefined
  credits?: string | undefined
  /** --lines-file: the second file of a map with `lines_file:`. */
  linesFile?: string | undefined
}

const isTarget = (v: string) =>
  KNOWN_COLUMNS.includes(v.toLowerCase()) ||
  (SOURCE_COLUMNS as readonly string[]).includes(v.toLowerCase()) ||
  /^tag:\s*\S/i.test(v) ||
  METADATA_TARGET.test(v)
/**
 * Source-only columns that guard an amount: a row where one holds a value is refused (bk cannot
 * apply it): a line's discount, and a charge on the whole bill such as MYOB's freight.
 */
export const GUARD_COLUMNS = ['line_discount', 'bill_charge'] as const
const isGuard = (v: string) => (GUARD_COLUMNS as readonly string[]).includes(v.trim().toLowerCase())
/** Columns a default may fill: bk's, and the source columns of a computed amount (GnuCash: a blank quantity is 1). */
const DEFAULTABLE = [...KNOWN_COLUMNS, 'quantity', 'unit_price', 'line_net', 'line_tax', 'line_gross']
const defaultable = z
  .string()
  .refine((v) => DEFAULTABLE.includes(v), {message: `expected one of: ${DEFAULTABLE.join(', ')}`})
const oneOf = <T extends string>(values: readonly T[], what: string) =>
  z.string().refine((v): v is T => (values as readonly string[]).includes(v), {
    message: `expected ${what}: ${values.map((v) => JSON.stringify(v)).join(', ')}`,
  })

const isoCode = z.string().regex(/^[A-Z]{3}$/, {error: 'expected an ISO 4217 code in capitals, such as USD'})
const textList = z.array(z.string({error: 'expected a text'})).min(1)
/** `needs:` and `optional:`: a flag (`date-format`, `lookup vendor_id` …) to what it means for this map. */
const flagMeanings = z.record(
  z.string().refine((f) => (NEEDABLE_FLAGS as readonly string[]).includes(f) || /^lookup \S+$/.test(f), {
    message: `expected a flag: ${NEEDABLE_FLAGS.join(', ')}, or lookup FIELD`,
  }),
  z.string({error: 'expected what the flag means for this map'}).min(1),
)

const COLUMN_TARGETS = `expected one of bk's columns (${KNOWN_COLUMNS.join(', ')}), tag:<field>, a source column (${[...SOURCE_COLUMNS, ...GUARD_COLUMNS].join(', ')}), or ~ to drop the column`

const MapSchema = z
  .object({
    delimiter: z
      .string()
      .refine((v) => v in DELIMITERS, {message: 'expected "," or ";" or "tab"'})
      .optional(),
    encoding: oneOf(ENCODINGS, 'an encoding').optional(),
    header: z.boolean({error: 'expected true or false'}).optional(),
    date_format: z
      .union([z.string(), z.array(z.string()).min(1)])
      .refine((v) => [v].flat().every((p) => typeof datePattern(p) !== 'string'), {
        message: 'expected a date pattern, such as DD-MM-YYYY, or a list of them',
      })
      .optional(),
    number_format: oneOf(NUMBER_FORMATS, 'a number format').optional(),
    currency_symbols: z
      .union(
        [
          z.boolean(),
          z.partialRecord(
            z.enum(['$', '\u00a5', '\u20ac', '\u00a3', '\u20b9'], {error: 'expected a symbol: $, ¥, €, £ or ₹'}),
            z.union([isoCode, z.array(isoCode).min(1)]),
          ),
        ],
        {
          error:
            'expected true or false, or symbols to the currency each means, such as {"$": "USD"} or {"$": [AUD, NZD]}',
        },
      )
      .optional(),
    negative_parentheses: z.boolean({error: 'expected true or false'}).optional(),
    columns: z
      .record(
        z.string(),
        z
          .string({error: COLUMN_TARGETS})
          .refine((v) => isTarget(v) || isGuard(v), {message: COLUMN_TARGETS})
          .nullable(),
        {error: 'expected "Header: column" pairs, one a line, such as "Bill No: number"'},
      )
      .optional(),
    ignore: z
      .union([z.array(z.string({error: 'expected a column name'})), z.literal('all-others')], {
        error: 'expected a list of column names, or all-others',
      })
      .optional(),
    defaults: z
      .record(defaultable, z.union([z.string(), z.number(), z.boolean()], {error: 'expected a plain value'}))
      .optional(),
    amounts: oneOf(['net', 'gross'] as const, 'net or gross').optional(),
    unit_prices: oneOf(['net', 'gross'] as const, 'net or gross').optional(),
    fill_down: z.array(oneOf(BILL_COLUMNS, 'a bill-level column')).optional(),
    key: z
      .array(oneOf(BILL_COLUMNS, 'a bill-level column'))
      .min(1)
      .refine((k) => k.includes('number'), {message: 'the bill key must include number'})
      .optional(),
    credit: z
      .object(
        {
          column: z.string().optional(),
          values: z.array(z.string()).min(1).optional(),
          bills: z.array(z.string()).min(1).optional(),
          negative_total: z.boolean().optional(),
        },
        {error: 'expected {column, values} and/or {negative_total: true}'},
      )
      .strict()
      .refine((c) => c.values !== undefined || c.negative_total === true, {
        message: 'say how a credit note is marked: values (of a column) or negative_total: true',
      })
      .optional(),
    credits: oneOf(['refuse', 'skip'] as const, 'refuse or skip').optional(),
    rows: z
      .object({column: z.string().min(1), values: z.array(z.string()).min(1)}, {error: 'expected {column, values}'})
      .strict()
      .optional(),
    case_insensitive_lookups: z.array(z.string()).optional(),
    due_days: z.number().int().min(0).max(3650).optional(),
    ...MAP_LANGUAGE_KEYS,
    ...STRUCTURE_KEYS,
    // Spellings, negatives and header forms: one place, see spellingsOf.
    aliases: z.record(z.string(), z.array(z.string({error: 'expected a header'})).min(1)).optional(),
    negative: z.array(oneOf(NEGATIVE_FORMS, 'a negative form')).min(1).optional(),
    field_order: z
      .array(z.string({error: 'expected a field name'}))
      .min(1)
      .optional(),
    when_column: z
      .record(z.string(), z.record(z.string(), z.string().nullable(), {error: 'expected header: target pairs'}))
      .optional(),
    // Bills set aside by status, amounts by tax inclusion, and the flags a map needs: see statusRules.
    status: z
      .object(
        {bills: textList, set_aside: textList, reason: z.string().min(1).optional()},
        {
          error: 'expected {bills, set_aside, reason}',
        },
      )
      .strict()
      .optional(),
    amounts_are: z
      .object(
        {
          net: z.array(z.string()).optional(),
          gross: z.array(z.string()).optional(),
          untaxed: z.array(z.string()).optional(),
          untaxed_when: z
            .object({column: z.string().min(1), values: z.array(z.string()).min(1)})
            .strict()
            .optional(),
        },
        {error: 'expected {net, gross, untaxed, untaxed_when}'},
      )
      .strict()
      .optional(),
    needs: flagMeanings.optional(),
    optional: flagMeanings.optional(),
  })
  .strict()

type MapDocument = z.infer<typeof MapSchema>

/**
 * A key named `__proto__` is a header like any other, but zod drops it from a record (assigning
 * it would replace the result's prototype): it is checked under another name, and `entriesOf`
 * gives it back. The rest of a map's keys (`constructor`, `prototype`) are own properties already.
 */
const PROTO_KEY = '\u0000__proto__'
const keyName = (key: string) => (key === PROTO_KEY ? '__proto__' : key)

function escapeProtoKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(escapeProtoKeys)
  if (!value || typeof value !== 'object') return value
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k === '__proto__' ? PROTO_KEY : k, escapeProtoKeys(v)]),
  )
}

/** A record of the checked map as [key, value] pairs, with `__proto__` under its own name. */
function entriesOf<V>(record: Record<string, V> | undefined): Array<[string, V]> {
  return Object.entries(record ?? {}).map(([k, v]) => [keyName(k), v])
}

/**
 * The folder of the shipped presets, `maps/` at the package root, with a trailing separator: the
 * nearest `maps/` above this module, which is src/bills/ in tests, dist/unbundled/bills/ in the
 * unbundled build and dist/bk.cjs in the bundle.
 */
export function presetFolder(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'maps')) && dirname(dir) !== dir) dir = dirname(dir)
  return join(dir, 'maps') + sep
}

/** A `--map` value that names a preset rather than a file: a bare word with no `.yaml`. */
function presetPath(name: string): string | undefined {
  if (!/^[a-z0-9-]+$/.test(name)) return undefined
  const path = `${presetFolder()}${name}.yaml`
  return existsSync(path) ? path : undefined
}

function unknownPreset(spec: string): InputError {
  const names = readdirSync(presetFolder())
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => f.slice(0, -'.yaml'.length))
  const near = nearestName(spec, byForm(names))
  return new InputError(`--map ${spec}: no preset and no map file has that name`, {
    code: 'unknown_map',
    hint: `${near ? `Did you mean --map ${near}? ` : ''}\`bk bills maps\` lists the presets; a map of your own is given as the path to its .yaml file.`,
  })
}

/** Reads `--map FILE.yaml` or `--map PRESET`. */
export async function loadBillMap(spec: string): Promise<BillMap> {
  const preset = presetPath(spec)
  const file = preset ?? spec
  let bytes: Buffer
  try {
    bytes = await readBoundedFile(file, 'the map file', SIZE_LIMITS.map)
  } catch (error) {
    // A bare word that is neither a preset nor a file was most likely a preset's name, mistyped.
    if (/^[a-z0-9-]+$/.test(spec) && !existsSync(spec)) throw unknownPreset(spec)
    if (error instanceof InputError) throw error
    throw new InputError(`Cannot read the map file ${file}: ${unreadableBecause(error)}`)
  }
  const label = preset ? `preset ${spec} (${file})` : file
  const map = await parseBillMap(decodeUtf8(bytes, file), label)
  if (preset) map.preset = spec
  return map
}

/** Parses and checks a map's text; `label` names it in messages. */
export async function parseBillMap(text: string, label: string): Promise<BillMap> {
  try {
    return await checkedMap(text, label)
  } catch (error) {
    throw error instanceof BkError && !error.hint ? withHint(error, MAP_HINT) : error
  }
}

/** The next step of a map's problem that names none of its own. */
const MAP_HINT =
  'docs/bills.md, "The --map file", says what each key of a map takes; `bk bills maps init FILE` writes a first map from the export itself.'

async function checkedMap(text: string, label: string): Promise<BillMap> {
  const {parseDocument, LineCounter, isMap, isScalar} = await import('yaml')
  const lineCounter = new LineCounter()
  // Duplicate keys are found below in linear time (yaml's uniqueKeys is quadratic).
  const doc = parseDocument(text, {lineCounter, uniqueKeys: false})
  const where = (offset: number | undefined) => {
    if (offset === undefined) return label
    const {line, col} = lineCounter.linePos(offset)
    return `${label}:${line}:${col}`
  }
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!
    const sourceLine = e.linePos ? (text.split(/\r?\n/)[e.linePos[0].line - 1] ?? '') : ''
    const star = /^\s*\*[^:]*:/.exec(sourceLine)
    throw new InputError(`${where(e.pos[0])}: ${e.message.split('\n')[0]}`, {
      hint: star
        ? `A key starting with * (as Xero writes its required headers) must be quoted in YAML: "${star[0].trim().slice(0, -1)}": …`
        : 'Check the YAML syntax at that line (indentation, a colon after each key, quotes around special characters).',
    })
  }
  const duplicate = firstDuplicateKey(doc)
  if (duplicate)
    throw new InputError(`${where(duplicate.offset)}: the key "${duplicate.key}" appears twice in one mapping`)
  const root = doc.contents
  if (!isMap(root))
    throw new InputError(`${label}: expected a mapping with "columns:" and the keys docs/bills.md lists`)
  // Column keys are compared as text: `1:` (a position) and `Bill No:` alike.
  const js = yamlToJs(doc, label, 0) as Record<string, unknown>
  if (js.columns && typeof js.columns === 'object' && !Array.isArray(js.columns)) {
    js.columns = Object.fromEntries(Object.entries(js.columns).map(([k, v]) => [String(k).trim(), v === '' ? null : v]))
  }
  // bk's words for what was expected and found, where the schema has none of its own.
  const checked = MapSchema.safeParse(escapeProtoKeys(js), {error: (issue) => issueMessage(issue), reportInput: true})
  if (!checked.success) {
    // A misspelled key is also a required one missing: the misspelling says what to fix.
    const issue = checked.error.issues.find((i) => i.code === 'unrecognized_keys') ?? checked.error.issues[0]!
    const path = issue.path.map((k) => keyName(String(k)))
    const nodeAt = (at: string[]) => doc.getIn(at, true) as {range?: [number, number, number]} | undefined
    if (issue.code === 'unrecognized_keys') {
      // Pointed at the key itself.
      const parent = (path.length === 0 ? root : nodeAt(path)) as typeof root
      const pair = isMap(parent)
        ? parent.items.find((p) => isScalar(p.key) && issue.keys.includes(String(p.key.value)))
        : undefined
      const offset = (pair?.key as {range?: [number, number, number]} | undefined)?.range?.[0]
      const unknown = keyName(String(issue.keys[0]))
      const keys = keysAt(path)
      const near = closestWord(unknown, keys)
      throw new InputError(
        `${where(offset)}: unknown key "${unknown}"${path.length ? ` in ${path.join('.')}` : ''}${near ? `; did you mean ${near}?` : ''}`,
        {
          hint:
            keys.length > 0
              ? `The keys of ${path.length ? path.join('.') : 'a map'}: ${keys.join(', ')} (docs/bills.md "The --map file").`
              : MAP_HINT,
        },
      )
    }
    // Pointed at the value, or at the mapping that lacks it.
    let offset: number | undefined
    for (let depth = path.length; offset === undefined && depth > 0; depth--)
      offset = nodeAt(path.slice(0, depth))?.range?.[0]
    const value = path.reduce<unknown>(
      (v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined),
      js,
    )
    // A message in bk's words says what it found; the schema's own say what is expected only.
    const saysFound = issue.message === issueMessage(issue)
    const what =
      path[0] === 'columns' && path.length === 2
        ? `"${path[1]}" maps to ${JSON.stringify(value)}`
        : `${path.join('.') || 'the map'}${!saysFound && value !== undefined && typeof value !== 'object' ? ` is ${JSON.stringify(value)}` : ''}`
    throw new InputError(`${where(offset)}: ${what}: ${issue.message}`)
  }
  return toBillMap(checked.data, label, where, doc)
}

/**
 * The keys the schema allows in the mapping at `path`: the map's own, one such as credit, or one
 * under a name of the map's choosing (a lookup's, under lookups).
 */
function keysAt(path: readonly string[]): string[] {
  let schema: z.ZodType = MapSchema
  for (const key of path) {
    const inner = unwrapOptional(schema)
    const next = inner instanceof z.ZodRecord ? (inner.valueType as z.ZodType) : shapeOf(inner)?.[key]
    if (!next) return []
    schema = next
  }
  return Object.keys(shapeOf(unwrapOptional(schema)) ?? {})
}

const unwrapOptional = (schema: z.ZodType): z.ZodType =>
  schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema

const shapeOf = (schema: z.ZodType): Record<string, z.ZodType> | undefined =>
  schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>) : undefined

function toBillMap(
  m: MapDocument,
  label: string,
  where: (offset: number | undefined) => string,
  doc: {getIn(path: unknown[], keepScalar: true): unknown},
): BillMap {
  const at = (path: string[]) => where((doc.getIn(path, true) as {range?: [number]} | undefined)?.range?.[0])
  const columns = new Map<string, Target | null>()
  for (const [from, to] of entriesOf(m.columns)) {
    if (from === '') throw new InputError(`${at(['columns'])}: an empty column name`)
    const key = headerKey(from)
    const target = to === null ? null : (canonicalTarget(to) as Target)
    if (columns.has(key) && columns.get(key) !== target)
      throw new InputError(
        `${at(['columns', from])}: "${from}" is the same header as another key of columns: (headers are compared without case, *, a trailing . or :)`,
      )
    columns.set(key, target)
  }
  for (const from of Array.isArray(m.ignore) ? m.ignore : []) {
    const key = headerKey(from)
    if (columns.get(key)) {
      throw new InputError(`${at(['ignore'])}: "${from}" is both mapped (to ${columns.get(key)}) and ignored`, {
        hint: 'Keep one of the two.',
      })
    }
    columns.set(key, null)
  }
  const defaults: BillMap['defaults'] = {}
  for (const [column, value] of Object.entries(m.defaults ?? {})) defaults[column as Column] = String(value)
  const credit = m.credit && {
    column: m.credit.column?.trim(),
    values: (m.credit.values ?? []).map((v) => v.trim()),
    bills: m.credit.bills?.map((v) => v.trim()),
    negativeTotal: m.credit.negative_total ?? false,
  }
  const spelt = spellingsOf(m, columns, at)
  if (credit && credit.values.length > 0 && !credit.column && ![...columns.values()].includes('credit_marker')) {
    throw new InputError(`${at(['credit'])}: credit needs a column: name it here, or map a column to credit_marker`)
  }
  return {
    source: label,
    delimiter: DELIMITERS[(m.delimiter ?? ',') as keyof typeof DELIMITERS],
    encoding: m.encoding ?? 'utf-8',
    header: m.header ?? true,
    dateFormat: [m.date_format ?? []].flat()[0],
    dateAlternatives: [m.date_format ?? []].flat().slice(1),
    numberFormat: m.number_format,
    currencySymbols: m.currency_symbols !== undefined && m.currency_symbols !== false,
    symbolCurrencies: typeof m.currency_symbols === 'object' ? m.currency_symbols : {},
    negativeParentheses: m.negative_parentheses ?? false,
    columns,
    defaults,
    amounts: m.amounts,
    unitPrices: m.unit_prices ?? 'net',
    fillDown: m.fill_down ?? [],
    key: m.key ?? ['vendor_id', 'number'],
    credit,
    rows: m.rows && {column: m.rows.column.trim(), values: m.rows.values.map((v) => v.trim())},
    credits: m.credits ?? 'refuse',
    caseInsensitiveLookups: m.case_insensitive_lookups ?? [],
    dueDays: m.due_days,
    ...spelt,
    ...statusRules(m, columns, spelt.whenColumn, at),
    ...mapLanguage(m, where, doc),
    ...recordStructure(m, at),
  }
}

/**
 * `status:` and `amounts_are:` read a column the map feeds to the `status` or `amounts_are`
 * target (a layout without that column has no such rule); `needs:` and `optional:` list flags.
 * Each list is closed: a value in none of them refuses the row, never guessed.
 */
function statusRules(
  m: MapDocument,
  columns: Map<string, Target | null>,
  whenColumn: Map<string, Map<string, Target | null>>,
  at: (path: string[]) => string,
): Pick<BillMap, 'status' | 'amountsAre' | 'needs' | 'optional'> {
  const fed = (target: Target) =>
    [...columns.values()].includes(target) || [...whenColumn.values()].some((l) => [...l.values()].includes(target))
  for (const [key, target] of [
    ['status', 'status'],
    ['amounts_are', 'amounts_are'],
  ] as const) {
    if (m[key] && !fed(target))
      throw new InputError(`${at([key])}: ${key}: reads the column mapped to ${target}, and no column is`, {
        hint: `Map the column under columns: (for example "Status": ${target}).`,
      })
    if (!m[key] && fed(target))
      throw new InputError(
        `${at(['columns'])}: a column maps to ${target}, but the map has no ${key}: key to say what its values mean`,
      )
  }
  const trim = (list: string[] | undefined) => (list ?? []).map((v) => v.trim())
  const a = m.amounts_are
  if (a && trim(a.net).length + trim(a.gross).length === 0)
    throw new InputError(`${at(['amounts_are'])}: amounts_are: lists no net or gross values`)
  return {
    status: m.status && {
      bills: trim(m.status.bills),
      setAside: trim(m.status.set_aside),
      reason: m.status.reason?.trim() ?? 'not a bill to enter',
    },
    amountsAre: a && {
      net: trim(a.net),
      gross: trim(a.gross),
      untaxed: trim(a.untaxed),
      untaxedWhen: a.untaxed_when && {column: a.untaxed_when.column.trim(), values: trim(a.untaxed_when.values)},
    },
    needs: new Map(Object.entries(m.needs ?? {}).map(([f, what]) => [f, what.trim()])),
    optional: new Map(Object.entries(m.optional ?? {}).map(([f, what]) => [f, what.trim()])),
  }
}

/**
 * The flags a map needs and the user did not give, refused once before any row: each named with
 * what it means for this map. `given` says whether a flag was passed (`lookup FIELD` included).
 */
export function checkNeeds(map: BillMap, given: (flag: string) => boolean): void {
  const missing = [...map.needs].filter(([flag]) => !given(flag))
  if (missing.length === 0) return
  const flag = (f: string) => (f.startsWith('lookup ') ? `--lookup ${f.slice(7)}=FILE.csv` : `--${f}`)
  // One line, as every error is: each flag with what it means, in parentheses.
  const named = missing.map(([f, what]) => `${flag(f)} (${what})`)
  throw new InputError(
    `${map.preset ? `preset ${map.preset}` : map.source} needs ${missing.length === 1 ? 'a flag' : 'flags'} you did not give: ${named.join('; ')}`,
    {
      hint: `Pass ${missing.length === 1 ? 'it' : 'them'}: nothing was read or sent.${map.preset ? ` \`bk bills maps show ${map.preset}\` prints the preset.` : ''}`,
      code: 'flags_needed',
    },
  )
}

/**
 * Spellings, negatives and header forms, checked: `aliases:` gives a header named in `columns:`
 * or `ignore:` its other spellings (one target, many headers); `negative:` lists the forms of a
 * negative number the file writes; `field_order:` the documented fields in order. A credit marked
 * by a type column lists the bill types too (`credit.bills`, or `rows:`), so that the types are a
 * closed list.
 */
function spellingsOf(
  m: MapDocument,
  columns: Map<string, Target | null>,
  at: (path: string[]) => string,
): Pick<BillMap, 'spellings' | 'aliasOf' | 'negative' | 'fieldOrder' | 'whenColumn'> {
  const spellings = new Map<string, string>()
  for (const name of [...entriesOf(m.columns).map(([k]) => k), ...(Array.isArray(m.ignore) ? m.ignore : [])])
    spellings.set(headerKey(name), name.trim())
  const aliasOf = new Map<string, string>()
  for (const [name, alternatives] of entriesOf(m.aliases)) {
    const key = headerKey(name)
    if (!columns.has(key))
      throw new InputError(`${at(['aliases', name])}: "${name}" is not a header of columns: or ignore:`, {
        hint: 'Aliases are other spellings of a header the map names: name it under columns: (or ignore:) first.',
      })
    for (const alternative of alternatives) {
      const alt = headerKey(alternative)
      if (columns.has(alt) && columns.get(alt) !== columns.get(key))
        throw new InputError(
          `${at(['aliases', name])}: "${alternative}" is an alias of "${name}" (${columns.get(key) ?? 'ignored'}) and also maps to ${columns.get(alt) ?? 'ignored'}`,
        )
      columns.set(alt, columns.get(key)!)
      aliasOf.set(alt, key)
      spellings.set(alt, alternative.trim())
    }
  }
  const negative = m.negative as NegativeForm[] | undefined
  if (negative?.some((f) => f.includes('$')) && !m.currency_symbols)
    throw new InputError(`${at(['negative'])}: a form with a currency symbol ($) needs currency_symbols: true`)
  if (m.credit?.values && !m.credit.bills && !m.rows)
    throw new InputError(`${at(['credit'])}: credit notes marked by a type column need the bill types too`, {
      hint: 'List them as credit.bills: a type in neither list is then refused, never read as a bill.',
    })
  const whenColumn = new Map<string, Map<string, Target | null>>()
  for (const [trigger, meanings] of entriesOf(m.when_column)) {
    const inThisLayout = new Map<string, Target | null>()
    for (const [header, to] of entriesOf(meanings)) {
      if (to !== null && to !== '' && !isTarget(to) && !isGuard(to))
        throw new InputError(
          `${at(['when_column', trigger, header])}: "${header}" maps to "${to}", not one of bk's columns`,
        )
      inThisLayout.set(headerKey(header), to === null || to === '' ? null : (canonicalTarget(to) as Target))
    }
    whenColumn.set(headerKey(trigger), inThisLayout)
  }
  // A rule speaks of a header and its aliases (translate.ts, columnsForLayout): one that drops a
  // spelling of its own trigger would undo itself.
  for (const [trigger, meanings] of whenColumn) {
    const told = new Set(spellingsOfKey(aliasOf, trigger))
    for (const [header, to] of meanings) {
      const dropped = to === null ? spellingsOfKey(aliasOf, header).find((s) => told.has(s)) : undefined
      if (dropped !== undefined)
        throw new InputError(
          `${at(['when_column', spellings.get(trigger) ?? trigger, spellings.get(header) ?? header])}: drops "${spellings.get(header) ?? header}" and its aliases, among them "${spellings.get(dropped) ?? dropped}", the header that sets off this rule`,
          {hint: 'Name that header under columns: on its own, not as an alias of the header the rule drops.'},
        )
    }
  }
  return {spellings, aliasOf, negative, fieldOrder: m.field_order?.map((f) => f.trim()), whenColumn}
}

/** The map bk uses when none is given: bk's own format, with the flags applied. */
export function plainMap(): BillMap {
  return {
    source: 'bk format',
    delimiter: ',',
    encoding: 'utf-8',
    header: true,
    currencySymbols: false,
    symbolCurrencies: {},
    negativeParentheses: false,
    columns: new Map(),
    defaults: {},
    unitPrices: 'net',
    fillDown: [],
    key: ['vendor_id', 'number'],
    credits: 'refuse',
    caseInsensitiveLookups: [],
    compute: [],
    quotes: true,
    lookupKeys: new Map(),
    skipLines: 0,
    ignoreAllOthers: false,
    spellings: new Map(),
    aliasOf: new Map(),
    whenColumn: new Map(),
    needs: new Map(),
    optional: new Map(),
  }
}

/** Flags beat the map; each is checked here so its error names the flag. */
export function withOverrides(map: BillMap, flags: MapOverrides): BillMap {
  const out = {...map, defaults: {...map.defaults}}
  const check = <T extends string>(flag: string, value: string, allowed: readonly T[]): T => {
    if (!(allowed as readonly string[]).includes(value))
      throw new InputError(`--${flag} ${value}: expected one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`)
    return value as T
  }
  if (flags.dateFormat) {
    const shape = datePattern(flags.dateFormat)
    if (typeof shape === 'string') throw new InputError(`--date-format ${shape}`)
    out.dateFormat = flags.dateFormat
    out.dateAlternatives = []
  }
  if (flags.numberFormat) out.numberFormat = check('number-format', flags.numberFormat, NUMBER_FORMATS)
  if (flags.encoding) out.encoding = check('encoding', flags.encoding.toLowerCase(), ENCODINGS)
  if (flags.amounts) out.amounts = check('amounts', flags.amounts, ['net', 'gross'] as const)
  if (flags.delimiter) {
    const d = check('delimiter', flags.delimiter, Object.keys(DELIMITERS))
    out.delimiter = DELIMITERS[d as keyof typeof DELIMITERS]
  }
  if (flags.currency) {
    if (!/^[A-Z]{3}$/.test(flags.currency) || !Intl.supportedValuesOf('currency').includes(flags.currency))
      throw new InputError(`--currency ${flags.currency}: expected an ISO 4217 code in capitals, such as EUR or USD`)
    out.defaults.currency = flags.currency
  }
  if (flags.dueDays !== undefined) out.dueDays = flags.dueDays
  if (flags.year !== undefined) out.year = {year: flags.year, from: '--year'}
  if (flags.credits) out.credits = check('credits', flags.credits, ['skip', 'refuse'] as const)
  if (flags.linesFile !== undefined) {
    if (!map.linesFile)
      throw new InputError(`--lines-file ${flags.linesFile}: ${map.source} reads every line from the one file`, {
        hint: 'A map that reads the lines from a second file says how the two join: lines_file: {key: <column>} (docs/bills.md).',
      })
    out.linesFile = {...map.linesFile, path: flags.linesFile}
  }
  return out
}

/** Whether the import reads anything but bk's own format (then rows go through the translator). */
export function isPlain(map: BillMap): boolean {
  return (
    map.columns.size === 0 &&
    Object.keys(map.defaults).length === 0 &&
    map.delimiter === ',' &&
    map.encoding === 'utf-8' &&
    map.header &&
    !map.dateFormat &&
    !map.numberFormat &&
    map.fillDown.length === 0 &&
    map.dueDays === undefined &&
    !map.credit &&
    !map.rows &&
    !map.status &&
    map.compute.length === 0 &&
    map.skipLines === 0 &&
    map.quotes &&
    !hasStructure(map)
  )
}
