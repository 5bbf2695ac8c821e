/**
 * How bk runs Node, or itself, in a child process. From the npm package that is `node` (the
 * running Node: process.execPath) with a script; as a single executable (src/startup/
 * single-executable.ts) process.execPath is bk itself, which takes no Node options, so a script
 * travels in BK_RUN_SCRIPT and bk's arguments are given as they are.
 */
import {isSea} from 'node:sea'

export interface ChildCommand {
  command: string
  args: string[]
  /** Variables to add to the child's environment. */
  env: Record<string, string>
}

/** What runs `code` (CommonJS, `require` of packages included) as `node -e code` does. */
export function nodeEval(code: string): ChildCommand {
  if (isSea()) return {command: process.execPath, args: [], env: {BK_RUN_SCRIPT: code}}
  return {command: process.execPath, args: ['-e', code], env: {}}
}

/** What runs `bk ARGS`; `bin` is the npm package's bin/run.js. */
export function bkItself(bin: string, args: string[]): ChildCommand {
  if (isSea()) return {command: process.execPath, args, env: {}}
  return {command: process.execPath, args: [bin, ...args], env: {}}
}
