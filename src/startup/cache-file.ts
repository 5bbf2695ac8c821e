/**
 * The code-cache file format. A file holds V8's code cache for each chunk of the build a kind of
 * run loaded, after two lines:
 *
 *     <HMAC-SHA256 of the rest, hex>
 *     {"bundle":"// bk bundle <digest>","kind":"transactions get","chunks":[["bk.cjs",1234],...]}
 *     <V8's data for each chunk, one after the other>
 *
 * The MAC, with the user's key (cache-key.ts), is checked before anything else is read: V8 checks
 * only the source's length, its own version and flags, so data it is handed runs as it is, and
 * a file anyone else made must never reach it. The header names the build (the first line of
 * dist/bk.cjs, which holds a digest of the whole build) and the kind; a file with no chunks is a
 * note that the kind ran once.
 */
export interface CacheContents {
  bundle: string
  kind: string
  /** V8's data for each chunk, by its path relative to dist/ (`bk.cjs`, `chunks/chunk-X.cjs`). */
  chunks: Map<string, Buffer>
}

interface Header {
  bundle: string
  kind: string
  chunks: [string, number][]
}

const MAC_LENGTH = 64

function mac(key: Buffer, body: Buffer): Buffer {
  const {createHmac} = process.getBuiltinModule('node:crypto')
  return Buffer.from(createHmac('sha256', key).update(body).digest('hex'))
}

/** The bytes of a cache file holding `contents`, authenticated with `key`. */
export function encodeCacheFile(key: Buffer, contents: CacheContents): Buffer {
  const chunks = [...contents.chunks]
  const header: Header = {
    bundle: contents.bundle,
    kind: contents.kind,
    chunks: chunks.map(([name, bytes]) => [name, bytes.length]),
  }
  const body = Buffer.concat([Buffer.from(JSON.stringify(header) + '\n'), ...chunks.map(([, bytes]) => bytes)])
  return Buffer.concat([mac(key, body), Buffer.from('\n'), body])
}

/**
 * What a cache file holds, when it was made with `key`, for this build and kind, and is whole;
 * undefined for anything else (another key, a changed byte, another build, garbage).
 */
export function decodeCacheFile(
  key: Buffer,
  bytes: Buffer,
  expected: {bundle: string; kind: string},
): CacheContents | undefined {
  if (bytes.length <= MAC_LENGTH || bytes[MAC_LENGTH] !== 10) return undefined
  const body = bytes.subarray(MAC_LENGTH + 1)
  const {timingSafeEqual} = process.getBuiltinModule('node:crypto')
  if (!timingSafeEqual(mac(key, body), bytes.subarray(0, MAC_LENGTH))) return undefined
  const newline = body.indexOf(10)
  if (newline < 0) return undefined
  let header: Header
  try {
    header = JSON.parse(body.subarray(0, newline).toString()) as Header
  } catch {
    return undefined
  }
  if (header.bundle !== expected.bundle || header.kind !== expected.kind) return undefined
  const data = body.subarray(newline + 1)
  if (header.chunks.reduce((sum, [, n]) => sum + n, 0) !== data.length) return undefined
  const chunks = new Map<string, Buffer>()
  let at = 0
  for (const [name, n] of header.chunks) chunks.set(name, data.subarray(at, (at += n)))
  return {bundle: header.bundle, kind: header.kind, chunks}
}
