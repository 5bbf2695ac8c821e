/**
 * Why a file could not be read, in the words people use: the one place that turns Node's error
 * codes into the end of "Cannot read FILE: …".
 */
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
