#!/usr/bin/env node
// The .deb of bk for amd64 (docs/install.md), from the single executable `npm run build:sea`
// wrote: the binary as /usr/bin/bk, bash and zsh completions as oclif's autocomplete plugin
// writes them (bk itself makes them), and bk(1) from the help texts (scripts/man-page.js).
// Packed with dpkg-deb, files owned by root whoever builds it, compressed at gzip's level 3 (level
// 9 takes three times as long, for a package a few percent smaller).
//
//   node scripts/build-deb.js [--out DIR]     (default dist-sea/; writes DIR/bk_VERSION_amd64.deb)
import {execFileSync} from 'node:child_process'
import {chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, relative, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {gzipSync} from 'node:zlib'

import {manPage} from './man-page.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/** The shell completions bk writes with `bk autocomplete create`, read from a throwaway cache. */
function completions(bk) {
  const cache = mkdtempSync(join(tmpdir(), 'bk-completions-'))
  try {
    execFileSync(bk, ['autocomplete', 'create'], {
      env: {PATH: process.env.PATH, HOME: cache, XDG_CACHE_HOME: cache, CI: '1'},
      stdio: 'pipe',
    })
    const functions = join(cache, 'bk', 'autocomplete', 'functions')
    return {
      bash: readFileSync(join(functions, 'bash', 'bk.bash'), 'utf8'),
      zsh: readFileSync(join(functions, 'zsh', '_bk'), 'utf8'),
    }
  } finally {
    rmSync(cache, {recursive: true, force: true})
  }
}

/** Writes `text` to `path` under the package tree, making its folders. */
function put(tree, path, data, mode = 0o644) {
  const file = join(tree, path)
  mkdirSync(dirname(file), {recursive: true, mode: 0o755})
  writeFileSync(file, data)
  chmodSync(file, mode)
}

/** Builds the .deb from `out`/bk; returns its path. */
export function buildDeb(out = join(root, 'dist-sea')) {
  const bk = join(out, 'bk')
  if (!existsSync(bk)) throw new Error(`${bk} is missing: run npm run build:sea first`)
  const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const tree = join(out, 'deb')
  rmSync(tree, {recursive: true, force: true})
  mkdirSync(tree, {recursive: true, mode: 0o755})

  mkdirSync(join(tree, 'usr', 'bin'), {recursive: true, mode: 0o755})
  copyFileSync(bk, join(tree, 'usr', 'bin', 'bk'))
  chmodSync(join(tree, 'usr', 'bin', 'bk'), 0o755)
  const {bash, zsh} = completions(bk)
  put(tree, 'usr/share/bash-completion/completions/bk', bash)
  put(tree, 'usr/share/zsh/vendor-completions/_bk', zsh)
  put(tree, 'usr/share/man/man1/bk.1.gz', gzipSync(manPage(), {level: 9}))
  put(tree, 'usr/share/doc/bk/copyright', readFileSync(join(out, 'LICENSES.txt')))

  const installedKb = Math.ceil(
    Number(execFileSync('du', ['-sk', '--apparent-size', join(tree, 'usr')], {encoding: 'utf8'}).split('\t')[0]),
  )
  const control = [
    'Package: bk',
    `Version: ${pjson.version}`,
    'Architecture: amd64',
    'Section: utils',
    'Priority: optional',
    // What Node's own binary and the keychain's binding link against.
    'Depends: libc6 (>= 2.28), libstdc++6, libgcc-s1',
    `Installed-Size: ${installedKb}`,
    'Maintainer: bk maintainers <bk@example.invalid>',
    'Description: the command line for the bookkeeping service',
    ` ${pjson.description}. One executable with Node inside: no Node installation is needed.`,
    '',
  ].join('\n')
  put(tree, 'DEBIAN/control', control)

  const deb = join(out, `bk_${pjson.version}_amd64.deb`)
  execFileSync('dpkg-deb', ['--root-owner-group', '-Zgzip', '-z3', '--build', tree, deb], {stdio: 'pipe'})
  rmSync(tree, {recursive: true, force: true})
  return deb
}

if (resolve(process.argv[1] ?? '') === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--out')
  const started = Date.now()
  const deb = buildDeb(at > 0 ? resolve(process.argv[at + 1]) : undefined)
  console.log(`wrote ${relative(process.cwd(), deb)} in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}
