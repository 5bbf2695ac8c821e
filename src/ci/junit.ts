/**
 * JUnit XML reports, the test-result format GitLab, Jenkins, Azure Pipelines and CircleCI show:
 * testsuites > testsuite (one per input file) > testcase (one per bill, entry or notification),
 * with a failure (refused, invalid), an error (outcome unknown) or skipped. Only what the Jenkins
 * schema (junit-10.xsd) allows: a test case has no file or line attribute, so both go into its
 * classname, name and failure text.
 */
import {closeSync, openSync, readSync, renameSync, rmSync, writeSync} from 'node:fs'

import {redactKnown} from '../api/redact.js'
import {checkWritable, openPrivateFile} from '../output/sink.js'

export interface JunitOutcome {
  /** `failure`: the item was refused or is invalid; `error`: its outcome is unknown. */
  kind: 'failure' | 'error' | 'skipped'
  /** One line: the reason. */
  message: string
  /** A short word for the kind of problem (`invalid`, `refused`, `unconfirmed`). */
  type?: string | undefined
  /** Longer text: every reason, with the file and row. */
  text?: string | undefined
}

export interface JunitCase {
  name: string
  classname: string
  outcome?: JunitOutcome | undefined
  /** What the item became (its id), for people reading the report. */
  output?: string | undefined
}

export interface JunitSuite {
  name: string
  cases: JunitCase[]
  timeMs?: number | undefined
}

/** Refuses an unusable --junit path before anything is sent. */
export async function checkJunitPath(path: string): Promise<void> {
  await checkWritable('--junit', path)
}

/** What XML 1.0 cannot hold: C0 controls but tab and line breaks, U+FFFE, U+FFFF, lone surrogates. */
const NOT_XML =
  // eslint-disable-next-line no-control-regex -- removing what XML 1.0 cannot hold is the point
  /[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/** Text as XML character data or an attribute value: escaped, and what XML cannot hold shown as \uXXXX. */
export function xmlText(text: string): string {
  return text
    .replace(NOT_XML, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;')
}

/** An attribute: newlines kept as character references, so that parsers do not fold them. */
function attr(name: string, value: string | number): string {
  return ` ${name}="${xmlText(String(value)).replaceAll('\n', '&#10;').replaceAll('\r', '&#13;').replaceAll('\t', '&#9;')}"`
}

const seconds = (ms: number | undefined) => ((ms ?? 0) / 1000).toFixed(3)

function count(cases: readonly JunitCase[], kind: JunitOutcome['kind']): number {
  return cases.filter((c) => c.outcome?.kind === kind).length
}

function caseXml(c: JunitCase): string {
  const open = `    <testcase${attr('name', c.name)}${attr('classname', c.classname)}${attr('time', '0')}`
  const parts: string[] = []
  if (c.outcome) {
    const o = c.outcome
    const body = o.text ? xmlText(o.text) : ''
    parts.push(`      <${o.kind}${attr('message', o.message)}${o.type ? attr('type', o.type) : ''}>${body}</${o.kind}>`)
  }
  if (c.output) parts.push(`      <system-out>${xmlText(c.output)}</system-out>`)
  return parts.length === 0 ? `${open}/>` : `${open}>\n${parts.join('\n')}\n    </testcase>`
}

interface Counts {
  tests: number
  failure: number
  error: number
  skipped: number
}

const countsOf = (cases: readonly JunitCase[]): Counts => ({
  tests: cases.length,
  failure: count(cases, 'failure'),
  error: count(cases, 'error'),
  skipped: count(cases, 'skipped'),
})

function suitesOpen(name: string, c: Counts, timeMs: number | undefined): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites${attr('name', name)}${attr('tests', c.tests)}${attr('failures', c.failure)}${attr('errors', c.error)}${attr('time', seconds(timeMs))}>\n`
}

function suiteOpen(name: string, c: Counts, timeMs: number | undefined, timestamp: Date): string {
  return `  <testsuite${attr('name', name)}${attr('tests', c.tests)}${attr('failures', c.failure)}${attr('errors', c.error)}${attr('skipped', c.skipped)}${attr('time', seconds(timeMs))}${attr('timestamp', timestamp.toISOString().slice(0, 19))}>\n`
}

/** The whole report as text. */
export function junitXml(name: string, suites: readonly JunitSuite[], timestamp = new Date()): string {
  let out = suitesOpen(
    name,
    countsOf(suites.flatMap((s) => s.cases)),
    suites.reduce((n, s) => n + (s.timeMs ?? 0), 0),
  )
  for (const s of suites) {
    out += suiteOpen(s.name, countsOf(s.cases), s.timeMs, timestamp)
    for (const c of s.cases) out += caseXml(c) + '\n'
    out += '  </testsuite>\n'
  }
  return out + '</testsuites>\n'
}

/**
 * A one-suite report written as items settle (a bill import of a million rows): the cases go to
 * FILE.cases as they come, and finish() writes FILE with the counts first, then the cases.
 * Memory stays flat whatever the number of cases.
 */
export class JunitStream {
  private readonly counts: Counts = {tests: 0, failure: 0, error: 0, skipped: 0}
  private readonly casesPath: string
  private readonly fd: number
  private buffer = ''

  constructor(
    private readonly path: string,
    private readonly name: string,
    private readonly suite: string,
  ) {
    this.casesPath = `${path}.cases`
    this.fd = openPrivateFile('--junit', this.casesPath, 'truncate')
  }

  add(c: JunitCase): void {
    this.counts.tests++
    if (c.outcome) this.counts[c.outcome.kind]++
    this.buffer += caseXml(c) + '\n'
    if (this.buffer.length >= 64 * 1024) this.flush()
  }

  private flush(): void {
    if (this.buffer) writeSync(this.fd, redactKnown(this.buffer))
    this.buffer = ''
  }

  /** Writes FILE whole (FILE.partial renamed), then removes FILE.cases. */
  finish(timeMs: number): void {
    this.flush()
    closeSync(this.fd)
    const partial = `${this.path}.partial`
    const out = openPrivateFile('--junit', partial, 'truncate')
    try {
      writeSync(out, suitesOpen(this.name, this.counts, timeMs))
      writeSync(out, redactKnown(suiteOpen(this.suite, this.counts, timeMs, new Date())))
      const input = openSync(this.casesPath, 'r')
      const chunk = Buffer.allocUnsafe(256 * 1024)
      for (let n; (n = readSync(input, chunk, 0, chunk.length, null)) > 0;) writeSync(out, chunk, 0, n)
      closeSync(input)
      writeSync(out, '  </testsuite>\n</testsuites>\n')
    } catch (error) {
      closeSync(out)
      rmSync(partial, {force: true})
      throw error
    } finally {
      rmSync(this.casesPath, {force: true})
    }
    closeSync(out)
    renameSync(partial, this.path)
  }

  /** Gives up (the run failed before any outcome): no report, no leftovers. */
  discard(): void {
    closeSync(this.fd)
    rmSync(this.casesPath, {force: true})
  }
}

/**
 * Writes the report whole or not at all (FILE.partial renamed to FILE), 0600 like every file bk
 * writes that holds business data, cleaned of known secrets.
 */
export function writeJunit(path: string, name: string, suites: readonly JunitSuite[]): void {
  const partial = `${path}.partial`
  const fd = openPrivateFile('--junit', partial, 'truncate')
  try {
    writeSync(fd, redactKnown(junitXml(name, suites)))
  } catch (error) {
    closeSync(fd)
    rmSync(partial, {force: true})
    throw error
  }
  closeSync(fd)
  renameSync(partial, path)
}
