/**
 * Reads journal entries from YAML text, keeping source positions, and checks every rule that
 * can be checked offline. Amounts never pass through a JavaScript number: the document is
 * parsed with the failsafe schema (every scalar stays text) and an amount is taken from the
 * scalar's source text, so `120.50` is sent as "120.50" (and `010` as "10") and 0.1 + 0.2 stays
 * exact. A YAML null (`~`, `null`) is no value, like an empty one.
 *
 * Accepted shapes: one entry (a mapping with `lines`), a list of entries under `entries:`, or a
 * bare list of entries. A line is `debit: 120.00` / `credit: 120.00`, or `debit_credit` + `amount`.
 */
import {
  Composer,
  CST,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  Parser,
  type Document,
  type Node,
  type Pair,
  type Scalar,
  type YAMLError,
  type YAMLMap,
} from 'yaml'

import type {JournalEntryInput} from '../api/schemas/journal-entry.js'
import {
  amountToSend,
  checkBalance,
  journalEntryViolations,
  parseAmount,
  type Side,
} from '../shared/journal-entry-rules.js'
import {closestWord} from '../cli/closest.js'
import {oneLine} from '../output/terminal.js'
import {parseUtcDatetime} from './datetime.js'

export interface Problem {
  file: string
  line: number
  column: number
  /** 1-based index of the entry in its file, when the problem belongs to one. */
  entry?: number | undefined
  description?: string | undefined
  message: string
}

export interface LoadedEntry {
  /** 1-based index in its file. */
  index: number
  line: number
  column: number
  description: string | undefined
  /** What is sent: amounts as the decimal text of the file, datetime in UTC. */
  input: JournalEntryInput
  debits: string
  credits: string
}

export interface LoadResult {
  file: string
  /** How many entries the file holds, valid or not. */
  count: number
  /** How many lines the valid entries hold. */
  lines: number
  /** The valid entries (all of them when `problems` is empty), unless not kept (LoadOptions). */
  entries: LoadedEntry[]
  /** The first MAX_KEPT_PROBLEMS problems, in file order. */
  problems: Problem[]
  /** How many more problems were found and not kept. */
  omittedProblems: number
}

const ENTRY_KEYS = ['description', 'datetime', 'lines'] as const
const LINE_KEYS = ['ledger_id', 'description', 'debit', 'credit', 'debit_credit', 'amount', 'tag_value_ids'] as const

/**
 * One problem per line of text, as `file:line:column: entry N "description": message`. The
 * description and the values quoted in the message are the file's text: line breaks and control
 * characters are shown as on a terminal line (oneLine), never split the line or reach the terminal.
 */
export function formatProblem(p: Problem): string {
  const where = `${p.file}:${p.line}:${p.column}`
  const entry = p.entry === undefined ? '' : `${entryName(p.entry, p.description)}: `
  return `${where}: ${entry}${oneLine(p.message)}`
}

/** `entry N "description"`, the description on one line and free of control characters. */
export function entryName(index: number, description: string | undefined): string {
  return `entry ${index}${description ? ` "${oneLine(description)}"` : ''}`
}

/** Problems kept per file; past this only their number is (a file of broken entries is no reason to run out of memory). */
export const MAX_KEPT_PROBLEMS = 1000

/** How much text the parser is given at a time: pruning happens between pieces. */
const PIECE = 64 * 1024

export interface LoadOptions {
  /** Keep the valid entries (to post them); `validate` needs only their number. Default true. */
  keepEntries?: boolean | undefined
}

/**
 * Reads one YAML file given piece by piece, with memory bounded by the largest entry rather than
 * by the file: the `yaml` package's Parser builds the syntax tree as text arrives, and every item
 * of the top-level list (bare, or under `entries:`) is taken out of that tree as soon as the next
 * one begins, composed and checked on its own, then dropped. Offsets stay those of the whole
 * file, so every problem keeps its line and column.
 */
export class JournalEntriesReader {
  private readonly lineCounter = new LineCounter()
  private readonly parser = new Parser(this.lineCounter.addNewLine)
  private readonly composer = new Composer(COMPOSE_OPTIONS)
  private readonly docs: Document.Parsed[] = []
  private readonly entries: LoadedEntry[] = []
  private readonly problems: Problem[] = []
  private omitted = 0
  private taken = 0
  private lines = 0
  private length = 0
  private topDocuments = 0
  private readonly keepEntries: boolean

  constructor(
    readonly file: string,
    options: LoadOptions = {},
  ) {
    this.keepEntries = options.keepEntries ?? true
  }

