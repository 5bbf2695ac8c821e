#!/usr/bin/env node
// The execute entry alone: the full @oclif/core index loads far more than start-up needs.
import {execute} from '@oclif/core/execute'

// With CI set nothing may prompt; @oclif/plugin-not-found asks "did you mean…?" whenever stdin
// is a TTY, so tell it (and everyone else) that there is none.
if (process.env.CI && process.stdin.isTTY) process.stdin.isTTY = false

await execute({dir: import.meta.url})
