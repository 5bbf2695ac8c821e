/**
 * What `bk journal-entries validate` and `create` add for CI: each problem (file, line and
 * column) and each entry that failed as a GitHub annotation, the counts in the step summary, and
 * a JUnit report with one suite per file and one test case per entry.
 */
import type {Validation} from '../journal-entries/files.js'
import {entryName, formatProblem, type Problem} from '../journal-entries/load.js'
import {counted} from '../shared/counts.js'
import type {Outcome, PostResult} from '../journal-entries/post.js'
import {githubAnnotator, type Annotator} from './annotations.js'
import {ciEnvironment, type CiEnvironment} from './environment.js'
import {checkJunitPath, writeJunit, type JunitCase, type JunitSuite} from './junit.js'
import {appendStepSummary, code, countsTable, inline, reasonsList, runState} from './step-summary.js'

type Kind = 'created' | 'skipped' | 'failed' | 'unconfirmed'

export class JournalEntriesReport {
  private readonly annotator: Annotator | undefined

  private constructor(
    private readonly title: string,
    private readonly env: CiEnvironment,
    private readonly junit: string | undefined,
  ) {
    this.annotator = githubAnnotator(title, env)
  }

  /** The report of this run, or undefined when there is nothing to report to (not CI, no --junit). */
  static async open(
    command: 'validate' | 'create',
    junit: string | undefined,
    env: CiEnvironment = ciEnvironment(),
  ): Promise<JournalEntriesReport | undefined> {
    if (!env.github && !junit) return undefined
    if (junit) await checkJunitPath(junit)
    return new JournalEntriesReport(`bk journal-entries ${command}`, env, junit)
  }

  /** A validation with problems: nothing is sent. */
  problems(v: Validation): void {
    for (const p of v.problems)
      this.annotator?.add({level: 'error', file: p.file, line: p.line, col: p.column, message: problemMessage(p)})
    this.annotator?.finish(undefined)
    const total = v.problems.length + v.omittedProblems
    this.writeJunit(
      v,
      (file, index) => {
        const own = v.problems.filter((p) => p.file === file && p.entry === index)
        if (own.length === 0) return undefined
        return {
          kind: 'failure',
          type: 'invalid',
          message: problemMessage(own[0]!),
          text: own.map(formatProblem).join('\n'),
        }
      },
      // Problems of no entry (YAML syntax, the file's shape) are a case of their own.
      (file) => v.problems.filter((p) => p.file === file && p.entry === undefined),
    )
    this.summary(
      `${counted(total, 'problem')}; nothing was sent`,
      v,
      [['problems', total]],
      v.problems.map(formatProblem),
      total,
    )
  }

  /** Every entry valid (validate, or create --dry-run). */
  valid(v: Validation): void {
    this.writeJunit(
      v,
      () => undefined,
      () => [],
    )
    this.summary('all valid', v, [['problems', 0]], [], 0)
  }

