// The build's changes to dependencies (scripts/bundle.js applies them as it bundles), each for a
// cost measured on every start of bk (docs/performance.md, "Build patches"). Each names the
// version of the package it was written for, which package.json pins exactly (with `overrides`
// for the packages bk does not depend on directly), and what it buys. The build stops when an
// installed or pinned version is another, when a text a patch replaces is no longer there, when a
// file a patch replaces whole is not the file it was written for (its SHA-256), or when a patch
// applied to nothing: the change would otherwise be made blindly to code nobody read.
import {createHash} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

/**
 * Each patch: `package` at `version` (and the other packages it relies on, `relies`), `buys`
 * (what it saves, on which runs), and its edits, each of one file of the package: `from` → `to`
 * (the first occurrence), or `whole` for a file whose SHA-256 is `sha256`, or `transform` for
 * every file `files` matches.
 */
export const PATCHES = [
  {
    id: 'oclif-sort-ids',
    package: '@oclif/core',
    version: '4.14.0',
    buys: "oclif sorts the command ids with localeCompare on every start, and the first use of ICU's collator costs more than the rest of `bk --version`. Ids are lowercase words joined by ':' and '-', which both orders sort alike (scripts/bundle.js checks this build's).",
    edits: [
      {
        file: 'lib/config/plugin.js',
        from: '.sort((a, b) => a.id.localeCompare(b.id))',
        to: '.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))',
      },
    ],
  },
  {
    id: 'oclif-os-is-wsl',
    package: '@oclif/core',
    version: '4.14.0',
    relies: {'wsl-utils': '0.4.0', 'is-wsl': '3.1.1'},
    buys: "oclif asks wsl-utils whether this is WSL, which loads node:child_process and the rest of wsl-utils for that one answer, on every start; wsl-utils's isWsl is is-wsl's, asked directly.",
    edits: [
      {
        file: 'lib/util/os.js',
        from: "return (await import('wsl-utils')).isWsl ? 'wsl' : (0, node_os_1.platform)();",
        to: "return (await import('is-wsl')).default ? 'wsl' : (0, node_os_1.platform)();",
      },
    ],
  },
  {
    id: 'oclif-read-sync',
    package: '@oclif/core',
    version: '4.14.0',
    buys: 'oclif reads its package.json and manifest with fs/promises on every start: loading that module, and a trip through the thread pool for each file, cost more than reading two small files at once. Still async, so a missing file is a rejection as before.',
    edits: [
      {
        file: 'lib/util/fs.js',
        from: "const contents = await (0, promises_1.readFile)(path, 'utf8');",
        to: "const contents = (0, node_fs_1.readFileSync)(path, 'utf8');",
      },
    ],
  },
  {
    id: 'undici-without-node-http',
    package: 'undici',
    version: '7.30.2',
    buys: "undici loads node:http on every API command: its HTTP/1.1 client for its default limit on the size of a response's headers (Node's own, --max-http-header-size), asked when a client is made instead and only when bk gives no limit of its own; its utilities for the one class they compare a stream with when destroying it, which only a stream made by node:http can be.",
    edits: [
      {
        file: 'lib/dispatcher/client.js',
        from: `const getDefaultNodeMaxHeaderSize = http &&
  http.maxHeaderSize &&
  Number.isInteger(http.maxHeaderSize) &&
  http.maxHeaderSize > 0
  ? () => http.maxHeaderSize
  : () => { throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid') }`,
        to: `const getDefaultNodeMaxHeaderSize = () => {
  const {maxHeaderSize} = require('node:http')
  if (Number.isInteger(maxHeaderSize) && maxHeaderSize > 0) return maxHeaderSize
  throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid')
}`,
      },
      {file: 'lib/dispatcher/client.js', from: "const http = require('node:http')", to: ''},
      {file: 'lib/core/util.js', from: "const { IncomingMessage } = require('node:http')", to: ''},
      {
        file: 'lib/core/util.js',
        from: 'Object.getPrototypeOf(stream).constructor === IncomingMessage',
        to: "Object.getPrototypeOf(stream).constructor === require('node:http').IncomingMessage",
      },
    ],
  },
  {
    id: 'undici-without-http2',
    package: 'undici',
    version: '7.30.2',
    buys: "undici's HTTP/2 client loads node:http2 whenever undici loads, a few milliseconds of every API command; bk's Pool never offers HTTP/2 (no allowH2), so it is left out.",
    edits: [
      {
        file: 'lib/dispatcher/client-h2.js',
        sha256: 'e992a732c30c582676caf23193fb58097b4233ab328d0a77b7ff2c0338ad1eca',
        whole: "module.exports = function connectH2() { throw new Error('bk speaks HTTP/1.1 only') }",
      },
    ],
  },
  {
    id: 'oclif-lazy-requires',
    package: '@oclif/core',
    version: '4.14.0',
    buys: "oclif's modules require, when they load, every module they might use: loading its entry loads its help, themes, colour detection, TypeScript path mapping and performance hooks, with the built-in modules they need, on every start, help or not. Each such require() is made when its module is first used (lazyRequires in scripts/bundle.js).",
    edits: [{files: /^lib\/.*\.js$/, transform: 'lazyRequires'}],
  },
  {
    id: 'autocomplete-bash-once',
    package: '@oclif/plugin-autocomplete',
    version: '3.2.56',
    buys: "Not time: the bash completion for a CLI whose topics are separated by spaces offers a topic once for each of its commands (`bk <TAB>` gave bills eight times, `bk bills <TAB>` maps three times), which a shell that lists or cycles the raw answers shows; every answer is now offered once (test/commands/completion.test.ts). The plugin's latest release still has it.",
    edits: [
      {
        file: 'lib/autocomplete/bash-spaces.js',
        from: 'COMPREPLY=($(compgen -W "$opts" -- "\\${cur}"))',
        to: 'COMPREPLY=($(compgen -W "$opts" -- "\\${cur}" | LC_ALL=C sort -u))',
      },
    ],
  },
  {
    id: 'autocomplete-bash-files',
    package: '@oclif/plugin-autocomplete',
    version: '3.2.56',
    buys: "Not time: the bash completion for a CLI whose topics are separated by spaces registers its function without `-o default`, so where it offers nothing (the FILE of `bk bills import`) bash completes no file name either. The plugin's script for colon-separated topics has the option; this one now has it too (test/commands/completion.test.ts). The plugin's latest release (4.0.5) still lacks it.",
    edits: [
      {
        file: 'lib/autocomplete/bash-spaces.js',
        from: 'complete -F _<CLI_BIN>_autocomplete <CLI_BIN>',
        to: 'complete -o default -F _<CLI_BIN>_autocomplete <CLI_BIN>',
      },
    ],
  },
  {
    id: 'autocomplete-bash-flags-after-values',
    package: '@oclif/plugin-autocomplete',
    version: '3.2.56',
    buys: 'Not time: the bash completion for a CLI whose topics are separated by spaces names the command of a flag being typed by joining every word before it, so once an argument or another flag was typed (`bk bills import bills.csv --<TAB>`, `bk bills import --dry-run --<TAB>`) it found no command and offered no flag. It now takes the longest run of leading words that names a command or topic (test/commands/completion.test.ts).',
    edits: [
      {
        file: 'lib/autocomplete/bash-spaces.js',
        from: 'normalizedCommand="$( printf "%s" "$(join_by ":" "\\${COMP_WORDS[@]:1:($COMP_CWORD - 1)}")" )"',
        to: '# The command: the longest run of the words typed before this flag that names a command or\n    # topic (an argument or a flag and its value after it are not part of it)\n    normalizedCommand=""\n    local word candidate\n    for word in "\\${COMP_WORDS[@]:1:($COMP_CWORD - 1)}"; do\n      candidate="\\${normalizedCommand:+$normalizedCommand:}$word"\n      printf "%s\\\\n" "$commands" | awk -v c="$candidate" \'$0 == c || index($0, c " ") == 1 || index($0, c ":") == 1 { found = 1 } END { exit !found }\' || break\n      normalizedCommand="$candidate"\n    done',
      },
    ],
  },
]

