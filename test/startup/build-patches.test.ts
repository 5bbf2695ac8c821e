/**
 * The build's patches to dependencies (scripts/dependency-patches.js) fit only the versions they
 * were written for: the build refuses another version, pinned or installed, a file that no longer
 * holds a text a patch replaces, and a file replaced whole that is not the one it was written for.
 */
import {spawnSync} from 'node:child_process'
import {appendFileSync, cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

// @ts-expect-error: a script of the build, in JavaScript.
import {patchProblems, PATCHES} from '../../scripts/dependency-patches.js'
import {ROOT, tempDir} from '../helpers/bk.js'

const problemsOf = patchProblems as (root: string) => string[]
const undici = (PATCHES as {package: string; version: string}[]).find((p) => p.package === 'undici')!.version

/** A copy of the project's package.json and build scripts, over the installed node_modules. */
function treeCopy(node_modules = join(ROOT, 'node_modules')): string {
  const root = tempDir()
  cpSync(join(ROOT, 'package.json'), join(root, 'package.json'))
  cpSync(join(ROOT, 'scripts'), join(root, 'scripts'), {recursive: true})
  symlinkSync(node_modules, join(root, 'node_modules'))
  return root
}

/** The installed node_modules with undici a copy of its own, changed by `change`. */
function withUndiciChanged(change: (dir: string) => void): string {
  const modules = join(tempDir(), 'node_modules')
  mkdirSync(modules)
  for (const name of readdirSync(join(ROOT, 'node_modules')))
    if (name !== 'undici') symlinkSync(join(ROOT, 'node_modules', name), join(modules, name))
  cpSync(join(ROOT, 'node_modules', 'undici'), join(modules, 'undici'), {recursive: true})
  change(join(modules, 'undici'))
  return modules
}

function check(root: string) {
  return spawnSync(process.execPath, [join(root, 'scripts', 'bundle.js'), '--check'], {encoding: 'utf8'})
}

describe('the build patches', () => {
  it('fit what is installed and pinned here', () => {
    expect(problemsOf(ROOT)).toEqual([])
    expect(check(treeCopy())).toMatchObject({status: 0, stderr: ''})
  })

  it('the build refuses a pin of another version', () => {
    const root = treeCopy()
    const pjson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>
    }
    pjson.devDependencies.undici = '7.99.0'
    writeFileSync(join(root, 'package.json'), JSON.stringify(pjson, null, 2))
    const result = check(root)
    expect(result.status).not.toBe(0)
    expect(result.stderr).toContain(
      `undici-without-http2 was written for undici ${undici}, but package.json pins 7.99.0`,
    )
  })

  it('the build refuses another version installed', () => {
    const modules = withUndiciChanged((dir) => {
      const file = join(dir, 'package.json')
      writeFileSync(file, JSON.stringify({...JSON.parse(readFileSync(file, 'utf8')), version: '7.99.0'}))
    })
    const result = check(treeCopy(modules))
    expect(result.status).not.toBe(0)
    expect(result.stderr).toContain(`was written for undici ${undici}, but 7.99.0 is installed`)
  })

  it('the build refuses a file that no longer holds a replaced text, or a whole file that changed', () => {
    const modules = withUndiciChanged((dir) => {
      const client = join(dir, 'lib', 'dispatcher', 'client.js')
      writeFileSync(client, readFileSync(client, 'utf8').replace("const http = require('node:http')", ''))
      appendFileSync(join(dir, 'lib', 'dispatcher', 'client-h2.js'), '\n// changed\n')
    })
    const result = check(treeCopy(modules))
    expect(result.status).not.toBe(0)
    expect(result.stderr).toContain(
      "undici-without-node-http: undici/lib/dispatcher/client.js no longer holds: const http = require('node:http')",
    )
    expect(result.stderr).toContain(
      'undici-without-http2: undici/lib/dispatcher/client-h2.js is not the file the patch replaces',
    )
  })

  it('each names the version it was written for and what it buys', () => {
    for (const p of PATCHES as {id: string; version: string; buys: string}[]) {
      expect(p.version, p.id).toMatch(/^\d+\.\d+\.\d+$/)
      expect(p.buys.length, p.id).toBeGreaterThan(40)
    }
  })
})