  /** Entries posted: created, created before, failed, unconfirmed, or not sent after a stop. */
  posted(v: Validation, result: PostResult): void {
    const where = new Map<string, {kind: Kind; outcome: Outcome}>()
    for (const kind of ['created', 'skipped', 'failed', 'unconfirmed'] as const)
      for (const o of result[kind]) where.set(`${o.file}\u0000${o.index}`, {kind, outcome: o})
    const place = new Map(v.results.flatMap((r) => r.entries.map((e) => [`${r.file}\u0000${e.index}`, e] as const)))
    for (const kind of ['failed', 'unconfirmed'] as const)
      for (const o of result[kind]) {
        const at = place.get(`${o.file}\u0000${o.index}`)
        this.annotator?.add({
          level: kind === 'failed' ? 'error' : 'warning',
          file: o.file,
          line: at?.line,
          col: at?.column,
          message: `${entryName(o.index, o.description)}: ${o.error ?? 'outcome unknown'}${kind === 'unconfirmed' ? ' (never sent again by bk: check whether it exists)' : ''}`,
        })
      }
    this.annotator?.finish(undefined)
    this.writeJunit(
      v,
      (file, index) => {
        const found = where.get(`${file}\u0000${index}`)
        if (!found)
          return {
            kind: 'skipped',
            message: `not sent: ${result.stoppedBy?.message ?? (result.interrupted ? 'interrupted' : 'the run stopped')}`,
          }
        const {kind, outcome} = found
        const at = place.get(`${file}\u0000${index}`)
        const text = `${file}:${at?.line ?? '?'}:${at?.column ?? '?'}: ${outcome.error ?? ''}`
        if (kind === 'failed') return {kind: 'failure', type: 'refused', message: outcome.error ?? 'refused', text}
        if (kind === 'unconfirmed')
          return {kind: 'error', type: 'unconfirmed', message: outcome.error ?? 'outcome unknown', text}
        return undefined
      },
      () => [],
      (file, index) => where.get(`${file}\u0000${index}`)?.outcome.id,
    )
    const failures = [...result.failed, ...result.unconfirmed]
    const state = runState({
      interrupted: result.interrupted === true,
      stopped: result.stoppedBy !== undefined,
      created: result.created.length + result.skipped.length,
      failed: result.failed.length,
      unconfirmed: result.unconfirmed.length,
    })
    this.summary(
      result.stoppedBy ? `${state}: ${result.stoppedBy.message}` : state,
      v,
      [
        ['created', result.created.length],
        ['created before', result.skipped.length],
        ['failed', result.failed.length],
        ['unconfirmed', result.unconfirmed.length],
        ['not sent', result.notSent.length],
      ],
      failures.map((o) => `${o.file} ${entryName(o.index, o.description)}: ${o.error ?? 'outcome unknown'}`),
      failures.length,
    )
  }

  private writeJunit(
    v: Validation,
    outcomeOf: (file: string, index: number) => JunitCase['outcome'],
    fileProblems: (file: string) => Problem[],
    output: (file: string, index: number) => string | undefined = () => undefined,
  ): void {
    if (!this.junit) return
    const suites: JunitSuite[] = v.results.map((r) => {
      // Valid entries have theirs; an invalid entry's is in its problems (validate keeps no entries).
      const descriptions = new Map<number, string | undefined>(r.entries.map((e) => [e.index, e.description]))
      for (const p of v.problems)
        if (p.file === r.file && p.entry !== undefined && p.description) descriptions.set(p.entry, p.description)
      const cases: JunitCase[] = []
      const own = fileProblems(r.file)
      if (own.length > 0)
        cases.push({
          name: 'the file',
          classname: r.file,
          outcome: {
            kind: 'failure',
            type: 'invalid',
            message: problemMessage(own[0]!),
            text: own.map(formatProblem).join('\n'),
          },
        })
      for (let index = 1; index <= r.count; index++)
        cases.push({
          name: entryName(index, descriptions.get(index)),
          classname: r.file,
          outcome: outcomeOf(r.file, index),
          output: output(r.file, index),
        })
      return {name: r.file, cases}
    })
    writeJunit(this.junit, this.title, suites)
  }

  private summary(
    state: string,
    v: Validation,
    counts: Array<[string, number]>,
    reasons: string[],
    total: number,
  ): void {
    const entries = v.results.reduce((n, r) => n + r.count, 0)
    appendStepSummary(
      [
        `### ${this.title}: ${inline(state)}`,
        '',
        countsTable([['files', v.results.length], ['entries read', entries], ...counts]),
        '',
        ...(reasons.length > 0 ? ['First reasons:', '', reasonsList(reasons, total), ''] : []),
        ...v.results.map((r) => `- ${code(r.file)}: ${r.count} entr${r.count === 1 ? 'y' : 'ies'}`),
        ...(this.junit ? [`- JUnit report: ${code(this.junit)}`] : []),
        '',
      ].join('\n'),
      this.env,
    )
  }
}

/** A problem's text without its `file:line:column: ` prefix, which an annotation shows on its own. */
function problemMessage(p: Problem): string {
  return formatProblem(p).slice(`${p.file}:${p.line}:${p.column}: `.length)
}
