#!/usr/bin/env node
// The unbundled build: tsc's output in dist/unbundled, one file per module, commands found by
// file name and plugins loaded from node_modules, as bk ran before the bundle. For the start-up
// bench's comparison and for debugging with real file names; users run bin/run.js.
import {main} from '../dist/unbundled/main.js'

await main(new URL('../dist/unbundled/main.js', import.meta.url).href)
