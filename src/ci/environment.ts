/**
 * Which CI bk runs in, read from the variables the CI systems set: GitHub Actions sets
 * GITHUB_ACTIONS=true (and GITHUB_WORKSPACE, GITHUB_STEP_SUMMARY); every common CI sets CI.
 */
import {isAbsolute, relative, resolve, sep} from 'node:path'

export interface CiEnvironment {
  /** In a GitHub Actions step: workflow commands on stderr are read by the runner. */
  github: boolean
  /** The checkout folder, which annotation paths are relative to. */
  workspace: string | undefined
  /** The step's markdown summary file. */
  stepSummary: string | undefined
  /** Any CI (the CI variable set and not "false" or "0"). */
  ci: boolean
}

export function ciEnvironment(env: NodeJS.ProcessEnv = process.env): CiEnvironment {
  const github = env.GITHUB_ACTIONS === 'true'
  return {
    github,
    workspace: github ? env.GITHUB_WORKSPACE || undefined : undefined,
    stepSummary: github ? env.GITHUB_STEP_SUMMARY || undefined : undefined,
    ci: github || Boolean(env.CI && env.CI !== 'false' && env.CI !== '0'),
  }
}

/**
 * A file as an annotation names it: relative to the workspace (with `/`) when inside it, as
 * given otherwise; undefined for stdin, which no annotation can point at.
 */
export function annotationPath(file: string, workspace: string | undefined): string | undefined {
  if (file === '-' || file === 'stdin' || file === '<stdin>') return undefined
  if (!workspace) return file
  const path = relative(resolve(workspace), resolve(file))
  if (path === '' || path.startsWith('..') || isAbsolute(path)) return file
  return path.split(sep).join('/')
}
