/**
 * The OS keychain is one per user, config folders are many (BK_CONFIG_DIR): a keychain entry
 * named by the profile alone would be shared, and overwritten, by every folder with a profile of
 * that name. So each entry is prefixed with the folder's id, a hash of the folder's real path:
 * `<id>/<profile>/client_secret`. The id is kept nowhere the folder's files could carry it, so a
 * copied folder (a backup, a synced dotfile folder) gets an id of its own.
 *
 * config.json records the id its entries were last keyed by (`keychainFolder`). When it is
 * absent (written by an older bk, which keyed by profile name alone) or differs (the folder was
 * moved or copied), the profiles' secrets are copied to the current keys on first use, under the
 * config file's lock; an older bk's entry is deleted once its copy has been read back.
 */
// fs.promises, not node:fs/promises: loaded when first used, not with every API command.
import {promises as fs} from 'node:fs'

import {ConfigError} from '../shared/errors.js'
import {ProfileStore} from './profiles.js'

/** Keychain calls on full keys, as the keychain store makes them. */
export interface RawKeychain {
  get(key: string): Promise<string | undefined>
  set(key: string, value: string): Promise<void>
  delete(key: string): Promise<void>
}

/** The id of a config folder: the first 16 hex digits of the SHA-256 of its real path. */
export async function configFolderId(configDir: string): Promise<string> {
  // Made first: `profiles add` stores the secret before it writes config.json.
  await fs.mkdir(configDir, {recursive: true, mode: 0o700})
  // Loaded here, not with the module: a run with credentials from the environment never needs it.
  const {createHash} = await import('node:crypto')
  return createHash('sha256')
    .update(await fs.realpath(configDir))
    .digest('hex')
    .slice(0, 16)
}

/**
 * Returns the folder's id once every keychain profile's client secret is under the folder's
 * keys. Cheap when config.json already names this id (the usual case): no lock, no keychain call.
 */
export async function keychainFolder(configDir: string, keychain: RawKeychain): Promise<string> {
  const id = await configFolderId(configDir)
  const profiles = new ProfileStore(configDir)
  const config = await profiles.load()
  const inKeychain = Object.values(config.profiles).some((p) => p.storage === 'keychain')
  // Nothing to move (and config.json is not written when there is no profile yet).
  if (config.keychainFolder === id || !inKeychain) return id
  await profiles.update(async (config) => {
    if (config.keychainFolder === id) return
    const from = config.keychainFolder
    for (const [name, profile] of Object.entries(config.profiles)) {
      if (profile.storage !== 'keychain') continue
      await moveSecret(keychain, name, from, id)
    }
    config.keychainFolder = id
  })
  return id
}

async function moveSecret(keychain: RawKeychain, profile: string, from: string | undefined, to: string): Promise<void> {
  const target = `${to}/${profile}/client_secret`
  // Stored under this folder's key already (by `profiles add` since): that one is the truth.
  if ((await keychain.get(target)) !== undefined) return
  const source = from === undefined ? `${profile}/client_secret` : `${from}/${profile}/client_secret`
  const secret = await keychain.get(source)
  if (secret === undefined) return
  await keychain.set(target, secret)
  if ((await keychain.get(target)) !== secret) {
    throw new ConfigError(
      `The keychain did not keep the client secret of profile "${profile}" under its new key ${target}`,
      {
        code: 'keychain_unavailable',
        hint: 'Nothing was removed: the secret is still under its old key. Unlock the keychain and run the command again.',
      },
    )
  }
  // An older bk's entries belong to no folder: once copied, they are removed. A moved or copied
  // folder's source is kept, since the folder it was copied from may still use it.
  if (from === undefined) {
    await keychain.delete(source)
    // Cached tokens: possibly another folder's, and fetched again when needed.
    await keychain.delete(`${profile}/tokens`)
  }
}
