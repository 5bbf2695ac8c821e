#!/usr/bin/env node
// `oclif manifest` loads command modules concurrently and lists them in the order they finish,
// so two builds can differ. Sorting by command id makes the committed manifest reproducible
// (CI fails when it is stale) without changing what oclif reads from it.
import {readFileSync, writeFileSync} from 'node:fs'

const file = new URL('../oclif.manifest.json', import.meta.url)
const manifest = JSON.parse(readFileSync(file, 'utf8'))
manifest.commands = Object.fromEntries(Object.entries(manifest.commands).sort(([a], [b]) => a.localeCompare(b)))
writeFileSync(file, JSON.stringify(manifest, null, 2) + '\n')
