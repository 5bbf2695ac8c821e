#!/usr/bin/env node
// What the build is made from, as one digest kept beside it (dist/build-inputs.sha256): every
// file of src/ and scripts/, package.json, package-lock.json, the tsconfig files, and the Node and
// platform that build. `npm run build` clears it first and writes it last, so a build that
// failed part-way leaves none; `npm test` builds only when there is none or the files now give
// another, so a test run right after a build (as in CI) does not build twice, and nothing the
// build reads can change without the tests running on a new build.
//
//   node scripts/build-inputs.js --clear | --write | --current   (--current: exit 0 if current)
import {createHash} from 'node:crypto'
import {existsSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..')
const record = join(root, 'dist', 'build-inputs.sha256')
const FOLDERS = ['src', 'scripts']
const FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json']

function filesIn(folder) {
  return readdirSync(folder, {withFileTypes: true})
    .sort((a, b) => (a.name < b.name ? -1 : 1))
    .flatMap((entry) => (entry.isDirectory() ? filesIn(join(folder, entry.name)) : [join(folder, entry.name)]))
}

function digest() {
  const hash = createHash('sha256').update(`${process.version} ${process.platform}-${process.arch}\0`)
  const files = [...FOLDERS.flatMap((f) => filesIn(join(root, f))), ...FILES.map((f) => join(root, f))]
  for (const file of files)
    hash
      .update(`${relative(root, file)}\0`)
      .update(readFileSync(file))
      .update('\0')
  return hash.digest('hex')
}

const [mode] = process.argv.slice(2)
if (mode === '--clear') rmSync(record, {force: true})
else if (mode === '--write') writeFileSync(record, `${digest()}\n`)
else if (mode === '--current') {
  const current =
    existsSync(record) && existsSync(join(root, 'dist', 'bk.cjs')) && readFileSync(record, 'utf8').trim() === digest()
  if (current) console.log('The build in dist/ is of these sources: not built again.')
  process.exit(current ? 0 : 1)
} else {
  console.error('usage: node scripts/build-inputs.js --clear | --write | --current')
  process.exit(2)
}