  /**
   * Feeds the next piece of the text. The parser is given whole lines only: the `yaml` package's
   * lexer (2.9) misreads an indentation cut between two pieces.
   */
  push(text: string): void {
    for (let i = 0; i < text.length; i += PIECE) {
      const piece = text.slice(i, i + PIECE)
      // Searched alone, not joined to the line so far: a line of megabytes is searched once.
      const cut = piece.lastIndexOf('\n') + 1
      if (cut === 0) {
        this.partialLine += piece
        continue
      }
      this.feed(this.partialLine + piece.slice(0, cut), true)
      this.partialLine = piece.slice(cut)
    }
  }

  private partialLine = ''

  /** Ends the text and returns what was found in it. */
  end(): LoadResult {
    this.feed(this.partialLine, false)
    this.partialLine = ''
    for (const doc of this.composer.end(true, this.length)) this.docs.push(doc)
    this.checkRoot()
    this.problems.sort((a, b) => a.line - b.line || a.column - b.column)
    return {
      file: this.file,
      count: this.taken + this.rootEntries,
      lines: this.lines,
      entries: this.entries,
      problems: this.problems,
      omittedProblems: this.omitted,
    }
  }

  private rootEntries = 0

  private feed(text: string, incomplete: boolean): void {
    this.length += text.length
    for (const token of this.parser.parse(text, incomplete)) {
      if (token.type === 'document') this.topDocuments++
      for (const doc of this.composer.next(token)) this.docs.push(doc)
    }
    this.takeFinishedEntries()
  }

  private at: At = (offset) => {
    const pos = this.lineCounter.linePos(offset ?? 0)
    return {line: pos.line, column: pos.col}
  }

  private report(problem: Problem): void {
    if (this.problems.length < MAX_KEPT_PROBLEMS) this.problems.push(problem)
    else this.omitted++
  }

  /**
   * Takes the finished items out of the top-level list the parser is building (every item but
   * the last two: the parser still touches the last, and may hang a comment on the one before).
   */
  private takeFinishedEntries(): void {
    if (this.topDocuments > 0) return // a second document is an error; no need to be frugal
    const list = entriesUnderConstruction(this.parser.stack)
    if (!list || list.items.length < 3) return
    for (const item of list.items.splice(0, list.items.length - 2)) {
      const offset = item.start[0]?.offset ?? list.offset
      const token: CST.Document = {
        type: 'document',
        offset,
        start: [],
        value: {type: 'block-seq', offset, indent: list.indent, items: [item]},
      }
      const composer = new Composer(COMPOSE_OPTIONS)
      const [doc] = [...composer.next(token), ...composer.end(true)]
      const node = doc && isSeq(doc.contents) ? (doc.contents.items[0] as Node | undefined) : undefined
      if (!doc || (node === undefined && doc.errors.length === 0)) continue // a comment, no item
      const index = ++this.taken
      if (doc.errors.length > 0) {
        for (const e of doc.errors)
          this.report({file: this.file, ...this.at(e.pos[0]), entry: index, message: syntaxMessage(e)})
        continue
      }
      this.check(node as Node, index)
    }
  }

  private check(node: Node, index: number): void {
    const problems: Problem[] = []
    const entry = readEntry(node, index, this.file, this.at, problems)
    for (const p of problems) this.report(p)
    if (!entry) return
    this.lines += entry.input.lines.length
    if (this.keepEntries) this.entries.push(entry)
  }

