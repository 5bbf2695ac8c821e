/**
 * The V8 code cache bk keeps in the user's cache folder (src/startup/code-cache.ts), a file per
 * kind of run holding V8's data for each chunk of the build that kind loads: noted by a first run,
 * written by the second of its kind, used by the next, a file of its own for a new kind, and never
 * a failure or a word of output when it is stale, damaged or cannot be written: then bk runs from
 * source and writes it anew when it can. (What is not the user's own is test/startup/planted-cache.)
 */
import {readdirSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import vm from 'node:vm'
import {describe, expect, it} from 'vitest'

import {ROOT, runBk, tempDir} from '../helpers/bk.js'
import {cacheFileIn, chunksIn, type Dirs, freshDirs, isValid, KEY, keyOf, readCache, writeCache} from './cache-files.js'

/** Runs bk with this cache folder and config folder (the key's). */
function bk(args: string[], dirs: Dirs, env: Record<string, string> = {}) {
  return runBk(args, {configDir: dirs.config, env: {BK_CACHE_DIR: dirs.cache, ...env}})
}

/**
 * `bk help`: it must print the help and nothing else, anywhere. (Not `bk --version`, which
 * bin/run.js answers without loading the bundle.)
 */
async function help(dirs: Dirs, env: Record<string, string> = {}): Promise<void> {
  const result = await bk(['help'], dirs, env)
  expect(result.stderr).toBe('')
  expect(result.code).toBe(0)
  expect(result.stdout).toContain('USAGE')
}

/** Two runs of `bk help`: the first notes the kind, the second writes V8's data. */
async function warm(dirs: Dirs): Promise<void> {
  await help(dirs)
  await help(dirs)
}

const liftoff = process.versions.node.startsWith('20.') ? 'liftoff-only.' : ''

describe('the code cache', () => {
  it("lives in $XDG_CACHE_HOME/bk, in a folder per bk, Node and architecture; a second run writes V8's data", async () => {
    if (process.platform === 'darwin') return // another folder there
    const xdg = tempDir()
    const config = tempDir()
    const file = cacheFileIn(join(xdg, 'bk'))
    const run = () => runBk(['help'], {configDir: config, env: {XDG_CACHE_HOME: xdg}})
    expect(await run()).toMatchObject({code: 0, stderr: ''})
    expect(readdirSync(join(xdg, 'bk', 'code-cache'))).toEqual([KEY])
    // A first run only notes its kind: a command run once does not pay for writing its code.
    expect(readCache(file).header).toMatchObject({chunks: [], kind: 'help'})
    expect(await run()).toMatchObject({code: 0, stderr: ''})
    expect(readCache(file).header).toMatchObject({kind: 'help'})
    expect(readCache(file).data.length).toBeGreaterThan(0)
    expect(isValid(file, {cache: join(xdg, 'bk'), config})).toBe(true)
    // The entry and the chunks help runs: oclif's, never a command's.
    expect(chunksIn(file)).toContain('bk.cjs')
    expect(chunksIn(file).length).toBeGreaterThan(1)
  })

  it('is made private: folders 0700, files 0600, the key 0600 in the config folder', async () => {
    if (process.platform === 'win32') return
    const dirs = freshDirs()
    await warm(dirs)
    const mode = (path: string) => statSync(path).mode & 0o777
    expect(mode(join(dirs.cache, 'code-cache'))).toBe(0o700)
    expect(mode(join(dirs.cache, 'code-cache', KEY))).toBe(0o700)
    expect(mode(cacheFileIn(dirs.cache))).toBe(0o600)
    expect(mode(join(dirs.config, 'code-cache.key'))).toBe(0o600)
    expect(keyOf(dirs).length).toBe(32)
  })

  it("is used as it is by the next run of the same kind, a command's help too; a new kind has its own", async () => {
    const dirs = freshDirs()
    await warm(dirs)
    const file = cacheFileIn(dirs.cache)
    const first = statSync(file)

    await help(dirs)
    const commandHelp = await bk(['businesses', 'list', '--help'], dirs)
    expect(commandHelp).toMatchObject({code: 0, stderr: ''})
    expect(commandHelp.stdout).toContain('USAGE')
    // Not rewritten: V8 accepted it (a refused cache is written anew).
    expect(statSync(file).mtimeMs).toBe(first.mtimeMs)
    expect(statSync(file).ino).toBe(first.ino)

    for (let run = 0; run < 2; run++) {
      const list = await bk(['profiles', 'list', '--json'], dirs)
      expect(list.code, list.stderr).toBe(0)
    }
    // On Node 20 a command runs under a V8 flag of its own, and its cache says so (src/startup/start.ts).
    const name = `${liftoff}profiles+list.v8`
    const own = cacheFileIn(dirs.cache, name)
    expect(readCache(own).header).toMatchObject({kind: 'profiles list'})
    expect(readCache(own).data.length).toBeGreaterThan(0)
    expect(isValid(own, dirs)).toBe(true)
    // A command reads the chunks help reads and its own besides, which help never loads.
    const helpChunks = chunksIn(file)
    const commandOnly = chunksIn(own).filter((c) => !helpChunks.includes(c))
    expect(commandOnly.length).toBeGreaterThan(0)
    // The help's file is as it was: each kind reads only the code it runs.
    expect(statSync(file).mtimeMs).toBe(first.mtimeMs)
    expect(readdirSync(join(dirs.cache, 'code-cache', KEY)).sort()).toEqual(['help.v8', name].sort())
  })

  // The heap guard takes V8's gc function by switching --expose-gc on: it must leave the flag
  // as the run started, off, or on where NODE_OPTIONS gave it (then it switches nothing).
  it.each([
    {started: 'without --expose-gc', nodeOptions: ''},
    {started: 'with --expose-gc', nodeOptions: '--expose-gc'},
  ])('is used as it is by the next bill import, started $started', async ({nodeOptions}) => {
    const dirs = freshDirs()
    const dryRun = async () => {
      const result = await bk(
        ['bills', 'import', 'examples/bills.csv', '--dry-run', '--business', 'biz_demo_acme'],
        dirs,
        nodeOptions ? {NODE_OPTIONS: nodeOptions} : {},
      )
      expect(result.code, result.stderr).toBe(0)
    }
    await dryRun()
    await dryRun()
    // Named by the flags the import runs under: liftoff-only on Node 20, semi-space where it
    // restarts with a small young generation (src/startup/start.ts).
    const names = readdirSync(join(dirs.cache, 'code-cache', KEY)).filter((f) => f.endsWith('bills+import.v8'))
    expect(names).toHaveLength(1)
    const file = cacheFileIn(dirs.cache, names[0])
    const written = statSync(file)
    expect(readCache(file).data.length).toBeGreaterThan(0)
    // A flag left on at exit made V8 refuse every chunk of the next run: each run wrote it anew.
    await dryRun()
    expect(statSync(file).mtimeMs).toBe(written.mtimeMs)
    expect(statSync(file).ino).toBe(written.ino)
  })

  it('a run of a kind that loads a chunk its file lacks writes the file anew with it, the others kept', async () => {
    const dirs = freshDirs()
    const file = cacheFileIn(dirs.cache, `${liftoff}transactions+get.v8`)
    // Listing the fields needs no credentials and no id.
    for (let run = 0; run < 2; run++) {
      const fields = await bk(['transactions', 'get', '--fields'], dirs)
      expect(fields.code, fields.stderr).toBe(0)
    }
    const before = chunksIn(file)
    // Another path through the same command: a missing id loads the id checks' chunk.
    const missing = await bk(['transactions', 'get'], dirs)
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('transaction id')
    const after = chunksIn(file)
    expect(after.length).toBeGreaterThan(before.length)
    expect(after).toEqual(expect.arrayContaining(before))
    expect(isValid(file, dirs)).toBe(true)
  })

  it('damaged (a changed byte in the data): ignored without a word, and written anew', async () => {
    const dirs = freshDirs()
    await warm(dirs)
    const file = cacheFileIn(dirs.cache)
    const {mac, header, data} = readCache(file)
    const damaged = Buffer.from(data)
    const at = Math.floor(damaged.length / 2)
    damaged[at] = damaged[at]! ^ 0xff
    writeFileSync(file, Buffer.concat([Buffer.from(`${mac}\n${JSON.stringify(header)}\n`), damaged]))
    expect(isValid(file, dirs)).toBe(false)

    await warm(dirs)
    expect(isValid(file, dirs)).toBe(true)
    expect(readCache(file).header.kind).toBe('help')
  })

  it('not a cache at all (garbage, or an empty file): ignored without a word, and written anew', async () => {
    const dirs = freshDirs()
    await warm(dirs)
    const file = cacheFileIn(dirs.cache)
    for (const junk of [Buffer.from('\u0000\u0001not json\n\u0002'), Buffer.alloc(0)]) {
      writeFileSync(file, junk)
      await warm(dirs)
      expect(isValid(file, dirs)).toBe(true)
      expect(readCache(file).header.kind).toBe('help')
    }
  })

  it('stale (made for another build of the bundle): ignored without a word, and written anew', async () => {
    const dirs = freshDirs()
    await warm(dirs)
    const file = cacheFileIn(dirs.cache)
    const {header, data} = readCache(file)
    writeCache(file, keyOf(dirs), {...header, bundle: '// bk bundle 00000000000000000000000000000000'}, data)

    await warm(dirs)
    expect(readCache(file).header).toMatchObject({bundle: header.bundle, kind: 'help'})
    expect(isValid(file, dirs)).toBe(true)
  })

  it('refused by V8 (data of another script, authenticated): run from source, and written anew', async () => {
    const dirs = freshDirs()
    await warm(dirs)
    const file = cacheFileIn(dirs.cache)
    const {header} = readCache(file)
    const other = new vm.Script('"another script"').createCachedData()
    writeCache(file, keyOf(dirs), {...header, chunks: [['bk.cjs', other.length]]}, other)

    await warm(dirs)
    const rewritten = readCache(file)
    expect(rewritten.data.equals(other)).toBe(false)
    expect(rewritten.header.kind).toBe('help')
    expect(isValid(file, dirs)).toBe(true)
  })

  it('that cannot be written (a file where its folder would be): bk runs, without a word', async () => {
    const blocker = join(tempDir(), 'not-a-folder')
    writeFileSync(blocker, 'in the way')
    await warm({cache: blocker, config: tempDir()})
    expect(readdirSync(join(blocker, '..'))).toEqual(['not-a-folder'])
  })

  it('runs code that loads a module from outside the bundle the same from the cache as without it', async () => {
    // webhooks verify loads node:fs/promises on demand; from V8's cached code an import() would
    // find no loader (scripts/bundle.js turns them into require()).
    const dirs = freshDirs()
    const args = ['webhooks', 'verify', '--id', 'msg_1', '--signature', 'v1,x', '--body', join(dirs.cache, 'nope.json')]
    for (const run of ['notes the kind', 'writes the cache', 'runs from it']) {
      const result = await bk([...args, '--jwks', join(ROOT, 'test', 'fixtures', 'webhooks', 'jwks.json')], dirs)
      expect(result.code, `${run}: ${result.stderr}`).toBe(2)
      expect(result.stderr).toContain('nope.json')
    }
  })

  it('turned off by NODE_DISABLE_COMPILE_CACHE, BK_CODE_CACHE=0, and CI unless BK_CODE_CACHE=1', async () => {
    for (const env of [{NODE_DISABLE_COMPILE_CACHE: '1'}, {BK_CODE_CACHE: '0'}, {CI: 'true'}, {CI: '1'}]) {
      const dirs = freshDirs()
      await help(dirs, env)
      await help(dirs, env)
      expect(readdirSync(dirs.cache), JSON.stringify(env)).toEqual([])
      expect(readdirSync(dirs.config), JSON.stringify(env)).toEqual([])
    }
    const dirs = freshDirs()
    await help(dirs, {CI: 'true', BK_CODE_CACHE: '1'})
    await help(dirs, {CI: 'true', BK_CODE_CACHE: '1'})
    expect(isValid(cacheFileIn(dirs.cache), dirs)).toBe(true)
    // A dozen runs: the limit guards against a hang, sized for a busy machine.
  }, 600_000)
})
