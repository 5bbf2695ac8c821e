// The help bk printed, kept so that the next identical request prints it without loading the
// bundle (bin/run.js): a script that asks for `bk <command> --help` in a loop pays for oclif's
// start once. Help is a function of what is kept in the key, all of it read on every run: the
// arguments, the whole environment (widths, colours and folders come from it), bk's package.json
// and manifest (their size and time), the bundle's first line (a digest of it), the user's
// theme.json and whether stdout and stderr are terminals. Only output to something other than a
// terminal is kept (a person at one does not ask in a loop), only from a run that printed nothing
// on stderr and exited with 0, never with DEBUG set (oclif then logs on stderr), and at most 64
// requests: then the folder starts again (the environment holds the working directory, so keys
// vary from one folder to the next).
//
// A file per request under the code cache's folder, `help/<hash>.txt`: the key on the first
// line, compared whole (the hash only names the file), then the text. Like the code cache, a
// file that is missing, damaged or for another key is passed over, and one that cannot be
// written is not: help is never slower or different for it.
'use strict'
const {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} = require('node:fs')
const {homedir} = require('node:os')
const {join} = require('node:path')

/** At most this many requests are kept, so that a stream of varied ones cannot fill the folder. */
const MAX_FILES = 64

/** The key of this request, as one line of JSON. */
function requestKey(root, argv) {
  const env = process.env
  const stat = (file) => {
    try {
      const s = statSync(file)
      return `${s.size}:${s.mtimeMs}`
    } catch {
      return null
    }
  }
  const read = (file) => {
    try {
      return readFileSync(file, 'utf8')
    } catch {
      return null
    }
  }
  let bundleId = null
  try {
    const fd = openSync(join(root, 'dist', 'bk.cjs'), 'r')
    const head = Buffer.alloc(64)
    const n = readSync(fd, head, 0, 64, 0)
    closeSync(fd)
    bundleId = head.subarray(0, n).toString('latin1').split('\n', 1)[0]
  } catch {
    // No bundle: the run that follows fails and keeps nothing.
  }
  // oclif's config folder (its theme.json colours help): BK_CONFIG_DIR, else XDG's or the platform's.
  const home = env.HOME || homedir()
  const configDir =
    env.BK_CONFIG_DIR ||
    join(env.XDG_CONFIG_HOME || (process.platform === 'win32' && env.LOCALAPPDATA) || join(home, '.config'), 'bk')
  return JSON.stringify({
    argv,
    env: Object.keys(env)
      .sort()
      .map((k) => [k, env[k]]),
    tty: [Boolean(process.stdout.isTTY), Boolean(process.stderr.isTTY)],
    bundle: bundleId,
    packageJson: stat(join(root, 'package.json')),
    manifest: stat(join(root, 'oclif.manifest.json')),
    theme: read(join(configDir, 'theme.json')),
  })
}

/** FNV-1a, 32 bits, as hex: a file name for a key (which the file holds in full). */
function fileName(key) {
  let h = 0x811c9dc5
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193)
  return `${(h >>> 0).toString(16).padStart(8, '0')}.txt`
}

/**
 * Prints the help kept for this request and returns true, or returns false and keeps what the
 * run about to start prints, when it qualifies (see above). `folder` is the code cache's folder.
 */
exports.printOrKeepHelp = function printOrKeepHelp(root, folder, argv) {
  if (process.stdout.isTTY || process.env.DEBUG) return false
  let key
  let file
  try {
    key = requestKey(root, argv)
    file = join(folder, 'help', fileName(key))
    const text = readFileSync(file, 'utf8')
    const newline = text.indexOf('\n')
    if (text.slice(0, newline) === key) {
      process.stdout.write(text.slice(newline + 1))
      return true
    }
  } catch {
    // None kept yet, or unreadable: oclif prints it, and it is kept below.
  }
  if (file) keep(file, key)
  return false
}

/** Records what the run writes, and at a clean exit writes it to `file` (in one rename). */
function keep(file, key) {
  const chunks = []
  let clean = true
  const out = process.stdout.write
  process.stdout.write = function (chunk, ...rest) {
    if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) chunks.push(Buffer.from(chunk))
    else clean = false
    return out.call(this, chunk, ...rest)
  }
  const err = process.stderr.write
  process.stderr.write = function (...args) {
    clean = false
    return err.apply(this, args)
  }
  process.once('exit', (code) => {
    if (!clean || code !== 0 || chunks.length === 0) return
    const temp = `${file}.${process.pid}`
    try {
      const dir = join(file, '..')
      mkdirSync(dir, {recursive: true})
      // Full: start again, so that the requests kept are the ones made lately.
      const names = readdirSync(dir)
      if (names.length >= MAX_FILES) for (const name of names) rmSync(join(dir, name), {force: true})
      writeFileSync(temp, Buffer.concat([Buffer.from(key + '\n'), ...chunks]))
      renameSync(temp, file)
    } catch {
      try {
        rmSync(temp, {force: true})
      } catch {
        // Nothing was written.
      }
    }
  })
}
