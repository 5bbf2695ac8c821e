#!/usr/bin/env node
// bk as one file for Linux x64 (docs/install.md): Node's single executable application, made from
// the Node that runs this script and the build `npm run build` left in dist/. The package's files,
// as npm would install them (package.json "files", with the runtime dependencies: the keychain's
// native binding and jq's WebAssembly), become the executable's assets; its main script,
// src/startup/single-executable.ts, writes them to bk's cache on first run and starts bk there.
// The steps are Node's own (nodejs.org/api/single-executable-applications.html): a preparation
// blob from a config, a copy of the node binary, the blob injected with postject under the fuse.
//
//   node scripts/build-sea.js [--out DIR]     (default dist-sea/; writes DIR/bk)
import {execFileSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join, relative, resolve, sep} from 'node:path'
import {fileURLToPath} from 'node:url'

import {build} from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const require = createRequire(import.meta.url)
/** The fuse Node's binary carries for an injected blob (Node's documentation names it). */
export const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'
const INDEX_ASSET = 'bk-files.json'

/** Why a single executable cannot be built with this Node on this machine, or undefined. */
export function seaUnsupported(node = process.execPath) {
  if (`${process.platform}-${process.arch}` !== 'linux-x64')
    return `single executables are built for linux-x64 only, this is ${process.platform}-${process.arch}`
  const [major, minor] = process.versions.node.split('.').map(Number)
  if (major < 20 || (major === 20 && minor < 12)) return `Node ${process.versions.node} has no SEA assets (20.12+)`
  if (!readFileSync(node).includes(SEA_FUSE)) return `${node} has no ${SEA_FUSE} (a Node built without SEA)`
  return undefined
}

/** The files under `dir` (relative, forward slashes), sorted, minus those `skip` matches. */
function filesUnder(dir, skip = /^$/) {
  return readdirSync(dir, {recursive: true})
    .map((f) => f.split(sep).join('/'))
    .filter((f) => statSync(join(dir, f)).isFile() && !skip.test(f))
    .sort()
}

/** A package's folder as Node resolves it from bk's root. */
function packageDir(name) {
  return dirname(require.resolve(`${name}/package.json`, {paths: [root]}))
}

/**
 * The files of the package folder the executable runs from, as [path in it, path on disk]: what
 * npm publishes (package.json "files") and, for each runtime dependency, its installed files
 * (types, docs and ES module copies left out), the platform packages of the native one included.
 */
function packageFiles() {
  const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const files = [['package.json', join(root, 'package.json')]]
  for (const entry of pjson.files) {
    const path = join(root, entry)
    if (!existsSync(path)) throw new Error(`${entry} (package.json "files") is missing: run npm run build first`)
    if (statSync(path).isDirectory()) for (const f of filesUnder(path)) files.push([`${entry}/${f}`, join(path, f)])
    else files.push([entry, path])
  }
  const skip = /(\.d\.[cm]?ts|\.mjs|\.md|\.map)$/
  const seen = new Set()
  const addPackage = (name) => {
    if (seen.has(name)) return
    seen.add(name)
    const dir = packageDir(name)
    for (const f of filesUnder(dir, skip)) files.push([`node_modules/${name}/${f}`, join(dir, f)])
    const own = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    for (const dep of Object.keys(own.dependencies ?? {})) addPackage(dep)
    // The native binding's build for each platform is an optional dependency: the one installed here.
    for (const dep of Object.keys(own.optionalDependencies ?? {}))
      if (existsSync(join(root, 'node_modules', dep))) addPackage(dep)
  }
  for (const name of Object.keys(pjson.dependencies)) addPackage(name)
  return files
}

/** Builds `out`/bk; returns its path. */
export async function buildSea(out = join(root, 'dist-sea')) {
  const why = seaUnsupported()
  if (why) throw new Error(`cannot build the single executable: ${why}`)
  const work = join(out, 'work')
  rmSync(out, {recursive: true, force: true})
  mkdirSync(work, {recursive: true})

  const files = packageFiles()
  const digest = createHash('sha256')
  for (const [path, disk] of files) digest.update(`${path}\0`).update(readFileSync(disk)).update('\0')
  const index = {
    digest: digest.digest('hex').slice(0, 32),
    files: files.map(([path, disk]) => ({path, executable: (statSync(disk).mode & 0o100) !== 0})),
  }
  writeFileSync(join(work, INDEX_ASSET), JSON.stringify(index))

  const unbundledStartup = join(root, 'dist', 'unbundled', 'startup')
  await build({
    stdin: {
      contents: `require('./single-executable.js').runSingleExecutable(process.argv.slice(2))`,
      resolveDir: unbundledStartup,
      loader: 'js',
    },
    outfile: join(work, 'main.cjs'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: `node${process.versions.node}`,
    legalComments: 'none',
    logLevel: 'warning',
  })
  const config = {
    main: join(work, 'main.cjs'),
    output: join(work, 'prep.blob'),
    disableExperimentalSEAWarning: true,
    assets: {[INDEX_ASSET]: join(work, INDEX_ASSET), ...Object.fromEntries(files)},
  }
  writeFileSync(join(work, 'sea-config.json'), JSON.stringify(config, null, 2))
  execFileSync(process.execPath, ['--experimental-sea-config', join(work, 'sea-config.json')], {stdio: 'pipe'})

  const bk = join(out, 'bk')
  copyFileSync(process.execPath, bk)
  chmodSync(bk, 0o755)
  const postject = join(packageDir('postject'), 'dist', 'cli.js')
  // postject prints a warning per ELF note it cannot name; only a failure matters.
  execFileSync(process.execPath, [postject, bk, 'NODE_SEA_BLOB', config.output, '--sentinel-fuse', SEA_FUSE], {
    stdio: 'pipe',
  })
  rmSync(work, {recursive: true, force: true})
  // The notices of every bundled package travel with the binary.
  copyFileSync(join(root, 'dist', 'bk.cjs.LICENSES.txt'), join(out, 'LICENSES.txt'))
  return bk
}

if (resolve(process.argv[1] ?? '') === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--out')
  const started = Date.now()
  const bk = await buildSea(at > 0 ? resolve(process.argv[at + 1]) : undefined)
  const size = statSync(bk).size / 1024 / 1024
  console.log(
    `wrote ${relative(process.cwd(), bk)} (${size.toFixed(1)} MB) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  )
}