  /** The document's root, with the entries not taken out while reading. */
  private checkRoot(): void {
    const file = this.file
    const at = this.at
    const [doc, second] = this.docs
    if (!doc) return
    if (second)
      this.report({
        file,
        ...at(second.range[0]),
        message: 'YAML syntax: the file holds more than one YAML document (---); put every entry in one list',
      })
    if (doc.errors.length > 0) {
      for (const e of doc.errors) this.report({file, ...at(e.pos[0]), message: syntaxMessage(e)})
      return
    }
    const root = doc.contents
    if (this.taken === 0 && (root === null || (isScalar(root) && String(root.value).trim() === ''))) {
      this.report({
        file,
        line: 1,
        column: 1,
        message: 'the file holds no journal entry; expected an entry with lines, or a list under entries:',
      })
      return
    }

    let entryNodes: Node[] = []
    if (isMap(root) && root.items.some((p) => keyText(p) === 'entries')) {
      let seen = false
      for (const pair of root.items) {
        const key = keyText(pair)
        if (key !== 'entries')
          this.report({
            file,
            ...at(nodeStart(pair.key)),
            message: `unknown key "${key ?? '?'}" beside entries: (only entries: is expected at the top)`,
          })
        else if (seen)
          this.report({file, ...at(nodeStart(pair.key)), message: 'entries: appears twice; write one list'})
        seen = true
      }
      const list = root.items.find((p) => keyText(p) === 'entries')?.value
      if (!isSeq(list) || (list.items.length === 0 && this.taken === 0)) {
        this.report({
          file,
          ...at(nodeStart(list as Node | null) ?? nodeStart(root.items[0]?.key)),
          message: 'entries: must be a list of at least one entry',
        })
      } else {
        entryNodes = list.items as Node[]
      }
    } else if (isMap(root)) {
      entryNodes = [root]
    } else if (isSeq(root)) {
      entryNodes = root.items as Node[]
    } else {
      this.report({
        file,
        ...at(nodeStart(root)),
        message: 'expected a journal entry (a mapping with lines) or a list under entries:',
      })
    }
    this.rootEntries = entryNodes.length
    entryNodes.forEach((node, i) => this.check(node, this.taken + i + 1))
  }
}

/** Failsafe: every scalar stays text; duplicate keys are found by `fields`, in linear time. */
const COMPOSE_OPTIONS = {schema: 'failsafe', keepSourceTokens: true, prettyErrors: false, uniqueKeys: false} as const

function syntaxMessage(e: YAMLError): string {
  return `YAML syntax: ${e.message}`
}

/**
 * The top-level list of entries while the parser builds it: the root sequence of the first
 * document, or the sequence under its root mapping's `entries:` key. Undefined for any other
 * shape (one entry, a flow list), which is then read whole.
 */
function entriesUnderConstruction(stack: readonly CST.Token[]): CST.BlockSequence | undefined {
  const [doc, root, list] = stack
  if (doc?.type !== 'document') return undefined
  if (root?.type === 'block-seq') return root
  if (root?.type !== 'block-map' || list?.type !== 'block-seq') return undefined
  const key = root.items[root.items.length - 1]?.key
  return CST.isScalar(key) && CST.resolveAsScalar(key)?.value === 'entries' ? list : undefined
}

/** Reads a whole text (tests, the bench): the same reader, given the text at once. */
export function loadJournalEntries(text: string, file: string, options: LoadOptions = {}): LoadResult {
  const reader = new JournalEntriesReader(file, options)
  reader.push(text)
  return reader.end()
}

type At = (offset: number | undefined) => {line: number; column: number}

function nodeStart(node: unknown): number | undefined {
  const n = node as {range?: [number, number, number] | null} | null | undefined
  return n?.range?.[0] ?? undefined
}

function keyText(pair: Pair): string | undefined {
  return isScalar(pair.key) ? String(pair.key.value) : undefined
}

/**
 * Whether a value is YAML's null: nothing, or a plain `~`, `null`, `Null` or `NULL`. The failsafe
 * schema reads those as text, so they are told by their source; a quoted "null" stays text.
 */
function isNull(node: unknown): boolean {
  if (node === null || node === undefined) return true
  return isScalar(node) && node.type === 'PLAIN' && /^(?:~|null|Null|NULL)?$/.test(scalarText(node))
}

/** The literal text of a scalar: its source for plain scalars, its value for quoted ones. */
function scalarText(node: Scalar): string {
  if (node.type === 'PLAIN' && typeof node.source === 'string') return node.source
  return String(node.value)
}

function suggestion(key: string, allowed: readonly string[]): string {
  const best = closestWord(key, allowed)
  return best ? `; did you mean ${best}?` : `; expected one of ${allowed.join(', ')}`
}

/** The pairs of a mapping by key, reporting unknown, non-text and alias keys. */
function fields(
  map: YAMLMap,
  allowed: readonly string[],
  report: (offset: number | undefined, message: string) => void,
  what: string,
): Map<string, Pair> {
  const out = new Map<string, Pair>()
  const seen = new Set<string>()
  for (const pair of map.items) {
    if (!isPair(pair)) continue
    const key = keyText(pair)
    if (key === undefined) {
      report(nodeStart(pair.key) ?? nodeStart(map), `a ${what} key must be plain text`)
      continue
    }
    if (!allowed.includes(key)) {
      report(nodeStart(pair.key), `unknown key "${key}" in ${what}${suggestion(key, allowed)}`)
      continue
    }
    if (seen.has(key)) {
      report(nodeStart(pair.key), `${key} appears twice in ${what}; write each key once`)
      continue
    }
    seen.add(key)
    if (isAlias(pair.value)) {
      report(nodeStart(pair.value), `${key}: YAML aliases are not accepted; write the value out`)
      continue
    }
    out.set(key, pair)
  }
  return out
}

