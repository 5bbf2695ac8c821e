#!/usr/bin/env node
// `oclif manifest` loads command modules concurrently and lists them in the order they finish,
// so two builds can differ. Sorting by command id makes the manifests reproducible (CI fails
// when the committed one is stale) without changing what oclif reads from them: the bundle's
// (oclif.manifest.json) and the unbundled build's (dist/unbundled/oclif.manifest.json).
import {readFileSync, writeFileSync} from 'node:fs'

for (const path of ['../oclif.manifest.json', '../dist/unbundled/oclif.manifest.json']) {
  const file = new URL(path, import.meta.url)
  const manifest = JSON.parse(readFileSync(file, 'utf8'))
  manifest.commands = Object.fromEntries(Object.entries(manifest.commands).sort(([a], [b]) => a.localeCompare(b)))
  writeFileSync(file, JSON.stringify(manifest, null, 2) + '\n')
}
