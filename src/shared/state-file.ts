/**
 * Files that hold a program's state across restarts (the emulator's `--state`, the listener's
 * `--state`): written whole or not at all, and refused when found damaged, never read as empty.
 *
 * A write goes to a temporary file beside the target, is flushed to disk, and renamed over it,
 * so a reader sees the old file or the new one. The first line is a header naming the format and
 * the length and SHA-256 of the rest: a file cut short (a disk that filled, a copy interrupted,
 * an editor) or changed by hand does not match it, and reading it fails with a StateFileError
 * that says so, instead of starting from nothing and losing what the file held.
 */
import {createHash} from 'node:crypto'
import {constants} from 'node:fs'
import {open, rename, rm} from 'node:fs/promises'
import {basename, dirname, join} from 'node:path'

/** A state file that cannot be used; `hint` says what to do. */
export class StateFileError extends Error {
  constructor(
    message: string,
    readonly file: string,
    readonly hint: string,
  ) {
    super(message)
    this.name = 'StateFileError'
  }
}

interface Header {
  format: string
  version: number
  bytes: number
  sha256: string
}

const digest = (body: Buffer) => createHash('sha256').update(body).digest('hex')

/** Writes `body` (text) under a header of `format`, atomically, readable by the owner only. */
export async function writeStateFile(file: string, format: string, body: string): Promise<void> {
  const bytes = Buffer.from(body, 'utf8')
  const header: Header = {format, version: 1, bytes: bytes.length, sha256: digest(bytes)}
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${Date.now()}.tmp`)
  // Created new, never through a link planted at the temporary name (src/files/private-file.ts
  // says why; the emulator's side cannot import it).
  const handle = await open(
    tmp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
    0o600,
  )
  try {
    await handle.writeFile(Buffer.concat([Buffer.from(JSON.stringify(header) + '\n', 'utf8'), bytes]))
    await handle.sync()
  } catch (error) {
    await handle.close()
    await rm(tmp, {force: true})
    throw error
  }
  await handle.close()
  try {
    await rename(tmp, file)
  } catch (error) {
    await rm(tmp, {force: true})
    throw error
  }
  // The rename itself is durable once the folder is flushed (where the platform allows it).
  const folder = await open(dirname(file), 'r').catch(() => undefined)
  if (folder) {
    await folder.sync().catch(() => {})
    await folder.close()
  }
}

/**
 * The body of a state file of `format`, or undefined when there is no file. A file that is
 * empty, cut short, altered or of another format throws a StateFileError.
 */
/** The file's bytes, if it is a regular file within STATE_FILE_LIMIT (checked on the open file, and while read). */
async function readBounded(file: string, what: string): Promise<Buffer> {
  const handle = await open(file, 'r')
  try {
    // A folder, a device (/dev/zero) or a pipe is not a state file: refused, never read.
    const kind = await handle.stat()
    if (!kind.isFile())
      throw new StateFileError(
        `${file} is not a usable ${what}: it is ${kind.isDirectory() ? 'a folder' : 'not a regular file'}`,
        file,
        'Give the path of a file (bk creates it on first use).',
      )
    const tooLarge = () =>
      new StateFileError(
        `${file} is larger than ${STATE_FILE_LIMIT / (1024 * 1024)} MB, the limit for ${what}s; nothing was read`,
        file,
        'Use a file written by `bk emulator start --state`, or move this one away to start afresh.',
      )
    if (kind.size > STATE_FILE_LIMIT) throw tooLarge()
    const buffer = Buffer.alloc(kind.size + 1)
    let length = 0
    for (;;) {
      const {bytesRead} = await handle.read(buffer, length, buffer.length - length, length)
      if (bytesRead === 0) break
      length += bytesRead
      if (length > kind.size) throw tooLarge() // it grew while read
    }
    return buffer.subarray(0, length)
  } finally {
    await handle.close()
  }
}

/**
 * The most a state file may hold: it is read whole and parsed, which takes several times its size
 * (100,000 bills are about 40 MB). A larger file is refused before a byte of it is read.
 */
export const STATE_FILE_LIMIT = 64 * 1024 * 1024

export async function readStateFile(file: string, format: string, what: string): Promise<string | undefined> {
  let data: Buffer
  try {
    data = await readBounded(file, what)
  } catch (error) {
    if (error instanceof StateFileError) throw error
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new StateFileError(
      `Cannot read the ${what} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      file,
      'Check the path and its permissions.',
    )
  }
  const keep = `Nothing was changed: the file is kept as it is. Restore it from a copy, or move it away to start with a new ${what}.`
  const newline = data.indexOf(0x0a)
  let header: Partial<Header> | undefined
  try {
    header = newline === -1 ? undefined : (JSON.parse(data.subarray(0, newline).toString('utf8')) as Partial<Header>)
  } catch {
    header = undefined
  }
  if (!header || typeof header !== 'object' || header.format !== format) {
    const why = data.length === 0 ? 'it is empty' : `its first line is not the header of a ${what}`
    throw new StateFileError(`${file} is not a usable ${what}: ${why}`, file, keep)
  }
  if (header.version !== 1)
    throw new StateFileError(
      `${file} is a ${what} of version ${String(header.version)}, which this bk does not read`,
      file,
      'Use the bk that wrote it, or move the file away to start afresh.',
    )
  const body = data.subarray(newline + 1)
  if (body.length !== header.bytes || digest(body) !== header.sha256) {
    const why =
      body.length < (header.bytes ?? 0)
        ? `it is cut short (${body.length} of ${header.bytes} bytes): a write did not finish, or the file was truncated`
        : 'its content does not match its checksum: it was changed or damaged after it was written'
    throw new StateFileError(`${file} is a damaged ${what}: ${why}`, file, keep)
  }
  return body.toString('utf8')
}

/**
 * Saves that coalesce: a save asked for while one is being written waits for it and then writes
 * once more (the state as it is then); any number of saves asked meanwhile share that one write.
 * Each call resolves once a write that began after it is on disk.
 */
export class CoalescedSaves {
  private writing: Promise<void> | undefined
  private queued: Promise<void> | undefined

  constructor(private readonly write: () => Promise<void>) {}

  save(): Promise<void> {
    if (!this.writing) {
      this.writing = this.write().finally(() => {
        this.writing = undefined
      })
      return this.writing
    }
    this.queued ??= this.writing
      .catch(() => {})
      .then(() => {
        this.queued = undefined
        return this.save()
      })
    return this.queued
  }
}
