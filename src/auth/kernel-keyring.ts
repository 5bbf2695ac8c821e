/**
 * bk secrets that an earlier bk (or a failed write) left in the Linux kernel keyring, the
 * volatile store the keychain library falls back to without a Secret Service: found by their
 * descriptions in /proc/keys (`keyring:<key>@bk`, the library's naming), which lists the keys
 * this user may see without reading any of them. `bk auth status` and `bk doctor` name them;
 * `bk auth move-secret` moves a profile's to a store that lasts (src/auth/volatile-move.ts).
 */
// fs.promises, not node:fs/promises: loaded when first used, not with every API command.
import {promises as fs} from 'node:fs'

import {KEYCHAIN_SERVICE} from './credential-store.js'

export interface VolatileSecret {
  /** The kernel's key id, as `keyctl` shows it (decimal). */
  id: number
  /** The keychain key: `<profile>/client_secret`, `<profile>/tokens`, or `bk-probe`. */
  key: string
  profile: string | undefined
  what: 'client secret' | 'cached tokens' | 'other'
}

// 0000abcd I--Q---  1 perm 3f010000  1000  1000 user  keyring:prod/client_secret@bk: 12
const LINE = /^([0-9a-f]+)\s+\S+\s+\d+\s+\S+\s+[0-9a-f]+\s+(\d+)\s+\d+\s+user\s+keyring:(.+)@([^@:]+):\s*\d+\s*$/

/** This user's bk keys in the kernel keyring; empty off Linux or where /proc/keys is absent. */
export async function volatileSecrets(procKeys = '/proc/keys'): Promise<VolatileSecret[]> {
  if (process.platform !== 'linux') return []
  let text: string
  try {
    text = await fs.readFile(procKeys, 'utf8')
  } catch {
    return []
  }
  const uid = process.getuid?.()
  const found: VolatileSecret[] = []
  for (const line of text.split('\n')) {
    const m = LINE.exec(line)
    if (!m || m[4] !== KEYCHAIN_SERVICE || (uid !== undefined && Number(m[2]) !== uid)) continue
    const key = m[3] as string
    const slash = key.lastIndexOf('/')
    const kind = slash > 0 ? key.slice(slash + 1) : ''
    found.push({
      id: Number.parseInt(m[1] as string, 16),
      key,
      profile: slash > 0 ? key.slice(0, slash) : undefined,
      what: kind === 'client_secret' ? 'client secret' : kind === 'tokens' ? 'cached tokens' : 'other',
    })
  }
  return found
}

/** One line naming what was found, for status and doctor; undefined when nothing was. */
export function describeVolatile(found: VolatileSecret[]): string | undefined {
  if (found.length === 0) return undefined
  const names = found.map((s) => (s.profile ? `${s.what} of profile "${s.profile}"` : `"${s.key}"`))
  return `the kernel keyring (volatile: gone at logout or reboot) holds ${names.join(', ')} (key ${found.map((s) => s.id).join(', ')})`
}
