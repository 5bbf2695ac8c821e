/**
 * One interface for where secrets live, two implementations: the OS keychain (service `bk`,
 * every call under a short timeout so a locked or absent Secret Service never hangs bk) and
 * the opt-in plain file `credentials.json` (0600) for machines without one.
 *
 * On Linux the keychain library falls back, when no Secret Service answers on D-Bus, to the
 * kernel's keyring, whose keys last only as long as the login session: a secret stored there
 * is lost at the next reboot, and a failed write can leave one behind. So before its first
 * keychain call on Linux, bk asks the Secret Service itself, read-only, and refuses as "no
 * keychain" when it does not answer: the library is never given the chance to fall back.
 */
// fs.promises, not node:fs/promises: loaded when first used, not with every API command.
import {promises as fs} from 'node:fs'
import {join} from 'node:path'

import {ConfigError} from '../shared/errors.js'
import {timeLimitFromEnv} from '../shared/time-limit-variable.js'
import {withFileLock} from '../files/run-lock.js'
import {keychainFolder} from './keychain-folder.js'
import {replacePrivateFile} from '../files/private-file.js'
import type {StorageKind} from './profiles.js'
import {unreadableBecause} from '../files/file-errors.js'

export interface CredentialStore {
  readonly kind: StorageKind
  get(key: string): Promise<string | undefined>
  set(key: string, value: string): Promise<void>
  delete(key: string): Promise<void>
}

export const KEYCHAIN_SERVICE = 'bk'
const PROBE_KEY = 'bk-probe'
/** A service name no item has: searching for it asks the Secret Service without touching a secret. */
const SECRET_SERVICE_PROBE = 'bk-secret-service-probe'

/** The persistent store the OS keychain is on this platform. */
export function keychainName(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return 'macOS Keychain'
  if (platform === 'win32') return 'Windows Credential Manager'
  return 'Secret Service (D-Bus)'
}

export class KeychainUnavailableError extends ConfigError {
  constructor(reason: string) {
    super(`No OS keychain is reachable (${reason})`, {
      code: 'keychain_unavailable',
      hint:
        'Either set BK_CLIENT_ID and BK_CLIENT_SECRET (or BK_ACCESS_TOKEN) in the environment and use no profile, ' +
        'or store the secret in a plain file with `bk profiles add … --insecure-storage`.',
    })
  }
}

export function keychainTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  return timeLimitFromEnv(env, {
    name: 'BK_KEYCHAIN_TIMEOUT_MS',
    unit: 'milliseconds',
    defaultValue: 5000,
    example: 20_000,
  })
}

/** One check per process: the answer does not change while a command runs. */
let secretServiceCheck: Promise<void> | undefined

/**
 * On Linux, resolves when the Secret Service answers and throws KeychainUnavailableError when
 * it does not; elsewhere the platform's keychain has no volatile fallback and this resolves.
 */
export function requireSecretService(timeoutMs = keychainTimeoutMs()): Promise<void> {
  if (process.platform !== 'linux') return Promise.resolve()
  secretServiceCheck ??= (async () => {
    const {findCredentialsAsync} = await import('@napi-rs/keyring')
    const controller = new AbortController()
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort()
        reject(new Error(`the Secret Service did not answer within ${timeoutMs} ms; is the keyring locked?`))
      }, timeoutMs)
      timer.unref()
    })
    try {
      // Goes to the Secret Service only, never to the kernel keyring (unlike an entry's calls).
      await Promise.race([findCredentialsAsync(SECRET_SERVICE_PROBE, undefined, controller.signal), timeout])
    } catch (error) {
      throw new KeychainUnavailableError(
        `no Secret Service answers on D-Bus: ${firstLine(error)}; bk does not keep secrets in the kernel keyring, which forgets them at logout and reboot`,
      )
    } finally {
      clearTimeout(timer)
    }
  })()
  return secretServiceCheck
}

/**
 * The OS keychain, one entry per key under service `bk`, each key prefixed with the config
 * folder's id (src/auth/keychain-folder.ts) so that folders never share an entry.
 */
export class KeychainStore implements CredentialStore {
  readonly kind = 'keychain'
  private folder: Promise<string> | undefined

  constructor(
    private readonly configDir: string,
    private readonly timeoutMs = keychainTimeoutMs(),
  ) {}

  async get(key: string): Promise<string | undefined> {
    return this.rawGet(await this.keyed(key))
  }

  async set(key: string, value: string): Promise<void> {
    await this.rawSet(await this.keyed(key), value)
  }

  async delete(key: string): Promise<void> {
    await this.rawDelete(await this.keyed(key))
  }

  /**
   * Throws KeychainUnavailableError when no keychain can be used. Only a write tells: with no
   * Secret Service, a read answers "no such entry" instead of failing.
   */
  async probe(): Promise<void> {
    await probeKeychain(this.timeoutMs)
  }

