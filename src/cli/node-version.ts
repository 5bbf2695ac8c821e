/**
 * The warning oclif's main module gives when Node is older than package.json's engines allow.
 * Commands import oclif's parts (@oclif/core/command, /flags…) instead of that module, which
 * loads semver and much else for this one check, so bk makes it: same text, same opt-out.
 */
export function warnIfNodeUnsupported(engines: string | undefined, env: NodeJS.ProcessEnv = process.env): void {
  if (!engines || /^(1|true|yes|y)$/i.test(env.OCLIF_DISABLE_ENGINE_WARNING ?? '')) return
  // bk's range is a lower bound (">=20.18"); any other form is left to npm, which checks it at install.
  const match = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(engines.trim())
  if (!match) return
  const wanted = match.slice(1).map((n) => Number(n ?? 0))
  const running = process.versions.node.split('.').map(Number)
  for (let i = 0; i < 3; i++) {
    if (running[i]! > wanted[i]!) return
    if (running[i]! < wanted[i]!) {
      process.emitWarning(
        `Node version must be ${engines} to use this CLI. Current node version: ${process.versions.node}`,
      )
      return
    }
  }
}
