/**
 * The 64-bit hash of a bill key (or number), as two 32-bit words: what the record's index on disk
 * sorts by (record-index.ts) and what the in-memory set of numbers seen stores (number-index.ts).
 * The index file holds these values, so changing this function needs a new index MAGIC.
 */
export function hashKey(key: string): {hi: number; lo: number} {
  let a = 0x811c9dc5
  let b = 0x9747b28c ^ key.length
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x5bd1e995)
    b ^= b >>> 15
  }
  return {hi: mix(a) >>> 0, lo: mix(b ^ 0x2545f491) >>> 0}
}

/** A 32-bit finaliser (murmur3's), so that every input bit moves every output bit. */
function mix(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  return h ^ (h >>> 16)
}
