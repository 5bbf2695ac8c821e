/**
 * Whether a real Secret Service is reachable. Where it is not, keychain tests skip with the
 * printed reason, except under BK_REQUIRE_KEYCHAIN=1 (CI), where its absence fails them.
 */
import {AsyncEntry, findCredentialsAsync} from '@napi-rs/keyring'
import {execFileSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {realpathSync} from 'node:fs'

export async function keychainStatus(): Promise<{available: true} | {available: false; reason: string}> {
  if (!process.env.DBUS_SESSION_BUS_ADDRESS)
    return {available: false, reason: 'no D-Bus session (DBUS_SESSION_BUS_ADDRESS is unset)'}
  if (secretServiceOwner() === false)
    return {
      available: false,
      reason:
        'no Secret Service owns org.freedesktop.secrets on this D-Bus session (scripts/keyring-ready.sh waits for one)',
    }
  try {
    // Asks the Secret Service alone first: an entry made without one would land in the kernel keyring.
    await findCredentialsAsync('bk-secret-service-probe')
  } catch (error) {
    return {available: false, reason: `no Secret Service: ${String((error as Error).message).split('\n')[0]}`}
  }
  try {
    const entry = new AsyncEntry('bk-test-probe', `probe-${process.pid}`)
    await entry.setPassword('probe')
    const back = await entry.getPassword()
    await entry.deleteCredential()
    if (back !== 'probe') return {available: false, reason: 'the Secret Service did not return what was stored'}
    return {available: true}
  } catch (error) {
    return {available: false, reason: `the Secret Service failed: ${String((error as Error).message).split('\n')[0]}`}
  }
}

/**
 * Whether a running daemon owns the Secret Service name, asked of the bus itself: a call to the
 * service before one does would make D-Bus start a second gnome-keyring whose login collection is
 * locked, and every test after it would fail on an unlock prompt nobody can answer.
 * Undefined where dbus-send is not installed.
 */
function secretServiceOwner(): boolean | undefined {
  try {
    const reply = execFileSync(
      'dbus-send',
      [
        '--session',
        '--print-reply',
        '--dest=org.freedesktop.DBus',
        '/org/freedesktop/DBus',
        'org.freedesktop.DBus.NameHasOwner',
        'string:org.freedesktop.secrets',
      ],
      {encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore']},
    )
    return reply.includes('true')
  } catch {
    return undefined
  }
}

/** Resolves to true when keychain tests should run; throws under BK_REQUIRE_KEYCHAIN=1 when they cannot. */
export async function requireKeychainOrSkip(): Promise<boolean> {
  const status = await keychainStatus()
  if (status.available) return true
  if (process.env.BK_REQUIRE_KEYCHAIN === '1') throw new Error(`BK_REQUIRE_KEYCHAIN=1 but ${status.reason}`)
  console.warn(`Skipping keychain tests: ${status.reason}`)
  return false
}

/**
 * The key bk keeps a profile's keychain entry under, computed here from the documented scheme
 * (docs/decisions.md): the first 16 hex digits of the SHA-256 of the folder's real path.
 */
export function keychainKey(configDir: string, profile: string, what: 'client_secret' | 'tokens'): string {
  const id = createHash('sha256').update(realpathSync(configDir)).digest('hex').slice(0, 16)
  return `${id}/${profile}/${what}`
}
