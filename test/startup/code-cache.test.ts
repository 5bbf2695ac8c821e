/**
 * The V8 code cache bin/run.js keeps in the user's cache folder, a file per kind of run holding
 * V8's data for each chunk of the build that kind loads: noted by a first run, written by the
 * second of its kind, used by the next, a file of its own for a new kind, and never a failure or a
 * word of output when it is stale, damaged or cannot be written: then bk runs from source and
 * writes it anew when it can.
 */
import {readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import vm from 'node:vm'
import {crc32} from 'node:zlib'
import {describe, expect, it} from 'vitest'

import {ROOT, runBk, tempDir} from '../helpers/bk.js'

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {version: string}).version
const KEY = `bk-${VERSION}-node-${process.versions.node}-${process.arch}`

interface Header {
  bundle: string
  kind: string
  /** Each chunk's path relative to dist/ and the length of its data, in the order of the data. */
  chunks: [string, number][]
  crc32: number
}

/** The cache file of runs that only show help (`bk help`, `bk <command> --help`). */
function cacheFileIn(base: string, name = 'help.v8'): string {
  return join(base, 'code-cache', KEY, name)
}

function readCache(file: string): {header: Header; data: Buffer} {
  const bytes = readFileSync(file)
  const newline = bytes.indexOf(10)
  return {header: JSON.parse(bytes.subarray(0, newline).toString()) as Header, data: bytes.subarray(newline + 1)}
}

function writeCache(file: string, header: Header, data: Buffer): void {
  writeFileSync(file, Buffer.concat([Buffer.from(JSON.stringify(header) + '\n'), data]))
}

/**
 * `bk help` with this cache folder: it must print the help and nothing else, anywhere. (Not
 * `bk --version`, which bin/run.js answers without loading the bundle.)
 */
async function help(env: Record<string, string>): Promise<void> {
  const result = await runBk(['help'], {env})
  expect(result.stderr).toBe('')
  expect(result.code).toBe(0)
  expect(result.stdout).toContain('USAGE')
}

/** Two runs of `bk help`: the first notes the kind, the second writes V8's data. */
async function warm(env: Record<string, string>): Promise<void> {
  await help(env)
  await help(env)
}

/** Whether the cache file holds data V8 takes for the build: valid header, data consistent with it. */
function isValid(file: string): boolean {
  const {header, data} = readCache(file)
  const buildId = readFileSync(join(ROOT, 'dist', 'bk.cjs'), 'latin1').split('\n', 1)[0]
  const length = header.chunks.reduce((sum, [, n]) => sum + n, 0)
  return header.bundle === buildId && length === data.length && header.crc32 === crc32(data)
}

/** The chunks a kind's file holds data for. */
function chunksIn(file: string): string[] {
  return readCache(file).header.chunks.map(([name]) => name)
}

