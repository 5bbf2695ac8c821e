/**
 * Input files read whole are bounded: each kind has a size limit checked before a byte is read
 * (a path to /dev/zero or a multi-gigabyte file is refused, not read until memory runs out), and
 * YAML is read with its aliases limited and its duplicate keys found in linear time (yaml's own
 * `uniqueKeys` compares each key with every earlier one: minutes for 200,000 keys).
 * Each refusal is an InputError (exit 2) naming the file and the limit (the limits are in the topic docs: bills.md, emulator.md, network.md).
 */
import {closeSync, fstatSync, openSync, readSync} from 'node:fs'
import {open} from 'node:fs/promises'

import {isMap, isScalar, isSeq, type Document, type Node} from 'yaml'

import {InputError} from '../shared/errors.js'
import {STATE_FILE_LIMIT} from '../shared/state-file.js'
import {unreadableBecause, unreadableHint} from './file-errors.js'

/** The size limits, in bytes, of the files bk reads whole. */
export const SIZE_LIMITS = {
  /** BK_CA_FILE: a bundle of every public CA is about 250 kB. */
  caFile: 4 * 1024 * 1024,
  /** --map: a few hundred lines. */
  map: 1024 * 1024,
  /** --lookup: two columns, hundreds of thousands of rows. */
  lookup: 16 * 1024 * 1024,
  /**
   * --fixtures: some thousands of records a file (the flag repeats). YAML's document tree takes
   * over 100 times the file's size: 1 MB keeps a run under 300 MB.
   */
  fixtures: 1024 * 1024,
  /** --state (the emulator's, and the listener's): src/shared/state-file.ts checks it, as src/emulator cannot import this. */
  state: STATE_FILE_LIMIT,
} as const

/** The most aliases one YAML document may expand (yaml's default, 100, made explicit). */
export const MAX_YAML_ALIASES = 100

function megabytes(bytes: number): string {
  return `${bytes / (1024 * 1024)} MB`
}

/**
 * Reads `file` whole when it is a regular file of at most `limit` bytes; `what` names it
 * ("the fixtures file", "BK_CA_FILE="). The size is checked on the open file, so a file swapped
 * for another after the check is not read; and at most `limit` bytes are ever read.
 */
export async function readBoundedFile(file: string, what: string, limit: number): Promise<Buffer> {
  const handle = await open(file, 'r').catch((error: unknown) => {
    throw new InputError(`Cannot read ${what} ${file}: ${unreadableBecause(error)}`, {
      hint: unreadableHint(file, error),
    })
  })
  try {
    const stats = await handle.stat()
    if (stats.isDirectory()) throw new InputError(`${what} ${file} is a folder, not a file`)
    if (!stats.isFile())
      throw new InputError(`${what} ${file} is not a regular file (a device or a pipe); bk reads files only`, {
        hint: `Give the path of a file of at most ${megabytes(limit)}.`,
      })
    if (stats.size > limit) throw tooLarge(file, what, limit)
    const buffer = Buffer.alloc(stats.size + 1)
    let length = 0
    for (;;) {
      const {bytesRead} = await handle.read(buffer, length, buffer.length - length, length)
      if (bytesRead === 0) break
      length += bytesRead
      if (length > stats.size) throw tooLarge(file, what, limit) // it grew while read
    }
    return buffer.subarray(0, length)
  } finally {
    await handle.close()
  }
}

/** readBoundedFile for the few callers that must stay synchronous (the trusted CAs). */
export function readBoundedFileSync(file: string, what: string, limit: number): Buffer {
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch (error) {
    throw new InputError(`Cannot read ${what} ${file}: ${unreadableBecause(error)}`, {
      hint: unreadableHint(file, error),
    })
  }
  try {
    const stats = fstatSync(fd)
    if (stats.isDirectory()) throw new InputError(`${what} ${file} is a folder, not a file`)
    if (!stats.isFile())
      throw new InputError(`${what} ${file} is not a regular file (a device or a pipe); bk reads files only`)
    if (stats.size > limit) throw tooLarge(file, what, limit)
    const buffer = Buffer.alloc(stats.size + 1)
    let length = 0
    for (let read = -1; read !== 0; length += read) {
      read = readSync(fd, buffer, length, buffer.length - length, length)
      if (length + read > stats.size) throw tooLarge(file, what, limit)
    }
    return buffer.subarray(0, length)
  } finally {
    closeSync(fd)
  }
}

function tooLarge(file: string, what: string, limit: number): InputError {
  return new InputError(`${what} ${file} is larger than bk's limit of ${megabytes(limit)} for it`, {
    code: 'input_too_large',
    hint: 'Split it, or check that the path names the file you meant.',
    details: {file, limit},
  })
}

/** The first key that appears twice in one mapping, anywhere in the document: a Set per mapping. */
export function firstDuplicateKey(doc: Document): {key: string; offset: number} | undefined {
  const stack: Array<Node | null | undefined> = [doc.contents as Node | null]
  while (stack.length) {
    const node = stack.pop()
    if (isMap(node)) {
      const seen = new Set<string>()
      for (const pair of node.items) {
        const key = pair.key as Node | null
        if (isScalar(key)) {
          const text = String(key.value)
          if (seen.has(text)) return {key: text, offset: key.range?.[0] ?? 0}
          seen.add(text)
        } else stack.push(key)
        stack.push(pair.value as Node | null)
      }
    } else if (isSeq(node)) {
      for (const item of node.items) stack.push(item as Node | null)
    }
  }
  return undefined
}

/**
 * The document as plain values, its aliases limited: a document whose aliases would expand
 * beyond MAX_YAML_ALIASES ("billion laughs") is refused, naming `file`.
 */
export function yamlToJs(doc: Document, file: string, maxAliases: number = MAX_YAML_ALIASES): unknown {
  try {
    return doc.toJS({maxAliasCount: maxAliases})
  } catch (error) {
    if (error instanceof ReferenceError && /alias/i.test(error.message))
      throw new InputError(
        maxAliases === 0
          ? `${file}: YAML aliases (*name) are not allowed in it`
          : `${file}: its YAML aliases expand beyond bk's limit of ${maxAliases}`,
        {
          code: 'input_too_large',
          hint: 'Write the repeated parts out, or use fewer aliases (*name) to anchors (&name).',
          details: {file, limit: maxAliases},
        },
      )
    throw error
  }
}
