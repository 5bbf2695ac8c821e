/**
 * Secrets bk prints on purpose (`bk auth token`) are masked in a GitHub Actions log: the runner
 * replaces every later occurrence of a value registered with `::add-mask::` by ***. The command
 * goes to stderr, so stdout is still the token alone.
 */
import {ciEnvironment, type CiEnvironment} from './environment.js'
import {workflowCommand} from './workflow-commands.js'

export function maskInLog(secret: string, env: CiEnvironment = ciEnvironment()): void {
  if (env.github && secret) process.stderr.write(workflowCommand('add-mask', [], secret))
}