describe('the code cache', () => {
  it("lives in $XDG_CACHE_HOME/bk, in a folder per bk, Node and architecture; a second run writes V8's data", async () => {
    if (process.platform === 'darwin' || process.platform === 'win32') return // other folders there
    const xdg = tempDir()
    const file = cacheFileIn(join(xdg, 'bk'))
    await help({XDG_CACHE_HOME: xdg})
    expect(readdirSync(join(xdg, 'bk', 'code-cache'))).toEqual([KEY])
    // A first run only notes its kind: a command run once does not pay for writing its code.
    expect(readCache(file).header).toMatchObject({chunks: [], kind: 'help'})
    await help({XDG_CACHE_HOME: xdg})
    expect(readCache(file).header).toMatchObject({kind: 'help'})
    expect(readCache(file).data.length).toBeGreaterThan(0)
    expect(isValid(file)).toBe(true)
    // The entry and the chunks help runs: oclif's, never a command's.
    expect(chunksIn(file)).toContain('bk.cjs')
    expect(chunksIn(file).length).toBeGreaterThan(1)
  })

  it("is used as it is by the next run of the same kind, a command's help too; a new kind has its own", async () => {
    const dir = tempDir()
    await warm({BK_CACHE_DIR: dir})
    const file = cacheFileIn(dir)
    const first = statSync(file)

    await help({BK_CACHE_DIR: dir})
    const commandHelp = await runBk(['businesses', 'list', '--help'], {env: {BK_CACHE_DIR: dir}})
    expect(commandHelp).toMatchObject({code: 0, stderr: ''})
    expect(commandHelp.stdout).toContain('USAGE')
    // Not rewritten: V8 accepted it (a refused cache is written anew).
    expect(statSync(file).mtimeMs).toBe(first.mtimeMs)
    expect(statSync(file).ino).toBe(first.ino)

    for (let run = 0; run < 2; run++) {
      const list = await runBk(['profiles', 'list', '--json'], {env: {BK_CACHE_DIR: dir}})
      expect(list.code, list.stderr).toBe(0)
    }
    // On Node 20 a command runs under a V8 flag of its own, and its cache says so (bin/run.js).
    const name = `${process.versions.node.startsWith('20.') ? 'liftoff-only.' : ''}profiles+list.v8`
    const own = cacheFileIn(dir, name)
    expect(readCache(own).header).toMatchObject({kind: 'profiles list'})
    expect(readCache(own).data.length).toBeGreaterThan(0)
    expect(isValid(own)).toBe(true)
    // A command reads the chunks help reads and its own besides, which help never loads.
    const helpChunks = chunksIn(file)
    const commandOnly = chunksIn(own).filter((c) => !helpChunks.includes(c))
    expect(commandOnly.length).toBeGreaterThan(0)
    // The help's file is as it was: each kind reads only the code it runs.
    expect(statSync(file).mtimeMs).toBe(first.mtimeMs)
    expect(readdirSync(join(dir, 'code-cache', KEY)).sort()).toEqual(['help.v8', name].sort())
  })

  it('a run of a kind that loads a chunk its file lacks writes the file anew with it, the others kept', async () => {
    const dir = tempDir()
    const file = cacheFileIn(
      dir,
      `${process.versions.node.startsWith('20.') ? 'liftoff-only.' : ''}transactions+get.v8`,
    )
    // Listing the fields needs no credentials and no id.
    for (let run = 0; run < 2; run++) {
      const fields = await runBk(['transactions', 'get', '--fields'], {env: {BK_CACHE_DIR: dir}})
      expect(fields.code, fields.stderr).toBe(0)
    }
    const before = chunksIn(file)
    // Another path through the same command: a missing id loads the id checks' chunk.
    const missing = await runBk(['transactions', 'get'], {env: {BK_CACHE_DIR: dir}})
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('transaction id')
    const after = chunksIn(file)
    expect(after.length).toBeGreaterThan(before.length)
    expect(after).toEqual(expect.arrayContaining(before))
    expect(isValid(file)).toBe(true)
  })

  it('damaged (a changed byte in the data): ignored without a word, and written anew', async () => {
    const dir = tempDir()
    await warm({BK_CACHE_DIR: dir})
    const file = cacheFileIn(dir)
    const {header, data} = readCache(file)
    const damaged = Buffer.from(data)
    const at = Math.floor(damaged.length / 2)
    damaged[at] = damaged[at]! ^ 0xff
    writeCache(file, header, damaged)
    expect(isValid(file)).toBe(false)

    await warm({BK_CACHE_DIR: dir})
    expect(isValid(file)).toBe(true)
    expect(readCache(file).header.kind).toBe('help')
  })

  it('not a cache at all (garbage, or an empty file): ignored without a word, and written anew', async () => {
    const dir = tempDir()
    await warm({BK_CACHE_DIR: dir})
    const file = cacheFileIn(dir)
    for (const junk of [Buffer.from('\u0000\u0001not json\n\u0002'), Buffer.alloc(0)]) {
      writeFileSync(file, junk)
      await warm({BK_CACHE_DIR: dir})
      expect(isValid(file)).toBe(true)
      expect(readCache(file).header.kind).toBe('help')
    }
  })

  it('stale (made for another build of the bundle): ignored without a word, and written anew', async () => {
    const dir = tempDir()
    await warm({BK_CACHE_DIR: dir})
    const file = cacheFileIn(dir)
    const {header, data} = readCache(file)
    writeCache(file, {...header, bundle: '// bk bundle 00000000000000000000000000000000'}, data)

    await warm({BK_CACHE_DIR: dir})
    expect(readCache(file).header).toMatchObject({bundle: header.bundle, kind: 'help'})
    expect(isValid(file)).toBe(true)
  })

  it('refused by V8 (data of another script under a valid header): run from source, and written anew', async () => {
    const dir = tempDir()
    await warm({BK_CACHE_DIR: dir})
    const file = cacheFileIn(dir)
    const {header} = readCache(file)
    const other = new vm.Script('"another script"').createCachedData()
    writeCache(file, {...header, chunks: [['bk.cjs', other.length]], crc32: crc32(other)}, other)

    await warm({BK_CACHE_DIR: dir})
    const rewritten = readCache(file)
    expect(rewritten.data.equals(other)).toBe(false)
    expect(rewritten.header.kind).toBe('help')
    expect(isValid(file)).toBe(true)
  })

  it('that cannot be written (a file where its folder would be): bk runs, without a word', async () => {
    const blocker = join(tempDir(), 'not-a-folder')
    writeFileSync(blocker, 'in the way')
    await warm({BK_CACHE_DIR: blocker})
    expect(readFileSync(blocker, 'utf8')).toBe('in the way')
  })

  it('runs code that loads a module from outside the bundle the same from the cache as without it', async () => {
    // webhooks verify loads node:fs/promises on demand; from V8's cached code an import() would
    // find no loader (scripts/bundle.js turns them into require()).
    const dir = tempDir()
    const args = ['webhooks', 'verify', '--id', 'msg_1', '--signature', 'v1,x', '--body', join(dir, 'nope.json')]
    for (const run of ['notes the kind', 'writes the cache', 'runs from it']) {
      const result = await runBk([...args, '--jwks', join(ROOT, 'test', 'fixtures', 'webhooks', 'jwks.json')], {
        env: {BK_CACHE_DIR: dir},
      })
      expect(result.code, `${run}: ${result.stderr}`).toBe(2)
      expect(result.stderr).toContain('nope.json')
    }
  })

  it('turned off by NODE_DISABLE_COMPILE_CACHE: nothing is written', async () => {
    const dir = tempDir()
    await help({BK_CACHE_DIR: dir, NODE_DISABLE_COMPILE_CACHE: '1'})
    expect(readdirSync(dir)).toEqual([])
  })
})
