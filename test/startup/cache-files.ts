/**
 * Reading and writing the code cache's files as bk does (src/startup/cache-file.ts), for the
 * start-up tests, and a cache planted by someone else: V8's data of another program under bk's
 * header, which runs that program if bk hands it to V8.
 */
import {execFileSync} from 'node:child_process'
import {createHmac} from 'node:crypto'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {crc32} from 'node:zlib'

import {ROOT, tempDir} from '../helpers/bk.js'

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {version: string}).version
export const KEY = `bk-${VERSION}-node-${process.versions.node}-${process.arch}`

export interface Header {
  bundle: string
  kind: string
  /** Each chunk's path relative to dist/ and the length of its data, in the order of the data. */
  chunks: [string, number][]
}

/** A cache folder and a config folder (where the key lives), used together by every run. */
export interface Dirs {
  cache: string
  config: string
}

export function freshDirs(): Dirs {
  return {cache: tempDir(), config: tempDir()}
}

/** A kind's cache file (default: runs that only show help). */
export function cacheFileIn(base: string, name = 'help.v8'): string {
  return join(base, 'code-cache', KEY, name)
}

export function keyOf(dirs: Dirs): Buffer {
  return readFileSync(join(dirs.config, 'code-cache.key'))
}

/** The build id bk writes in each header: the first line of dist/bk.cjs. */
export function buildId(): string {
  return readFileSync(join(ROOT, 'dist', 'bk.cjs'), 'latin1').split('\n', 1)[0]!
}

export function readCache(file: string): {mac: string; header: Header; data: Buffer} {
  const bytes = readFileSync(file)
  const first = bytes.indexOf(10)
  const second = bytes.indexOf(10, first + 1)
  return {
    mac: bytes.subarray(0, first).toString(),
    header: JSON.parse(bytes.subarray(first + 1, second).toString()) as Header,
    data: bytes.subarray(second + 1),
  }
}

/** A cache file as bk writes it, authenticated with `key`. */
export function cacheBytes(key: Buffer, header: Header, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(JSON.stringify(header) + '\n'), data])
  return Buffer.concat([Buffer.from(createHmac('sha256', key).update(body).digest('hex') + '\n'), body])
}

export function writeCache(file: string, key: Buffer, header: Header, data: Buffer): void {
  writeFileSync(file, cacheBytes(key, header, data), {mode: 0o600})
}

/** Whether the file holds data bk takes: authenticated with the user's key, for this build. */
export function isValid(file: string, dirs: Dirs): boolean {
  const bytes = readFileSync(file)
  const first = bytes.indexOf(10)
  const mac = createHmac('sha256', keyOf(dirs))
    .update(bytes.subarray(first + 1))
    .digest('hex')
  const {header, data} = readCache(file)
  const length = header.chunks.reduce((sum, [, n]) => sum + n, 0)
  return mac === bytes.subarray(0, first).toString() && header.bundle === buildId() && length === data.length
}

/** The chunks a kind's file holds data for. */
export function chunksIn(file: string): string[] {
  return readCache(file).header.chunks.map(([name]) => name)
}

/**
 * V8's data for a program that writes `marker` (and does nothing else), whose source has the
 * length of dist/bk.cjs's: V8 checks only that length, its version and its flags, so bk would run
 * this program instead of itself if it handed the data to V8. Made by a plain `node`, whose V8
 * flags are those of a help run.
 */
export function plantedCode(marker: string): Buffer {
  const out = join(tempDir(), 'planted.bin')
  const program = `
    const {readFileSync, writeFileSync} = require('node:fs')
    const Module = require('node:module')
    const {Script} = require('node:vm')
    const [entry, marker, out] = process.argv.slice(1)
    const length = readFileSync(entry, 'latin1').length
    const code = 'require("node:fs").writeFileSync(' + JSON.stringify(marker) + ', "ran");'
    const script = new Script(Module.wrap(code + ' '.repeat(length - code.length)), {filename: entry})
    // Compiles the wrapper's body into the data, without running it here.
    script.runInThisContext()({}, () => ({writeFileSync() {}}))
    writeFileSync(out, script.createCachedData())
  `
  execFileSync(process.execPath, ['-e', program, join(ROOT, 'dist', 'bk.cjs'), marker, out])
  return readFileSync(out)
}

/**
 * The planted code as the cache of `bk help`, in the format of bk before its cache was
 * authenticated: a header line with a CRC-32 of the data, which anyone can compute.
 */
export function plantedUnauthenticated(file: string, code: Buffer): void {
  const header = {bundle: buildId(), kind: 'help', chunks: [['bk.cjs', code.length]], crc32: crc32(code)}
  writeFileSync(file, Buffer.concat([Buffer.from(JSON.stringify(header) + '\n'), code]), {mode: 0o600})
}