  /** `<folder id>/<key>`; the first call moves older entries to this folder's keys. */
  private async keyed(key: string): Promise<string> {
    // Before the config file's lock is taken: with no keychain there is nothing to move.
    await requireSecretService(this.timeoutMs)
    this.folder ??= keychainFolder(this.configDir, {
      get: (k) => this.rawGet(k),
      set: (k, v) => this.rawSet(k, v),
      delete: (k) => this.rawDelete(k),
    })
    return `${await this.folder}/${key}`
  }

  private rawGet(key: string): Promise<string | undefined> {
    return keychainCall(key, this.timeoutMs, async (entry, signal) => {
      try {
        return (await entry.getPassword(signal)) ?? undefined
      } catch (error) {
        if (isNoEntry(error)) return undefined
        throw error
      }
    })
  }

  private rawSet(key: string, value: string): Promise<void> {
    return keychainCall(key, this.timeoutMs, (entry, signal) => entry.setPassword(value, signal))
  }

  private rawDelete(key: string): Promise<void> {
    return keychainCall(key, this.timeoutMs, async (entry, signal) => {
      try {
        await entry.deleteCredential(signal)
      } catch (error) {
        if (!isNoEntry(error)) throw error
      }
    })
  }
}

/** Writes and removes a probe entry: throws KeychainUnavailableError when no keychain can be used. */
export async function probeKeychain(timeoutMs = keychainTimeoutMs()): Promise<void> {
  await keychainCall(PROBE_KEY, timeoutMs, (entry, signal) => entry.setPassword('ok', signal))
  await keychainCall(PROBE_KEY, timeoutMs, (entry, signal) => entry.deleteCredential(signal))
}

/** One keychain call on one full key, under the timeout. */
async function keychainCall<T>(
  key: string,
  timeoutMs: number,
  fn: (entry: import('@napi-rs/keyring').AsyncEntry, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  // Before any entry is made: an entry made with no Secret Service would use the kernel keyring.
  await requireSecretService(timeoutMs)
  const {AsyncEntry} = await import('@napi-rs/keyring')
  const controller = new AbortController()
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort()
      reject(new KeychainUnavailableError(`no answer within ${timeoutMs} ms; is the keyring locked?`))
    }, timeoutMs)
    timer.unref()
  })
  try {
    return await Promise.race([fn(new AsyncEntry(KEYCHAIN_SERVICE, key), controller.signal), timeout])
  } catch (error) {
    if (error instanceof KeychainUnavailableError) throw error
    throw new KeychainUnavailableError(firstLine(error))
  } finally {
    clearTimeout(timer)
  }
}

export class FileStore implements CredentialStore {
  readonly kind = 'file'
  readonly file: string

  constructor(dir: string) {
    this.file = join(dir, 'credentials.json')
  }

  async get(key: string): Promise<string | undefined> {
    return (await this.read())[key]
  }

  async set(key: string, value: string): Promise<void> {
    await this.update((all) => {
      all[key] = value
      return true
    })
  }

  async delete(key: string): Promise<void> {
    await this.update((all) => {
      if (!(key in all)) return false
      delete all[key]
      return true
    })
  }

  /** Read-modify-write under the file's lock: concurrent commands never drop each other's secrets. */
  private async update(change: (all: Record<string, string>) => boolean): Promise<void> {
    await fs.mkdir(join(this.file, '..'), {recursive: true, mode: 0o700})
    await withFileLock(this.file, `The credentials file ${this.file}`, async () => {
      const all = await this.read()
      if (change(all)) await replacePrivateFile(this.file, JSON.stringify(all, null, 2) + '\n')
    })
  }

  private async read(): Promise<Record<string, string>> {
    try {
      return JSON.parse(await fs.readFile(this.file, 'utf8')) as Record<string, string>
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {}
      throw new ConfigError(`Cannot read ${this.file}: ${unreadableBecause(error)}`)
    }
  }
}

export function openStore(kind: StorageKind, configDir: string): CredentialStore {
  return kind === 'keychain' ? new KeychainStore(configDir) : new FileStore(configDir)
}

/** Keys under which a profile keeps its secrets (the keychain prefixes them with the folder's id). */
export const secretKeys = {
  clientSecret: (profile: string) => `${profile}/client_secret`,
  tokens: (profile: string) => `${profile}/tokens`,
}

function isNoEntry(error: unknown): boolean {
  return /no matching entry|NoEntry|not found/i.test(String((error as Error)?.message ?? error))
}

function firstLine(error: unknown): string {
  return (
    String((error as Error)?.message ?? error)
      .split('\n')[0]
      ?.trim() || 'unknown error'
  )
}
