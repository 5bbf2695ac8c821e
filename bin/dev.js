#!/usr/bin/env node
// Runs the compiled commands with oclif's development settings (stack traces, no manifest cache).
// Build first with `npm run build`.
import {execute} from '@oclif/core'

await execute({development: true, dir: import.meta.url})
