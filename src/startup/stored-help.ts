/**
 * `bk COMMAND --help` (or `bk help COMMAND`) read by a program, answered with the text oclif
 * printed for it at build time (scripts/help-texts.js, dist/help.json), without loading the
 * bundle. That text is what oclif prints whenever stdout is not a terminal and nothing asks for
 * colour (FORCE_COLOR) or another width (OCLIF_COLUMNS), on the kind of platform it was rendered
 * on. A terminal gets oclif's rendering, for its width and colours.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

export interface Output {
  isTTY?: boolean | undefined
}

/** The build's text for this run's help request, when it is exactly what oclif would print. */
export function storedHelp(
  root: string,
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  stdout: Output,
): string | undefined {
  const words = argv[0] === 'help' ? argv.slice(1) : argv.at(-1) === '--help' ? argv.slice(0, -1) : []
  if (!words.length || words.some((w) => w.startsWith('-'))) return undefined
  if (env.FORCE_COLOR !== undefined || env.OCLIF_COLUMNS || env.DEBUG || stdout.isTTY) return undefined
  try {
    const {platform, texts} = JSON.parse(readFileSync(join(root, 'dist', 'help.json'), 'utf8')) as {
      platform: string
      texts: Record<string, string>
    }
    const id = words.join(' ')
    if ((platform === 'win32') !== (process.platform === 'win32') || !Object.hasOwn(texts, id)) return undefined
    return texts[id]
  } catch {
    // None built (a development build): oclif renders it.
    return undefined
  }
}
