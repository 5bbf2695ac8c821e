/**
 * A command's final error as a GitHub annotation. bk's errors about a place in a file start with
 * it (`map.yaml:4:3: …`, `bills.csv:12: …`: a map file, a CSV that cannot be read past a row, a
 * YAML syntax error), so the annotation points there; any other error is annotated on the run.
 * After 10 error annotations (the most GitHub shows for a step) it is a notice, which GitHub
 * still shows: the errors before it are its problems, and it says how many there were.
 */
import {existsSync} from 'node:fs'

import {errorAnnotationLeft, githubAnnotator, type Annotation} from './annotations.js'
import {ciEnvironment, type CiEnvironment} from './environment.js'

const PLACE = /^(.+?):(\d+)(?::(\d+))?: ([\s\S]*)$/

export function annotateCommandError(
  commandId: string | undefined,
  message: string,
  env: CiEnvironment = ciEnvironment(),
): void {
  const annotator = githubAnnotator(`bk ${(commandId ?? '').replaceAll(':', ' ')}`.trim(), env)
  if (!annotator) return
  const m = PLACE.exec(message)
  const annotation: Omit<Annotation, 'level'> =
    m && existsSync(m[1]!)
      ? {file: m[1], line: Number(m[2]), col: m[3] ? Number(m[3]) : undefined, message: m[4]!}
      : {message}
  if (errorAnnotationLeft()) annotator.add({level: 'error', ...annotation})
  else annotator.notice(annotation)
}
