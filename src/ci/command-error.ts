/**
 * A command's final error as a GitHub annotation. bk's errors about a place in a file start with
 * it (`map.yaml:4:3: …`, `bills.csv:12: …`: a map file, a CSV that cannot be read past a row, a
 * YAML syntax error), so the annotation points there; any other error is annotated on the run.
 */
import {existsSync} from 'node:fs'

import {githubAnnotator} from './annotations.js'
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
  if (m && existsSync(m[1]!)) {
    annotator.add({
      level: 'error',
      file: m[1],
      line: Number(m[2]),
      col: m[3] ? Number(m[3]) : undefined,
      message: m[4]!,
    })
  } else annotator.add({level: 'error', message})
}
