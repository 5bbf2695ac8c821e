/**
 * The starter map `bk bills maps init` writes when no preset reads a file: every column with its
 * proposed target or `~` (dropped), the formats seen, the credit markers and the lookups, each
 * with a comment saying why. Each decision left to the user is a `# DECIDE:` comment above a
 * value the map schema refuses (`"DECIDE: …"`), so the import refuses the map until it is made;
 * once each is resolved the map is valid as written. Strings are written as JSON strings, which
 * YAML reads as double-quoted scalars.
 */
import {decideText, type MapInitFindings} from './map-init.js'
import {counted} from '../shared/counts.js'
import {shellWord} from '../output/shell-word.js'

const q = (text: string) => JSON.stringify(text)
const list = (items: readonly string[]) => `[${items.map(q).join(', ')}]`

export function starterMap(f: MapInitFindings, names: readonly string[]): string {
  const out: string[] = []
  const file = f.file
  out.push(
    `# A starter map for ${file}, written by bk bills maps init from its first ${counted(f.sampledRows, 'row')}${f.wholeFile ? ' (the whole file)' : ''}.`,
    '# Check each line against the file. Resolve every DECIDE: the import refuses this map until',
    '# each is resolved. Then write the lookups and try it without sending anything:',
    `#   bk bills lookups init ${shellWord(file)} --map THIS.yaml`,
    `#   bk bills import ${shellWord(file)} --map THIS.yaml --dry-run --show 3`,
  )
  if (f.nearest) {
    const n = f.nearest
    out.push(
      `# The nearest preset is ${n.name} (${counted(n.shared, 'header')} in common); bk bills maps show ${n.name} prints it.`,
    )
    if (n.unknown.length > 0) out.push(`#   not in ${n.name}: ${n.unknown.join(', ')}`)
    if (n.absent.length > 0) out.push(`#   in ${n.name}, not in this file: ${n.absent.join(', ')}`)
  }
  if (f.delimiter !== ',') out.push(`delimiter: ${f.delimiter === '\t' ? 'tab' : q(f.delimiter)}`)
  if (f.recordTypes && f.encoding === 'windows-1252')
    out.push("encoding: windows-1252  # IIF as QuickBooks Desktop writes it, in Windows' code page")
  // A file with a byte order mark (UTF-16 included) is read by its mark: no encoding: for it.
  else if (f.encoding !== 'utf-8' && f.encoding !== 'utf-16le') out.push(`encoding: ${f.encoding}`)
  quoteLines(out, f)
  // A repeated header cannot be named in columns: (a key given twice is refused): every column by position.
  const byPosition = f.repeated.length > 0
  if (byPosition) {
    const repeated = f.repeated.map((r) => `${q(r.header)} (columns ${r.columns.join(', ')})`).join(', ')
    out.push(`header: false  # the header row repeats ${repeated}: columns are named by position`)
    out.push(`skip_lines: ${f.skipLines + 1}  # the header row${f.skipLines > 0 ? ' and the lines before it' : ''}`)
  } else if (f.skipLines > 0) out.push(`skip_lines: ${f.skipLines}  # the lines before the header row`)
  if (!f.header) out.push('header: false  # the first row holds data: columns are named by position')
  formatLines(out, 'date_format', f.dateFormat, 'dates')
  formatLines(out, 'number_format', f.numberFormat, 'numbers')
  if (f.currencySymbols) out.push('currency_symbols: true  # amounts are written with a currency symbol or code')
  if (f.negative.some((n) => n !== '-1')) out.push(`negative: ${list(['-1', ...f.negative.filter((n) => n !== '-1')])}`)
  if (f.amountsDecide) {
    out.push(
      '# DECIDE: the file has amounts before and after tax, and a bill line has one amount: send',
      '# each line without tax (net) or with it (gross). Keep one word.',
      'amounts: "DECIDE: net or gross"',
    )
  }
  out.push('columns:')
  const key = (column: string, i: number) => (byPosition ? String(i + 1) : q(column))
  const width = Math.max(...names.map((n, i) => key(n, i).length))
  f.columns.forEach((c, i) => {
    const example = c.examples.length > 0 ? `; e.g. ${c.examples.map(q).join(', ')}` : ''
    const header = byPosition ? `${q(c.column)}: ` : ''
    out.push(
      `  ${`${key(c.column, i)}:`.padEnd(width + 1)} ${(c.target ?? '~').padEnd(16)} # ${header}${c.why}${example}`,
    )
  })
  const keyed = f.lookups.filter((l) => l.columns.length > 1)
  if (keyed.length > 0) {
    out.push('lookups:  # looked up by several columns: the lookup file holds these columns, then the id')
    const position = (column: string) => String(f.columns.findIndex((c) => c.column === column) + 1)
    for (const l of keyed) out.push(`  ${l.field}: {key: ${list(byPosition ? l.columns.map(position) : l.columns)}}`)
  }
  if (f.fillDown.length > 0)
    out.push(`fill_down: ${list(f.fillDown)}  # blank on a bill's further rows: taken from the row above`)
  creditLines(out, f)
  const missing = f.decide.filter((d) => d.startsWith('no column'))
  for (const d of missing) out.push(`# DECIDE: ${d}`)
  if (f.lookups.length > 0) {
    out.push(
      `# Lookups this map needs (bk ids for the names and codes of the file): bk bills lookups init writes`,
      '# each file with every value and an empty id column for you to fill; then pass',
    )
    for (const l of f.lookups)
      out.push(
        `#   --lookup ${l.field}=${l.file}  (${l.columns.map(q).join(' + ')}: ${counted(l.distinct, 'value')} in the sample)`,
      )
  }
  for (const n of f.notes) out.push(`# Note: ${n}`)
  return out.join('\n') + '\n'
}

