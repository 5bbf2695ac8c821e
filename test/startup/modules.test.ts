/**
 * The start-up modules (src/startup/) on their own, on real files in temporary folders; the
 * end-to-end behaviour through bin/run.js is in the other files of this folder.
 */
import {chmodSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {decodeCacheFile, encodeCacheFile} from '../../src/startup/cache-file.js'
import {cacheKey, readCacheKey} from '../../src/startup/cache-key.js'
import {cacheLocation, codeCacheOff} from '../../src/startup/cache-location.js'
import {loadBuild} from '../../src/startup/chunk-loader.js'
import {isPrivateFolderChain, readPrivateFile} from '../../src/startup/private-files.js'
import {cacheFileName, kindOfRun, onlyHelpOrVersion} from '../../src/startup/run-kind.js'
import {storedHelp} from '../../src/startup/stored-help.js'
import {versionLine} from '../../src/startup/version-line.js'
import {tempDir} from '../helpers/bk.js'

const posix = process.platform !== 'win32'
const mode = (path: string) => statSync(path).mode & 0o777

describe('run-kind', () => {
  it('tells runs that only show help or the version, and names each kind', () => {
    for (const argv of [[], ['help'], ['bills', '--help'], ['transactions', 'get', '-h'], ['x', '--version']])
      expect(onlyHelpOrVersion(argv), argv.join(' ')).toBe(true)
    expect(onlyHelpOrVersion(['transactions', 'get', 'txn_1'])).toBe(false)
    expect(kindOfRun(['bills', '--help'])).toBe('help')
    expect(kindOfRun(['transactions', 'get', 'txn_1', '--json'])).toBe('transactions get')
    expect(kindOfRun(['--json', 'profiles', 'list'])).toBe('profiles list')
    expect(kindOfRun(['-x'])).toBe('-x')
  })

  it('gives two kinds two file names, also where case is ignored', () => {
    expect(cacheFileName('transactions get')).toBe('transactions+get.v8')
    expect(cacheFileName('api GET')).not.toBe(cacheFileName('api get'))
    expect(cacheFileName('a/b')).toBe('a_2f_b.v8')
    expect(cacheFileName('../x')).not.toContain('/')
  })
})

describe('cache-file', () => {
  const key = Buffer.alloc(32, 1)
  const expected = {bundle: '// bk bundle 1', kind: 'help'}
  const contents = {
    ...expected,
    chunks: new Map([
      ['bk.cjs', Buffer.from('abc')],
      ['chunks/x.cjs', Buffer.from('de')],
    ]),
  }

  it('reads back what it wrote, with the same key, build and kind', () => {
    const decoded = decodeCacheFile(key, encodeCacheFile(key, contents), expected)
    expect(decoded).toEqual(contents)
    const note = encodeCacheFile(key, {...expected, chunks: new Map()})
    expect(decodeCacheFile(key, note, expected)?.chunks.size).toBe(0)
  })

  it('refuses another key, a changed byte, another build or kind, and garbage', () => {
    const bytes = encodeCacheFile(key, contents)
    expect(decodeCacheFile(Buffer.alloc(32, 2), bytes, expected)).toBeUndefined()
    for (const at of [0, 70, bytes.length - 1]) {
      const changed = Buffer.from(bytes)
      changed[at] = changed[at]! ^ 1
      expect(decodeCacheFile(key, changed, expected), `byte ${at}`).toBeUndefined()
    }
    expect(decodeCacheFile(key, bytes.subarray(0, -1), expected)).toBeUndefined()
    expect(decodeCacheFile(key, bytes, {...expected, bundle: '// bk bundle 2'})).toBeUndefined()
    expect(decodeCacheFile(key, bytes, {...expected, kind: 'bills import'})).toBeUndefined()
    for (const junk of [Buffer.alloc(0), Buffer.from('{}\n'), Buffer.alloc(100, 10)])
      expect(decodeCacheFile(key, junk, expected)).toBeUndefined()
  })
})

describe.skipIf(!posix)('cache-key', () => {
  it('is made on first use, 0600 in a 0700 folder, and the same afterwards', () => {
    const file = join(tempDir(), 'config', 'bk', 'code-cache.key')
    expect(readCacheKey(file)).toBeUndefined()
    const key = cacheKey(file)
    expect(key?.length).toBe(32)
    expect(mode(file)).toBe(0o600)
    expect(mode(join(file, '..'))).toBe(0o700)
    expect(cacheKey(file)).toEqual(key)
    expect(readCacheKey(file)).toEqual(key)
  })

  it('is no key when others may read or write it, when it is a link, or of another length; left as it is', () => {
    const dir = tempDir()
    const file = join(dir, 'code-cache.key')
    const key = cacheKey(file)!
    chmodSync(file, 0o640)
    expect(cacheKey(file)).toBeUndefined()
    expect(readFileSync(file)).toEqual(key)
    expect(mode(file)).toBe(0o640)

    chmodSync(file, 0o600)
    const link = join(dir, 'link.key')
    symlinkSync(file, link)
    expect(cacheKey(link)).toBeUndefined()

    writeFileSync(file, Buffer.alloc(16), {mode: 0o600})
    expect(cacheKey(file)).toBeUndefined()
  })
})

describe.skipIf(!posix)('private-files', () => {
  it('trusts a chain of the user own private folders, missing ones too, from a base that may be a link', () => {
    const base = tempDir()
    const folder = join(base, 'code-cache', 'bk-1')
    expect(isPrivateFolderChain(base, folder)).toBe(true)
    mkdirSync(folder, {recursive: true, mode: 0o700})
    expect(isPrivateFolderChain(base, folder)).toBe(true)
    const linked = join(tempDir(), 'cache')
    symlinkSync(base, linked)
    expect(isPrivateFolderChain(linked, join(linked, 'code-cache', 'bk-1'))).toBe(true)
    // 0755 is the user's own and writable by no one else.
    chmodSync(join(base, 'code-cache'), 0o755)
    expect(isPrivateFolderChain(base, folder)).toBe(true)
  })

  it('refuses a folder others may write, a link below the base, or a file where a folder should be', () => {
    const base = tempDir()
    const folder = join(base, 'code-cache', 'bk-1')
    mkdirSync(folder, {recursive: true, mode: 0o700})
    chmodSync(folder, 0o770)
    expect(isPrivateFolderChain(base, folder)).toBe(false)
    chmodSync(folder, 0o700)
    chmodSync(base, 0o702)
    expect(isPrivateFolderChain(base, folder)).toBe(false)

    const other = tempDir()
    const elsewhere = tempDir()
    mkdirSync(join(elsewhere, 'bk-1'), {mode: 0o700})
    symlinkSync(elsewhere, join(other, 'code-cache'))
    expect(isPrivateFolderChain(other, join(other, 'code-cache', 'bk-1'))).toBe(false)

    const third = tempDir()
    writeFileSync(join(third, 'code-cache'), '')
    expect(isPrivateFolderChain(third, join(third, 'code-cache', 'bk-1'))).toBe(false)
  })

  it('reads a private file, not one others may write, nor a link, nor a folder', () => {
    const dir = tempDir()
    const file = join(dir, 'f')
    writeFileSync(file, 'data', {mode: 0o600})
    expect(readPrivateFile(file)?.toString()).toBe('data')
    expect(readPrivateFile(join(dir, 'missing'))).toBeUndefined()
    symlinkSync(file, join(dir, 'link'))
    expect(readPrivateFile(join(dir, 'link'))).toBeUndefined()
    expect(readPrivateFile(dir)).toBeUndefined()
    chmodSync(file, 0o644)
    expect(readPrivateFile(file)?.toString()).toBe('data')
    expect(readPrivateFile(file, 0o077)).toBeUndefined()
    chmodSync(file, 0o664)
    expect(readPrivateFile(file)).toBeUndefined()
  })
})

describe('cache-location', () => {
  it('is off under CI unless BK_CODE_CACHE=1, with BK_CODE_CACHE=0 or NODE_DISABLE_COMPILE_CACHE, and on Windows', () => {
    expect(codeCacheOff({}, 'linux')).toBeUndefined()
    expect(codeCacheOff({CI: 'true'}, 'linux')).toBeDefined()
    expect(codeCacheOff({CI: 'true', BK_CODE_CACHE: '1'}, 'linux')).toBeUndefined()
    expect(codeCacheOff({BK_CODE_CACHE: '0'}, 'linux')).toBeDefined()
    expect(codeCacheOff({NODE_DISABLE_COMPILE_CACHE: '1', BK_CODE_CACHE: '1'}, 'linux')).toBeDefined()
    expect(codeCacheOff({}, 'win32')).toBeDefined()
  })

  it('keeps the cache in the cache folder and the key in the config folder, never inside the cache', () => {
    if (process.platform === 'darwin') return // ~/Library/Caches there
    const at = cacheLocation('1.2.3', {HOME: '/home/u'})
    expect(at).toEqual({
      base: join('/home/u', '.cache', 'bk'),
      folder: join('/home/u', '.cache', 'bk', 'code-cache', `bk-1.2.3-node-${process.versions.node}-${process.arch}`),
      keyFile: join('/home/u', '.config', 'bk', 'code-cache.key'),
    })
    expect(cacheLocation('1', {XDG_CACHE_HOME: '/c', XDG_CONFIG_HOME: '/k'})).toMatchObject({
      base: join('/c', 'bk'),
      keyFile: join('/k', 'bk', 'code-cache.key'),
    })
    expect(cacheLocation('1', {BK_CACHE_DIR: '/c', BK_CONFIG_DIR: '/c'})).toBeUndefined()
    expect(cacheLocation('1', {BK_CACHE_DIR: '/c', BK_CONFIG_DIR: '/c/config'})).toBeUndefined()
    expect(cacheLocation('1', {BK_CACHE_DIR: '/c', BK_CONFIG_DIR: '/cc'})).toBeDefined()
  })
})

describe('stored-help and version-line', () => {
  const root = tempDir()
  mkdirSync(join(root, 'dist'))
  const platform = process.platform === 'win32' ? 'win32' : 'posix'
  writeFileSync(join(root, 'dist', 'help.json'), JSON.stringify({platform, texts: {'bills import': 'TEXT\n'}}))
  writeFileSync(join(root, 'package.json'), JSON.stringify({name: 'bk', version: '9.8.7'}))
  const pipe = {isTTY: false}

  it('answers a program help request with the stored text, and nothing else', () => {
    expect(storedHelp(root, ['bills', 'import', '--help'], {}, pipe)).toBe('TEXT\n')
    expect(storedHelp(root, ['help', 'bills', 'import'], {}, pipe)).toBe('TEXT\n')
    expect(storedHelp(root, ['bills', 'import', '--help'], {}, {isTTY: true})).toBeUndefined()
    for (const env of [{FORCE_COLOR: '0'}, {OCLIF_COLUMNS: '60'}, {DEBUG: 'x'}])
      expect(storedHelp(root, ['bills', 'import', '--help'], env, pipe)).toBeUndefined()
    expect(storedHelp(root, ['bills', 'import', '--json', '--help'], {}, pipe)).toBeUndefined()
    expect(storedHelp(root, ['bills', '--help'], {}, pipe)).toBeUndefined()
    expect(storedHelp(root, ['toString', '--help'], {}, pipe)).toBeUndefined()
    expect(storedHelp(tempDir(), ['bills', 'import', '--help'], {}, pipe)).toBeUndefined()
  })

  it('answers a first --version with the package version, unless DEBUG asks for oclif', () => {
    expect(versionLine(root, ['--version'], {})).toMatch(/^bk\/9\.8\.7 \S+-\S+ node-v\S+\n$/)
    expect(versionLine(root, ['--version'], {DEBUG: '*'})).toBeUndefined()
    expect(versionLine(root, ['bills', '--version'], {})).toBeUndefined()
  })
})

describe('chunk-loader', () => {
  /**
   * A build of an entry and one chunk, which it requires. Each build's text differs (`tag`, one
   * digit): V8 would take a script compiled earlier in this process from its own memory.
   */
  function fakeBuild(tag: number): string {
    const dist = tempDir()
    mkdirSync(join(dist, 'chunks'))
    writeFileSync(join(dist, 'chunks', 'a.cjs'), `exports.answer = () => 42 // ${tag}`)
    writeFileSync(
      join(dist, 'bk.cjs'),
      `const a = require('./chunks/a.cjs'); exports.main = () => a.answer() + require('node:path').sep.length // ${tag}`,
    )
    return join(dist, 'bk.cjs')
  }

  it('runs the entry and its chunks as CommonJS, each once, and says which V8 took cached data for', () => {
    const cold = loadBuild(fakeBuild(1), new Map())
    expect((cold.exports as {main(): number}).main()).toBe(43)
    expect([...cold.loaded.keys()].sort()).toEqual(['bk.cjs', 'chunks/a.cjs'])
    expect([...cold.loaded.values()].map((c) => c.cached)).toEqual([false, false])

    const data = new Map([...cold.loaded].map(([name, {script}]) => [name, script.createCachedData()]))
    const warm = loadBuild(fakeBuild(2), data)
    expect((warm.exports as {main(): number}).main()).toBe(43)
    expect([...warm.loaded.values()].map((c) => c.cached)).toEqual([true, true])

    // Data V8 refuses (another script's): run from source all the same.
    const refused = loadBuild(fakeBuild(3), new Map([['bk.cjs', data.get('chunks/a.cjs')!]]))
    expect((refused.exports as {main(): number}).main()).toBe(43)
    expect(refused.loaded.get('bk.cjs')?.cached).toBe(false)
  })

  it('gives no cached data to a chunk compiled once V8 runs under other flags than a start, and says so', () => {
    const cold = loadBuild(fakeBuild(4), new Map())
    const data = new Map([...cold.loaded].map(([name, {script}]) => [name, script.createCachedData()]))
    // The entry loads under a start's flags, its chunk after they changed (Node 20 lifts one at 0.3 s).
    let loads = 0
    const late = loadBuild(fakeBuild(5), data, undefined, () => loads++ === 0)
    expect((late.exports as {main(): number}).main()).toBe(43)
    expect(late.loaded.get('bk.cjs')).toMatchObject({cached: true, cacheable: true})
    // Not offered its data, and not to be written: the next start would refuse what it made.
    expect(late.loaded.get('chunks/a.cjs')).toMatchObject({cached: false, cacheable: false})
  })
})
