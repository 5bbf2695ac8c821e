#!/usr/bin/env node
// bk's entry. What a start does (the version and stored help answered without the bundle, the
// bundle loaded with a V8 code cache, then run) is src/startup/, which `npm run build` makes into
// dist/startup.cjs. CommonJS (bin/package.json), like the build: src/startup/start.ts says why.
'use strict'
const {join} = require('node:path')

require('../dist/startup.cjs').start(join(__dirname, '..'), process.argv.slice(2))
