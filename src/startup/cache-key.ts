/**
 * The key that authenticates the code cache: 32 random bytes in bk's config folder, 0600, made by
 * the first run that writes a cache file. A key that is not the user's own, or that group or
 * others may read or write, is no key: the cache is not used, and the file is left as it is.
 */
import {closeSync, writeSync} from 'node:fs'

import {createPrivateFile, readPrivateFile} from './private-files.js'

const KEY_LENGTH = 32

/** The key in `file`, or undefined when there is none that may be used. */
export function readCacheKey(file: string): Buffer | undefined {
  const key = readPrivateFile(file, 0o077)
  return key?.length === KEY_LENGTH ? key : undefined
}

/**
 * The key in `file`, made when there is none yet; undefined when one is there that may not be
 * used, or when none can be made. Two runs making it at once agree: the second reads the first's.
 */
export function cacheKey(file: string): Buffer | undefined {
  const existing = readCacheKey(file)
  if (existing) return existing
  const {randomBytes} = process.getBuiltinModule('node:crypto')
  const key = randomBytes(KEY_LENGTH)
  let fd: number
  try {
    fd = createPrivateFile(file)
  } catch {
    // One is there (made by another run just now, or not usable), or the folder is not writable.
    return readCacheKey(file)
  }
  try {
    writeSync(fd, key)
  } finally {
    closeSync(fd)
  }
  return key
}
