/**
 * How messages name a bill import's input: the path as given, or `stdin` for `-`, the word the
 * import's help uses. One word in every message (the lock's owner, a bill created earlier,
 * `bills import status`, a CI report's positions). The journal, and so `bills import status
 * --json`, keep the argument, `-`.
 */
export function inputName(file: string): string {
  return file === '-' ? 'stdin' : file
}