/** The text of a scalar field ('' for a null), or undefined with a problem when it is a list or mapping. */
function textField(
  pair: Pair | undefined,
  name: string,
  report: (offset: number | undefined, message: string) => void,
): string | undefined {
  if (!pair) return undefined
  if (isNull(pair.value)) return ''
  if (!isScalar(pair.value)) {
    report(nodeStart(pair.value), `${name} must be text, not a ${isSeq(pair.value) ? 'list' : 'mapping'}`)
    return undefined
  }
  // A tagged or typed scalar (`!!timestamp 2026-03-01`, `1.50`) is read as written, not as the
  // value YAML made of it (a Date printed in the local time zone, 1.5).
  return typeof pair.value.value === 'string' ? pair.value.value : scalarText(pair.value)
}

function readEntry(node: Node, index: number, file: string, at: At, problems: Problem[]): LoadedEntry | undefined {
  const before = problems.length
  const start = at(nodeStart(node))
  let description: string | undefined
  const report = (offset: number | undefined, message: string) => {
    problems.push({file, ...(offset === undefined ? start : at(offset)), entry: index, description, message})
  }
  if (isAlias(node) || !isMap(node)) {
    report(nodeStart(node), 'an entry must be a mapping with description, datetime and lines')
    return undefined
  }
  // The description first, so that every message about this entry can name it.
  const descPair = node.items.find((p) => keyText(p) === 'description')
  if (descPair && isScalar(descPair.value) && !isNull(descPair.value))
    description = String(descPair.value.value).trim() || undefined
  const f = fields(node, ENTRY_KEYS, report, 'an entry')

  const descriptionText = textField(f.get('description'), 'description', report)

  let datetime: string | undefined
  const dtPair = f.get('datetime')
  if (!dtPair) {
    report(nodeStart(node), 'datetime is missing; write it in UTC, e.g. datetime: 2026-03-31T12:00:00Z')
  } else {
    const text = textField(dtPair, 'datetime', report)
    if (text !== undefined) {
      const parsed = parseUtcDatetime(text)
      if (parsed.ok) datetime = parsed.value
      else report(nodeStart(dtPair.value) ?? nodeStart(dtPair.key), `datetime ${parsed.reason}`)
    }
  }

  const linesPair = f.get('lines')
  const lines: JournalEntryInput['lines'] = []
  let linesValid = false
  if (!linesPair) {
    report(nodeStart(node), 'lines is missing; an entry needs at least one debit line and one credit line')
  } else if (!isSeq(linesPair.value) || linesPair.value.items.length === 0) {
    report(
      nodeStart(linesPair.value) ?? nodeStart(linesPair.key),
      'lines must be a list with at least one debit line and one credit line',
    )
  } else {
    linesValid = true
    linesPair.value.items.forEach((lineNode, i) => {
      const line = readLine(lineNode as Node, i + 1, report)
      if (line) lines.push(line)
      else linesValid = false
    })
  }

  let totals = {debits: '0', credits: '0'}
  if (linesPair && linesValid) {
    const result = checkBalance(lines.map((l) => ({side: l.debit_credit, amount: l.amount})))
    totals = {debits: result.debits, credits: result.credits}
    for (const p of result.problems) report(nodeStart(linesPair.key), p.message)
  }
  if (problems.length > before || datetime === undefined) return undefined
  const input: JournalEntryInput = {datetime, lines}
  if (descriptionText !== undefined && descriptionText !== '') input.description = descriptionText
  // The service's rules on the entry as it would be sent, the emulator's list too: what the file's
  // own checks above let through (none today) is still never sent.
  const violations = journalEntryViolations(input)
  for (const v of violations) report(nodeStart(node), `${v.path}: ${v.message}`)
  if (violations.length > 0) return undefined
  return {index, ...start, description, input, ...totals}
}

