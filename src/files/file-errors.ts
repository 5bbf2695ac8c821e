/**
 * Why a file could not be read, in the words people use: the one place that turns Node's error
 * codes into the end of "Cannot read FILE: …", and into the hint that says what to do.
 */
import {isAbsolute} from 'node:path'

const REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a folder',
  ENOTDIR: 'a part of its path is not a folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ELOOP: 'too many symbolic links',
}

export function unreadableBecause(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code
  return (code && REASONS[code]) ?? (error as Error).message
}

/** The next step for a file that could not be read; a relative path is read from the current folder. */
export function unreadableHint(file: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ENOENT' || code === 'ENOTDIR')
    return isAbsolute(file)
      ? 'Check the path and run the command again.'
      : `Check the path: it is read from the current folder, ${process.cwd()}.`
  if (code === 'EISDIR') return 'Name a file in that folder.'
  if (code === 'EACCES' || code === 'EPERM')
    return `Check the file's permissions (\`ls -l ${file}\`): bk needs to read it.`
  return 'Check the file and run the command again.'
}
