/**
 * Saving and removing profiles: the profile in config.json, its secret in the credential store.
 * Shared by `bk profiles add` and `bk auth login`.
 */
import {ConfigError, InputError} from '../shared/errors.js'
import {validateBaseUrl, defaultBaseUrl} from './base-url.js'
import {FileStore, KeychainUnavailableError, openStore, secretKeys} from './credential-store.js'
import {configFolderId} from './keychain-folder.js'
import {ProfileStore, unknownProfile, validateProfileName, type Environment, type Profile} from './profiles.js'
import {ID_PREFIX} from '../shared/spec.js'

export interface NewProfile {
  name: string
  env: Environment
  clientId: string
  clientSecret: string
  baseUrl?: string | undefined
  business?: string | undefined
  scope?: string | undefined
  insecureStorage?: boolean | undefined
}

export interface SavedProfile {
  name: string
  profile: Profile
  active: boolean
  storedIn: string
}

export function buildProfile(input: Omit<NewProfile, 'clientSecret' | 'name'>): Profile {
  const rawUrl = input.baseUrl ?? defaultBaseUrl(input.env)
  if (!rawUrl) {
    throw new InputError(`The ${input.env} environment has no address bk knows: pass --base-url`, {
      code: 'no_base_url',
      hint: 'The API spec names no sandbox or production address; use the one your tenant dashboard shows.',
    })
  }
  if (input.business !== undefined && !input.business.startsWith(ID_PREFIX.business)) {
    throw new InputError(`Invalid --business "${input.business}": expected an id starting with biz_`)
  }
  return {
    env: input.env,
    baseUrl: validateBaseUrl(rawUrl, '--base-url'),
    clientId: input.clientId,
    business: input.business,
    scope: input.scope?.trim().split(/\s+/).filter(Boolean).join(' ') || undefined,
    storage: input.insecureStorage ? 'file' : 'keychain',
  }
}

export async function saveProfile(configDir: string, input: NewProfile): Promise<SavedProfile> {
  const name = validateProfileName(input.name)
  if (!input.clientSecret) throw new ConfigError('The client secret is empty')
  const profile = buildProfile(input)
  const store = openStore(profile.storage, configDir)
  // The secret first: a profile whose secret could not be stored is never written.
  await store.set(secretKeys.clientSecret(name), input.clientSecret)
  await store.delete(secretKeys.tokens(name)).catch(() => {})
  // The keys of the secret just stored: recorded with the profile, so a moved folder finds it.
  const folder = profile.storage === 'keychain' ? await configFolderId(configDir) : undefined
  const active = await new ProfileStore(configDir).update((config) => {
    config.profiles[name] = profile
    if (folder) config.keychainFolder = folder
    config.active ??= name
    return config.active
  })
  return {
    name,
    profile,
    active: active === name,
    storedIn: profile.storage === 'keychain' ? 'the OS keychain' : `${configDir}/credentials.json`,
  }
}

/** Throws the error of an unknown profile unless `name` is one: before a prompt about it, too. */
export async function requireProfile(configDir: string, name: string): Promise<Profile> {
  const {profiles} = await new ProfileStore(configDir).load()
  const profile = profiles[name]
  if (!profile) throw unknownProfile(name, Object.keys(profiles))
  return profile
}

export interface RemovedProfile {
  /** Whether it was the active profile: then none is, until `bk profiles use` names one. */
  wasActive: boolean
  /** The profiles left. */
  left: string[]
}

/**
 * Removes a profile and its secrets. Removing the active one leaves none active rather than
 * promoting another: the next command would otherwise run, unasked, with other credentials
 * (perhaps production's).
 */
export async function removeProfile(configDir: string, name: string): Promise<RemovedProfile> {
  const profiles = new ProfileStore(configDir)
  const profile = await requireProfile(configDir, name)
  const store = openStore(profile.storage, configDir)
  try {
    await store.delete(secretKeys.clientSecret(name))
    await store.delete(secretKeys.tokens(name))
  } catch (error) {
    if (!(error instanceof KeychainUnavailableError)) throw error
    throw new ConfigError(`Cannot remove the keychain entries of profile "${name}": ${error.message}`, {
      hint: 'Unlock the keychain and run the command again; the profile is kept until then.',
    })
  }
  return profiles.update((config) => {
    delete config.profiles[name]
    const wasActive = config.active === name
    if (wasActive) config.active = undefined
    return {wasActive, left: Object.keys(config.profiles)}
  })
}

export interface LogoutResult {
  profile: string
  store: string
  removed: {clientSecret: boolean; tokens: boolean}
}

/**
 * Forgets a profile's client secret and cached tokens, and keeps the profile (as `gh auth
 * logout` does): `bk profiles add NAME … --client-secret-stdin` stores a secret again.
 */
export async function logoutProfile(configDir: string, name: string): Promise<LogoutResult> {
  const profile = await requireProfile(configDir, name)
  const store = openStore(profile.storage, configDir)
  const removed = {clientSecret: false, tokens: false}
  try {
    for (const [what, key] of [
      ['clientSecret', secretKeys.clientSecret(name)],
      ['tokens', secretKeys.tokens(name)],
    ] as const) {
      removed[what] = (await store.get(key)) !== undefined
      await store.delete(key)
    }
  } catch (error) {
    if (!(error instanceof KeychainUnavailableError)) throw error
    throw new ConfigError(`Cannot forget the secrets of profile "${name}": ${error.message}`, {
      code: 'keychain_unavailable',
      hint: 'Unlock the keychain (or start its D-Bus session) and run the command again; nothing was removed.',
    })
  }
  return {
    profile: name,
    store: profile.storage === 'keychain' ? 'OS keychain' : store instanceof FileStore ? store.file : 'file',
    removed,
  }
}
