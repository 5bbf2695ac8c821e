/**
 * `bk --version` answered without loading the bundle: reading and starting it is most of the
 * run's time. oclif shows the version whenever the first argument is --version (bk adds no other
 * version flags, so `-v` is not one), after running the init hooks (bk has none). With DEBUG set,
 * oclif also logs its start: that goes through the bundle.
 */
import {existsSync, readFileSync} from 'node:fs'
import {release} from 'node:os'
import {join} from 'node:path'

/** The line oclif prints for this run, or undefined when oclif must answer. */
export function versionLine(root: string, argv: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  if (argv[0] !== '--version' || env.DEBUG) return undefined
  const {name, version} = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    name: string
    version?: string
  }
  const arch = process.arch === 'ia32' ? 'x86' : process.arch
  return `${name}/${version || '0.0.0'} ${oclifPlatform()}-${arch} node-${process.version}\n`
}

/**
 * The platform as oclif names it: 'wsl' under the Windows Subsystem for Linux outside a container
 * (what its wsl-utils and is-wsl find, read the same way), else Node's name for it.
 */
export function oclifPlatform(): string {
  if (process.platform !== 'linux') return process.platform
  const read = (file: string): string => {
    try {
      return readFileSync(file, 'utf8')
    } catch {
      return ''
    }
  }
  const insideContainer = (): boolean =>
    existsSync('/run/.containerenv') || existsSync('/.dockerenv') || read('/proc/self/cgroup').includes('docker')
  const wsl =
    release().toLowerCase().includes('microsoft') ||
    read('/proc/version').toLowerCase().includes('microsoft') ||
    existsSync('/proc/sys/fs/binfmt_misc/WSLInterop') ||
    existsSync('/run/WSL')
  return wsl && !insideContainer() ? 'wsl' : 'linux'
}
