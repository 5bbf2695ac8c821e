/**
 * GitHub Actions workflow commands (`::error file=…,line=…::message`), escaped as the runner
 * unescapes them: the message (data) has `%`, CR and LF encoded; a property also `:` and `,`,
 * which would otherwise end it. The same rules as @actions/core's escapeData and escapeProperty
 * (actions/toolkit, packages/core/src/command.ts).
 */

export function escapeData(text: string): string {
  return text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A')
}

export function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(':', '%3A').replaceAll(',', '%2C')
}

/** Properties in the order given; an undefined one is left out. */
export type CommandProperties = ReadonlyArray<readonly [string, string | number | undefined]>

/** One workflow command line, with its newline. */
export function workflowCommand(name: string, properties: CommandProperties, message: string): string {
  const props = properties
    .filter((p): p is readonly [string, string | number] => p[1] !== undefined && p[1] !== '')
    .map(([key, value]) => `${key}=${escapeProperty(String(value))}`)
    .join(',')
  return `::${name}${props ? ` ${props}` : ''}::${escapeData(message)}\n`
}