/**
 * Packages whose output the build reads as text (not patched, but the build depends on their
 * exact output): esbuild's CommonJS (asCommonJS and synchronousCommands in scripts/bundle.js).
 */
export const READ_AS_TEXT = [{package: 'esbuild', version: '0.28.2'}]

/** The version of `name` installed under `root`, or undefined. */
function installedVersion(root, name) {
  try {
    return JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version
  } catch {
    return undefined
  }
}

/** What package.json pins `name` to: its direct dependency, else its override. */
function pinnedVersion(pjson, name) {
  const direct = pjson.dependencies?.[name] ?? pjson.devDependencies?.[name]
  const override = pjson.overrides?.[name]
  return override && !override.startsWith('$') ? override : direct
}

const sha256 = (text) => createHash('sha256').update(text).digest('hex')

/**
 * Every reason the patches may not be applied under `root` (the project: its package.json and
 * node_modules); none when each package is installed and pinned at the version its patches were
 * written for and each edit finds what it was written for.
 */
export function patchProblems(root, patches = PATCHES, readAsText = READ_AS_TEXT) {
  const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const problems = []
  const versions = new Map()
  for (const p of patches) {
    versions.set(`${p.package}@${p.version}`, [p.package, p.version, p.id])
    for (const [name, version] of Object.entries(p.relies ?? {}))
      versions.set(`${name}@${version}`, [name, version, p.id])
  }
  for (const r of readAsText) versions.set(`${r.package}@${r.version}`, [r.package, r.version, 'the build'])
  for (const [name, version, by] of versions.values()) {
    const installed = installedVersion(root, name)
    if (installed !== version)
      problems.push(`${by} was written for ${name} ${version}, but ${installed ?? 'none'} is installed`)
    const pinned = pinnedVersion(pjson, name)
    if (pinned !== version)
      problems.push(`${by} was written for ${name} ${version}, but package.json pins ${pinned ?? 'nothing'}`)
  }
  if (problems.length) return problems
  for (const p of patches) {
    for (const edit of p.edits) {
      if (edit.transform) continue
      const path = join(root, 'node_modules', p.package, edit.file)
      let text
      try {
        text = readFileSync(path, 'utf8')
      } catch {
        problems.push(`${p.id}: ${p.package}/${edit.file} is missing`)
        continue
      }
      if (edit.whole !== undefined && sha256(text) !== edit.sha256)
        problems.push(`${p.id}: ${p.package}/${edit.file} is not the file the patch replaces (SHA-256 ${sha256(text)})`)
      if (edit.from !== undefined && !text.includes(edit.from))
        problems.push(`${p.id}: ${p.package}/${edit.file} no longer holds: ${edit.from}`)
    }
  }
  return problems
}

/** Throws, naming each problem, unless the patches may be applied under `root`. */
export function checkPatches(root, patches = PATCHES) {
  const problems = patchProblems(root, patches)
  if (problems.length)
    throw new Error(
      `The build's dependency patches do not fit what is installed (scripts/dependency-patches.js):\n- ${problems.join('\n- ')}`,
    )
}
