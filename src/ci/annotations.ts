/**
 * Annotations on a GitHub Actions run: errors and warnings as workflow commands on stderr, at
 * most as many of each as GitHub shows for a step, then one notice saying how many more there
 * were and where every one of them is. stdout never carries them.
 */
import {annotationPath, ciEnvironment, type CiEnvironment} from './environment.js'
import {workflowCommand} from './workflow-commands.js'
import {counted} from '../shared/counts.js'

/**
 * GitHub shows at most 10 error and 10 warning annotations per step (GitHub REST docs, "Check
 * runs": "GitHub Actions are limited to 10 warning annotations and 10 error annotations per
 * step"); more are dropped without a word, so bk stops at 10 and counts the rest.
 */
export const ANNOTATIONS_PER_STEP = 10

export type AnnotationLevel = 'error' | 'warning'

/**
 * Error annotations written by every annotator of this process: the command's final error is
 * written by one of its own, and must not be an 11th that GitHub drops.
 */
let errorsWritten = 0

/** Whether this process can still write an error annotation that GitHub will show. */
export function errorAnnotationLeft(): boolean {
  return errorsWritten < ANNOTATIONS_PER_STEP
}

export interface Annotation {
  level: AnnotationLevel
  /** The file as bk names it; made relative to the workspace here. */
  file?: string | undefined
  line?: number | undefined
  /** Only where bk knows the character position (YAML), never for a CSV column name. */
  col?: number | undefined
  message: string
}

export class Annotator {
  private readonly shown: Record<AnnotationLevel, number> = {error: 0, warning: 0}
  private readonly more: Record<AnnotationLevel, number> = {error: 0, warning: 0}

  constructor(
    /** The annotation's title: the command, `bk bills import`. */
    private readonly title: string,
    private readonly env: CiEnvironment,
    private readonly write: (text: string) => void = (text) => void process.stderr.write(text),
  ) {}

  add(a: Annotation): void {
    if (this.shown[a.level] >= ANNOTATIONS_PER_STEP) {
      this.more[a.level]++
      return
    }
    this.shown[a.level]++
    if (a.level === 'error') errorsWritten++
    this.write(this.command(a.level, a))
  }

  /**
   * A notice, at a place in a file or on the run: for what would be one error too many (the
   * command's final error after 10 others).
   */
  notice(a: Omit<Annotation, 'level'>): void {
    this.write(this.command('notice', a))
  }

  private command(level: AnnotationLevel | 'notice', a: Omit<Annotation, 'level'>): string {
    const file = a.file === undefined ? undefined : annotationPath(a.file, this.env.workspace)
    return workflowCommand(
      level,
      [
        ['file', file],
        ['line', file === undefined ? undefined : a.line],
        ['col', file === undefined || a.line === undefined ? undefined : a.col],
        ['title', this.title],
      ],
      a.message,
    )
  }

  /** How many were not shown. */
  get omitted(): number {
    return this.more.error + this.more.warning
  }

  /** The closing notice when some were not shown: how many, and the file that holds them all. */
  finish(where: string | undefined): void {
    if (this.omitted === 0) return
    const counts = (['error', 'warning'] as const)
      .filter((level) => this.more[level] > 0)
      .map((level) => counted(this.more[level], `more ${level}`))
      .join(' and ')
    this.write(
      workflowCommand(
        'notice',
        [['title', this.title]],
        `${counts} not annotated (GitHub shows ${ANNOTATIONS_PER_STEP} of each per step)${where ? `; every one is in ${annotationPath(where, this.env.workspace) ?? where}` : '; the log lists them'}`,
      ),
    )
  }
}

/** An annotator when bk runs in a GitHub Actions step, undefined elsewhere. */
export function githubAnnotator(title: string, env: CiEnvironment = ciEnvironment()): Annotator | undefined {
  return env.github ? new Annotator(title, env) : undefined
}
