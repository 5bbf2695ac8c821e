#!/usr/bin/env node
// Runs the unbundled build (dist/unbundled) with oclif's development settings: stack traces, no
// manifest cache. Build first with `npm run build`.
import {execute} from '@oclif/core'

await execute({development: true, dir: new URL('../dist/unbundled/main.js', import.meta.url).href})
