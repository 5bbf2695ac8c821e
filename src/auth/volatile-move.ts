/**
 * Moving a profile's client secret out of the kernel keyring (where an older bk, with no Secret
 * Service, left it) to a store that lasts: the Secret Service, or credentials.json. bk itself
 * never opens the kernel keyring; only the keychain library does, when it cannot reach D-Bus.
 * So the read and the removal run in a child process whose D-Bus address leads nowhere: there
 * the library uses the kernel keyring, as the older bk did, and hands the secret back on a pipe.
 * Only the login session that stored a key can read it (the kernel's rule, not bk's).
 */
import {spawn} from 'node:child_process'
import {fileURLToPath} from 'node:url'

import {registerSecret} from '../api/redact.js'
import {ConfigError} from '../shared/errors.js'
import {nodeEval} from '../shared/own-process.js'
import {FileStore, KEYCHAIN_SERVICE, KeychainStore, requireSecretService, secretKeys} from './credential-store.js'
import {configFolderId} from './keychain-folder.js'
import {requireProfile} from './profile-setup.js'
import {volatileSecrets} from './kernel-keyring.js'
import {ProfileStore, profileAddCommand} from './profiles.js'

export interface MoveResult {
  profile: string
  to: string
  /** The kernel keyring keys removed (`<profile>/client_secret`, `<profile>/tokens`). */
  removed: string[]
}

// CommonJS, run with `node -e`: one operation on one key, the answer as JSON on stdout.
const CHILD = `
const {AsyncEntry} = require(process.env.BK_KEYRING_MODULE)
let input = ''
process.stdin.on('data', (d) => (input += d))
process.stdin.on('end', async () => {
  const {op, service, key} = JSON.parse(input)
  const entry = new AsyncEntry(service, key)
  try {
    const value = op === 'read' ? await entry.getPassword() : await entry.deleteCredential()
    process.stdout.write(JSON.stringify({value: value ?? null}))
  } catch (error) {
    process.stdout.write(JSON.stringify({error: String(error && error.message).split('\\n')[0]}))
  }
})
`

/** One read or delete of a bk key in the kernel keyring, through the keychain library. */
function kernelKeyring(op: 'read' | 'delete', key: string): Promise<{value?: unknown; error?: string}> {
  const module = fileURLToPath(import.meta.resolve('@napi-rs/keyring'))
  return new Promise((resolve, reject) => {
    const node = nodeEval(CHILD)
    const child = spawn(node.command, node.args, {
      env: {
        ...process.env,
        ...node.env,
        BK_KEYRING_MODULE: module,
        // No bus: the library falls back to the kernel keyring in this process only.
        DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bk-kernel-keyring',
        XDG_RUNTIME_DIR: '',
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.once('error', reject)
    child.once('close', () => {
      try {
        resolve(JSON.parse(out) as {value?: unknown; error?: string})
      } catch {
        resolve({error: 'no answer from the keychain library'})
      }
    })
    child.stdin.end(JSON.stringify({op, service: KEYCHAIN_SERVICE, key}))
  })
}

export async function moveVolatileSecret(
  configDir: string,
  name: string,
  insecureStorage: boolean,
): Promise<MoveResult> {
  const profiles = new ProfileStore(configDir)
  const profile = await requireProfile(configDir, name)
  const found = (await volatileSecrets()).filter((s) => s.profile === name)
  const secretKey = secretKeys.clientSecret(name)
  const held = found.find((s) => s.key === secretKey)
  if (!held)
    throw new ConfigError(`The kernel keyring holds no client secret of profile "${name}": nothing to move`, {
      code: 'nothing_to_move',
      hint: '`bk doctor` lists what the kernel keyring holds.',
    })
  // Where it goes must work before anything is taken from where it is.
  if (!insecureStorage) await requireSecretService()
  const read = await kernelKeyring('read', secretKey)
  if (typeof read.value !== 'string' || !read.value)
    throw new ConfigError(
      `The kernel keyring holds the client secret of profile "${name}" (key ${held.id}), but this login session cannot read it (${read.error ?? 'not found'})`,
      {
        code: 'volatile_unreadable',
        hint: `Run the command in the login session that stored it, or store the secret again: ${profileAddCommand(name, profile, '--client-secret-stdin')}`,
      },
    )
  registerSecret(read.value)
  const store = insecureStorage ? new FileStore(configDir) : new KeychainStore(configDir)
  await store.set(secretKey, read.value)
  const folder = store.kind === 'keychain' ? await configFolderId(configDir) : undefined
  await profiles.update((config) => {
    const current = config.profiles[name]
    if (current) current.storage = store.kind
    if (folder) config.keychainFolder = folder
  })
  const removed: string[] = []
  for (const secret of found) {
    const gone = await kernelKeyring('delete', secret.key)
    if (!gone.error) removed.push(secret.key)
  }
  return {
    profile: name,
    to: store instanceof FileStore ? store.file : 'OS keychain',
    removed: removed.sort(),
  }
}