function formatLines(out: string[], key: string, f: MapInitFindings['dateFormat'], what: string): void {
  if (!f) return
  if (f.value !== null) {
    if (key === 'number_format' && f.value === '1234.56') return
    out.push(`${key}: ${q(f.value)}  # ${what} seen: ${f.examples.join(', ')}`)
    return
  }
  out.push(`# DECIDE: ${key}: ${decideText(f)}. Keep the one your file is written in.`)
  out.push(`${key}: ${q(`DECIDE: ${f.candidates.join(' or ') || 'the format'}`)}`)
}

function creditLines(out: string[], f: MapInitFindings): void {
  const c = f.credit
  if (!c) return
  const marked = c.values.length > 0 && c.bills.length > 0
  if (!marked && !c.negativeTotal) return
  out.push('credit:  # credit notes are set aside into the rejects file with the reason (credits: skip)')
  if (marked) {
    out.push(`  values: ${list(c.values)}  # ${q(c.column ?? '')}: credit notes`)
    out.push(`  bills: ${list(c.bills)}  # and the bill types: any other value is refused`)
  }
  if (c.negativeTotal)
    out.push('  negative_total: true  # negative amounts were seen: a bill totalling below zero is a credit')
  out.push('credits: skip')
}

/**
 * `quotes: false` where the import needs it: an IIF file (the format quotes nothing, as the
 * QuickBooks Desktop preset reads it), or a sample that reads only with a `"` as text. A sample
 * with no `"` at all keeps the default: see docs/bills.md, "A first map".
 */
function quoteLines(out: string[], f: MapInitFindings): void {
  if (!f.quotes)
    out.push(
      `quotes: false  # ${f.recordTypes ? 'IIF quotes nothing' : 'a " inside a cell: the file quotes nothing'}, so a " is text`,
    )
  const t = f.recordTypes
  if (!t) return
  out.push(
    '# IIF (QuickBooks Desktop): each record type names its columns in its own header row (!TRNS,',
    '# !SPL); a bill is a TRNS row, one SPL row per line, then ENDTRNS. Columns are TYPE.COLUMN.',
    'record_types:',
    `  bill: ${t.bill}`,
    `  line: ${t.line}`,
  )
  if (t.end) out.push(`  end: ${t.end}`)
  if (t.skip.length > 0) out.push(`  skip: [${t.skip.join(', ')}]  # list records, dropped without a word`)
}
