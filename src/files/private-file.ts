/**
 * Writing a private file, one way everywhere: bk writes credentials, tokens, support bundles and
 * business data, often in folders others can write to (/tmp, a shared CI workspace). A link or a
 * file planted at the path must never be followed, overwritten or chmod'ed:
 * - a new file is opened with exclusive create and no link following (O_CREAT|O_EXCL|O_NOFOLLOW),
 *   mode 0600, so a link or a file already at the path is refused, never written through;
 * - a file bk replaces (config.json, a cache) is written whole to a new temporary file beside it
 *   (created as above) and renamed over it: the rename replaces the entry, never a link's target;
 * - a folder is created new (0700), or an existing empty folder the user owns is used as it is:
 *   bk never chmods what it did not create.
 */
import {constants} from 'node:fs'
import {lstat, mkdir, open, readdir, rename, rm} from 'node:fs/promises'
import {dirname} from 'node:path'

import {InputError} from '../shared/errors.js'

/** Owner read and write only. */
export const PRIVATE_FILE_MODE = 0o600
/** Owner only. */
export const PRIVATE_FOLDER_MODE = 0o700

const NEW_FILE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0)

/**
 * Creates `file` and writes `data` to it: exclusive create, no link following, 0600. Anything at
 * the path already (a file, a link, even a dangling one) is refused with an InputError naming
 * it and `what` (a flag or a description).
 */
export async function writeNewPrivateFile(what: string, file: string, data: string | Uint8Array): Promise<void> {
  const handle = await open(file, NEW_FILE, PRIVATE_FILE_MODE).catch((error: NodeJS.ErrnoException) => {
    throw new InputError(
      `${what}: cannot create ${file} (${error.code === 'EEXIST' ? 'something is already there; bk does not overwrite it' : (error.code ?? error.message)})`,
      {hint: 'Remove it or give another path.', details: {what, path: file}},
    )
  })
  try {
    await handle.writeFile(data)
  } finally {
    await handle.close()
  }
}

/**
 * Replaces `file` with `data`, atomically (a crash never leaves half a file): written to a new
 * 0600 file beside it, then renamed over it. The folder is made 0700 when missing.
 */
export async function replacePrivateFile(file: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(file), {recursive: true, mode: PRIVATE_FOLDER_MODE})
  const tmp = `${file}.${process.pid}.tmp`
  // A leftover of this pid (or a link planted there) is removed, not followed.
  await rm(tmp, {force: true})
  const handle = await open(tmp, NEW_FILE, PRIVATE_FILE_MODE)
  try {
    await handle.writeFile(data)
  } finally {
    await handle.close()
  }
  await rename(tmp, file)
}

/**
 * Makes `dir` a folder for private files: created new, 0700 (its parents as needed), or, when it
 * exists, used as it is if it is an empty folder the user owns. A file, a link, a folder with
 * something in it or one owned by someone else is refused (exit 2), naming `what`.
 */
export async function privateFolder(what: string, dir: string): Promise<void> {
  const refuse = (why: string) =>
    new InputError(`${what} ${dir}: ${why}`, {
      hint: 'Give the path of a new folder (bk creates it) or of an empty folder of yours.',
      details: {what, path: dir},
    })
  await mkdir(dirname(dir), {recursive: true, mode: PRIVATE_FOLDER_MODE}).catch((error: NodeJS.ErrnoException) => {
    throw refuse(`cannot create its parent folder (${error.code ?? error.message})`)
  })
  const made = await mkdir(dir, {mode: PRIVATE_FOLDER_MODE}).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw refuse(`cannot be created (${error.code ?? error.message})`)
      return false
    },
  )
  if (made) return
  const stats = await lstat(dir)
  if (stats.isSymbolicLink()) throw refuse('is a symbolic link; bk does not write through links')
  if (!stats.isDirectory()) throw refuse('is not a folder')
  if (process.getuid && stats.uid !== process.getuid()) throw refuse('is owned by another user')
  if ((await readdir(dir)).length) throw refuse('is not empty; bk writes only into a new or empty folder')
}
