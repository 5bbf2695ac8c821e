/**
 * Profiles live in `<configDir>/config.json` (file 0600, folder 0700). Secrets never do: they
 * live in a CredentialStore (the OS keychain, or the opt-in plain file).
 */
// fs.promises, not node:fs/promises: loaded when first used, not with every API command.
import {promises as fs} from 'node:fs'
import {join} from 'node:path'

import {ConfigError, InputError} from '../shared/errors.js'
import {closestWord} from '../cli/closest.js'
import {withFileLock} from '../files/run-lock.js'
import {unreadableBecause} from '../files/file-errors.js'
import {replacePrivateFile} from '../files/private-file.js'
import {shellWord} from '../output/shell-word.js'

export const ENVIRONMENTS = ['sandbox', 'production', 'local'] as const
export type Environment = (typeof ENVIRONMENTS)[number]
export type StorageKind = 'keychain' | 'file'

export interface Profile {
  env: Environment
  baseUrl: string
  clientId: string
  business?: string | undefined
  /** Space-separated scope names the profile's tokens are limited to. */
  scope?: string | undefined
  storage: StorageKind
}

/**
 * The `bk profiles add` command that stores a profile's secret again as the profile is: same
 * flags, same storage (a file profile re-added without --insecure-storage would go to a keychain
 * that may not be there), and business and scope kept.
 */
export function profileAddCommand(name: string, profile: Profile, secretFrom = ''): string {
  const flags = [
    `--env ${profile.env}`,
    `--client-id ${shellWord(profile.clientId)}`,
    `--base-url ${shellWord(profile.baseUrl)}`,
  ]
  if (profile.business) flags.push(`--business ${shellWord(profile.business)}`)
  if (profile.scope) flags.push(`--scope ${shellWord(profile.scope)}`)
  if (profile.storage === 'file') flags.push('--insecure-storage')
  if (secretFrom) flags.push(secretFrom)
  return `bk profiles add ${shellWord(name)} ${flags.join(' ')}`
}

export interface ConfigFile {
  active?: string | undefined
  profiles: Record<string, Profile>
  /** The config folder id the profiles' keychain entries are keyed by (src/auth/keychain-folder.ts). */
  keychainFolder?: string | undefined
}

/** The folder bk keeps its files in; BK_CONFIG_DIR overrides oclif's configDir. */
export function resolveConfigDir(oclifConfigDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.BK_CONFIG_DIR || oclifConfigDir
}

export class ProfileStore {
  readonly file: string

  constructor(readonly dir: string) {
    this.file = join(dir, 'config.json')
  }

  async load(): Promise<ConfigFile> {
    let text: string
    try {
      text = await fs.readFile(this.file, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {profiles: {}}
      throw new ConfigError(`Cannot read ${this.file}: ${unreadableBecause(error)}`, {
        hint: `Make ${this.file} a readable file (or move it aside), or set BK_CONFIG_DIR to another folder.`,
      })
    }
    try {
      const parsed = JSON.parse(text) as ConfigFile
      return {active: parsed.active, profiles: parsed.profiles ?? {}, keychainFolder: parsed.keychainFolder}
    } catch {
      throw new ConfigError(`${this.file} is not valid JSON`, {
        hint: `Fix or remove ${this.file}, then add your profiles again.`,
      })
    }
  }

  /**
   * Reads, changes and writes config.json under its lock, so that concurrent commands (twelve
   * `profiles add` at once in a provisioning script) never lose each other's changes.
   */
  async update<T>(change: (config: ConfigFile) => T | Promise<T>): Promise<T> {
    await fs.mkdir(this.dir, {recursive: true, mode: 0o700})
    return withFileLock(this.file, `The config file ${this.file}`, async () => {
      const config = await this.load()
      const result = await change(config)
      await replacePrivateFile(this.file, JSON.stringify(config, null, 2) + '\n')
      return result
    })
  }
}

export function validateProfileName(name: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(name)) {
    throw new InputError(`Invalid profile name "${name}": use letters, digits, ".", "_" or "-"`)
  }
  return name
}

/**
 * A profile name the user gave (an argument, --profile, BK_PROFILE) that is none of `names`: a
 * slip to point out (exit 2), naming the profiles there are and the closest of them.
 */
export function unknownProfile(name: string, names: readonly string[], origin?: string): InputError {
  const given = `No profile named "${name}"${origin ? ` (from ${origin})` : ''}`
  if (names.length === 0)
    return new InputError(`${given}: there are no profiles yet`, {
      code: 'unknown_profile',
      hint: noActiveProfileHint([]),
      details: {profile: name, profiles: []},
    })
  const guess = closestWord(name, names)
  return new InputError(`${given}; the profiles are ${names.join(', ')}`, {
    code: 'unknown_profile',
    hint: `${guess ? `Did you mean ${guess}?` : 'Give one of them;'} \`bk profiles list\` shows each one.`,
    details: {profile: name, profiles: names},
  })
}

/** The way out when no profile is active: make one of `names` active, or add the first. */
export function noActiveProfileHint(names: readonly string[]): string {
  if (names.length === 0)
    return 'Add a profile with `bk profiles add NAME --env sandbox --client-id ID --base-url URL`.'
  if (names.length === 1)
    return `Run \`bk profiles use ${names[0]}\` to make it the active profile, or pass --profile ${names[0]}.`
  return `Run \`bk profiles use NAME\` with one of ${names.join(', ')} to make it the active profile, or pass --profile NAME.`
}