function readLine(
  node: Node,
  n: number,
  report: (offset: number | undefined, message: string) => void,
): JournalEntryInput['lines'][number] | undefined {
  const where = `line ${n}`
  if (isAlias(node) || !isMap(node)) {
    report(nodeStart(node), `${where} must be a mapping with ledger_id and a debit or credit amount`)
    return undefined
  }
  let ok = true
  const fail = (offset: number | undefined, message: string) => {
    ok = false
    report(offset ?? nodeStart(node), `${where}: ${message}`)
  }
  const f = fields(node, LINE_KEYS, fail, 'a line')
  const value = (key: string) => f.get(key)?.value as Node | null | undefined
  const pos = (key: string) => nodeStart(value(key)) ?? nodeStart(f.get(key)?.key)

  const ledgerId = textField(f.get('ledger_id'), 'ledger_id', fail)
  if (!f.has('ledger_id')) fail(nodeStart(node), 'ledger_id is missing')
  else if (ledgerId !== undefined && !/^ldg_\S+$/.test(ledgerId.trim()))
    fail(pos('ledger_id'), `ledger_id "${ledgerId}" is not a ledger id (expected ldg_…)`)

  const description = textField(f.get('description'), 'description', fail)

  let side: Side | undefined
  let amountKey: string | undefined
  const hasDebit = f.has('debit')
  const hasCredit = f.has('credit')
  const hasPair = f.has('debit_credit') || f.has('amount')
  if (hasDebit && hasCredit) {
    fail(
      nodeStart(f.get('credit')?.key),
      'has both a debit and a credit; a line is one or the other (split it into two lines)',
    )
  } else if ((hasDebit || hasCredit) && hasPair) {
    fail(
      nodeStart((f.get('debit_credit') ?? f.get('amount'))?.key),
      `mixes ${hasDebit ? 'debit' : 'credit'}: with debit_credit/amount; use one form`,
    )
  } else if (hasDebit || hasCredit) {
    side = hasDebit ? 'debit' : 'credit'
    amountKey = side
  } else if (hasPair) {
    if (!f.has('debit_credit'))
      fail(nodeStart(f.get('amount')?.key), 'amount is given without debit_credit (debit or credit)')
    else if (!f.has('amount')) fail(nodeStart(f.get('debit_credit')?.key), 'debit_credit is given without amount')
    else {
      const dc = textField(f.get('debit_credit'), 'debit_credit', fail)?.trim()
      if (dc === 'debit' || dc === 'credit') {
        side = dc
        amountKey = 'amount'
      } else if (dc !== undefined) fail(pos('debit_credit'), `debit_credit "${dc}" must be debit or credit`)
    }
  } else if (ok) {
    // (After an unknown key, such as a misspelt debit, that key is the problem to fix.)
    fail(nodeStart(node), 'has no amount; write debit: 120.00 or credit: 120.00')
  }

  let amount: string | undefined
  if (amountKey) {
    // The amount's own source text, never a value the YAML library made from it.
    const node = f.get(amountKey)?.value
    const text = isScalar(node) && !isNull(node) ? scalarText(node) : textField(f.get(amountKey), amountKey, fail)
    if (text !== undefined) {
      const parsed = parseAmount(text)
      if (parsed.ok) amount = amountToSend(text, parsed.value)
      else fail(pos(amountKey), `${amountKey} ${parsed.reason}`)
    }
  }

  let tagValueIds: string[] | undefined
  const tags = f.get('tag_value_ids')
  if (tags) {
    const v = tags.value as Node | null
    if (isNull(v) || (isScalar(v) && String(v.value).trim() === '')) tagValueIds = []
    else if (!isSeq(v)) fail(nodeStart(v), 'tag_value_ids must be a list of tag value ids, e.g. [tv_…]')
    else {
      tagValueIds = []
      const seen = new Set<string>()
      for (const item of v.items) {
        const t = isScalar(item) ? scalarText(item).trim() : undefined
        if (t === undefined) fail(nodeStart(item) ?? nodeStart(v), 'tag_value_ids must hold ids as text')
        else if (!/^tv_\S+$/.test(t)) fail(nodeStart(item), `tag value id "${t}" is not a tag value id (expected tv_…)`)
        else if (seen.has(t)) fail(nodeStart(item), `tag value id "${t}" is listed twice`)
        else {
          seen.add(t)
          tagValueIds.push(t)
        }
      }
    }
  }

  if (!ok || !side || amount === undefined || ledgerId === undefined) return undefined
  const line: JournalEntryInput['lines'][number] = {ledger_id: ledgerId.trim(), debit_credit: side, amount}
  if (description !== undefined && description !== '') line.description = description
  if (tagValueIds && tagValueIds.length > 0) line.tag_value_ids = tagValueIds
  return line
}
