/**
 * What a run of bk does, as far as start-up cares: whether it only shows help or the version (no
 * command runs, no request is made), and its kind, which names its code-cache file.
 */

/** Whether this run only shows help or the version: no command runs, no request is made. */
export function onlyHelpOrVersion(argv: readonly string[]): boolean {
  return argv.length === 0 || argv[0] === 'help' || argv.some((a) => ['--help', '-h', '--version'].includes(a))
}

/**
 * The first two words (`transactions get`), or `help` for every run that only shows help (they
 * run the same code whatever the command).
 */
export function kindOfRun(argv: readonly string[]): string {
  if (onlyHelpOrVersion(argv)) return 'help'
  const words = argv.filter((a) => !a.startsWith('-')).slice(0, 2)
  return words.length ? words.join(' ') : (argv[0] ?? '')
}

/**
 * The name of a kind's cache file: lowercase letters, digits and '-' as they are, a space as '+',
 * every other character as its code between '_' (so that two kinds never share a name, on a file
 * system that ignores case too): `transactions+get.v8`.
 */
export function cacheFileName(kind: string): string {
  return `${kind.replace(/[^a-z0-9-]/g, (c) => (c === ' ' ? '+' : `_${c.charCodeAt(0).toString(16)}_`))}.v8`
}
