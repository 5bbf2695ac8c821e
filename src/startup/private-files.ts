/**
 * The code cache's files and folders are trusted only when they are the user's own, as ssh treats
 * its keys: owned by the user and writable by no one else (a file or folder another user could
 * write is one they could plant code in). bk makes them so (folders 0700, files 0600, created with
 * that mode and never through a link); anything else is passed over, never repaired: bk does not
 * chmod what it did not create.
 */
import {constants, fstatSync, lstatSync, mkdirSync, openSync, readSync, closeSync, statSync, type Stats} from 'node:fs'
import {dirname, join, relative, sep} from 'node:path'

/** Writable by group or others. */
const WRITABLE_BY_OTHERS = 0o022

/** Whether `stats` is the user's own and writable by no one else. */
export function isOwnAndPrivate(stats: Stats, uid = process.getuid?.()): boolean {
  return uid !== undefined && stats.uid === uid && (stats.mode & WRITABLE_BY_OTHERS) === 0
}

/**
 * Whether the folders from `base` down to `folder` (inside it) are each the user's own and
 * writable by no one else, as far as they exist: a missing one is made by bk (makePrivateFolder).
 * `base` may be a link to a folder (a cache folder moved to another disk); those below must be
 * folders themselves.
 */
export function isPrivateFolderChain(base: string, folder: string): boolean {
  const below = relative(base, folder).split(sep).filter(Boolean)
  const chain = [base, ...below.map((_, i) => join(base, ...below.slice(0, i + 1)))]
  for (const [i, path] of chain.entries()) {
    let stats: Stats
    try {
      stats = i === 0 ? statSync(path) : lstatSync(path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true
      return false
    }
    if (!stats.isDirectory() || !isOwnAndPrivate(stats)) return false
  }
  return true
}

/** Makes `folder` and any missing folder above it, each 0700. */
export function makePrivateFolder(folder: string): void {
  mkdirSync(folder, {recursive: true, mode: 0o700})
}

/**
 * The bytes of a regular file that is the user's own and writable by no one else, read without
 * following a link; undefined when there is none. `mustBeClear` may ask more of its mode (0o077:
 * a key no one else may read either).
 */
export function readPrivateFile(path: string, mustBeClear = WRITABLE_BY_OTHERS): Buffer | undefined {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW)
  } catch {
    return undefined
  }
  try {
    // Checked on the file opened, not on its name, which may be another file by now.
    const stats = fstatSync(fd)
    if (!stats.isFile() || !isOwnAndPrivate(stats) || (stats.mode & mustBeClear) !== 0) return undefined
    const bytes = Buffer.allocUnsafe(stats.size)
    let at = 0
    while (at < bytes.length) {
      const n = readSync(fd, bytes, at, bytes.length - at, at)
      if (n === 0) break
      at += n
    }
    return bytes.subarray(0, at)
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}

/** Opens a new file 0600 for writing, failing if anything (a file, a link) is at `path`. */
export function createPrivateFile(path: string): number {
  makePrivateFolder(dirname(path))
  return openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600)
}
