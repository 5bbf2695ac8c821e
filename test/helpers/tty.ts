/**
 * Runs the real `bk` on a real pseudo-terminal, through util-linux `script` (always present on
 * Debian), and answers prompts when their text appears: for what only happens on a terminal
 * (confirmation, masked secrets, progress, tables).
 */
import {spawn} from 'node:child_process'

import {BIN, cleanEnv, tempDir, type BkResult} from './bk.js'

export interface Answer {
  /** Written once the screen so far matches. */
  when: RegExp
  send: string
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

export interface TtyOptions {
  env?: Record<string, string | undefined>
  configDir?: string
  answers?: Answer[]
  timeoutMs?: number
  /** The terminal's size, set on the pty itself (stty), as a real terminal reports it. */
  columns?: number
  rows?: number
  /** Where bk's stderr goes instead of the screen (a file, or /dev/null), to see stdout alone. */
  stderrTo?: string
  /** Ctrl-C is typed once this settles (an event the test waits on: a request held, a file made). */
  interruptWhen?: Promise<unknown>
}

export function runBkTty(args: string[], options: TtyOptions = {}): Promise<BkResult> {
  const size = options.columns !== undefined ? `stty cols ${options.columns} rows ${options.rows ?? 50} && exec ` : ''
  const stderr = options.stderrTo === undefined ? '' : ` 2>${quote(options.stderrTo)}`
  const command = size + [process.execPath, BIN, ...args].map(quote).join(' ') + stderr
  const env = cleanEnv({
    BK_CONFIG_DIR: options.configDir ?? tempDir(),
    TERM: 'xterm',
    COLUMNS: String(options.columns ?? 160),
    LINES: String(options.rows ?? 50),
    ...options.env,
  })
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', command, '/dev/null'], {env, stdio: ['pipe', 'pipe', 'pipe']})
    const pending = [...(options.answers ?? [])]
    let screen = ''
    const onData = (d: Buffer) => {
      screen += d.toString()
      while (pending[0] && pending[0].when.test(screen)) child.stdin.write((pending.shift() as Answer).send)
    }
    void options.interruptWhen?.then(() => child.stdin.write('\u0003'))
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 100_000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      // Everything the terminal showed: the pty merges stdout and stderr.
      resolve({code, signal, stdout: screen, stderr: ''})
    })
  })
}

/** The screen without colour and cursor escapes. */
export function plain(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001B\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '')
}
