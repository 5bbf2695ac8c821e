/**
 * The index of the record of created bills in two levels, each a file as record-index.ts writes
 * it, so that bringing it up to date after each tail of an import does not rewrite the entries of
 * every bill the record holds:
 *
 * - the base (`<record>.index`) covers the record from its header to some line;
 * - the recent level (`<record>.index.recent`), when there is one, covers the lines after the
 *   base's (its metadata's `from` is the base's `covered`): a tail is merged into it alone while
 *   it stays small next to the base (RECENT_SHARE), and into a new base with it past that.
 *
 * A lookup asks the base, then the recent level (whose lines are later), then the tail in memory.
 * The recent level's metadata holds the figures of the whole record (counts, damaged lines), as a
 * base's does. A recent level that does not start where the base ends (an older bk, or a crash
 * between a new base and the removal of the old recent level) is not used: the lines it would
 * cover are read as the tail. An import of n bills into a record of m bills, n within m / 8, thus
 * writes about n² / (2 × t) entries of index, a tail being t bills (about 10,000), not n × m / t.
 */
import {rmSync} from 'node:fs'

import {RecordIndex, buildIndex, type BuildSource, type IndexMeta, type LineRef} from './record-index.js'

/** The recent level is merged into a new base once it would cover more than this share of the base's bytes. */
const RECENT_SHARE = 1 / 8

const recentIndexFile = (indexFile: string) => `${indexFile}.recent`

export class IndexLevels {
  private constructor(
    readonly base: RecordIndex,
    private recentLevel: RecordIndex | undefined,
  ) {}

  get recent(): RecordIndex | undefined {
    return this.recentLevel
  }

  /** The levels at `indexFile` if the base is whole and of this record as it is now; otherwise undefined. */
  static open(indexFile: string, logFd: number, headerLine: string): IndexLevels | undefined {
    const base = RecordIndex.open(indexFile, logFd, headerLine)
    if (!base) return undefined
    let recent = RecordIndex.open(recentIndexFile(indexFile), logFd, headerLine)
    if (recent && recent.meta.from !== base.meta.covered) {
      recent.close()
      recent = undefined
    }
    return new IndexLevels(base, recent)
  }

  /** What the index knows of the whole record, up to its last level's end. */
  get meta(): IndexMeta {
    return (this.recent ?? this.base).meta
  }

  /** The lines whose key hashes as `key` does, in the record's order. */
  candidates(key: string): readonly LineRef[] {
    const below = this.base.candidates(key)
    if (!this.recent) return below
    const above = this.recent.candidates(key)
    return below.length === 0 ? above : above.length === 0 ? below : [...below, ...above]
  }

  /** A new recent level over the same base: the base stays open (its bitmap is not read again). */
  replaceRecent(recent: RecordIndex | undefined): void {
    this.recentLevel?.close()
    this.recentLevel = recent
  }

  close(): void {
    this.base.close()
    this.recent?.close()
  }
}

/**
 * Brings the index at `indexFile` up to the record's last complete line, and returns it opened:
 * `levels` itself with a new recent level while its lines stay within RECENT_SHARE of the base's,
 * otherwise a new base (the recent level's entries merged into it, then its file removed).
 * `end` is where the record's lines end now. Whatever it replaces is closed.
 */
export function updateIndex(
  indexFile: string,
  levels: IndexLevels | undefined,
  source: BuildSource,
  end: number,
): IndexLevels | undefined {
  const {logFd, headerLine} = source
  if (levels && end - levels.base.meta.covered <= levels.base.meta.covered * RECENT_SHARE) {
    const recentFile = recentIndexFile(indexFile)
    buildIndex(recentFile, {entries: levels.recent, top: levels.meta, lower: levels.base}, source)
    levels.replaceRecent(RecordIndex.open(recentFile, logFd, headerLine))
    return levels
  }
  buildIndex(indexFile, {entries: levels?.base, top: levels?.meta, carried: levels?.recent}, source)
  // After the new base is in place: a reader between the two finds a recent level that does not follow it.
  removeRecentIndex(indexFile)
  levels?.close()
  return IndexLevels.open(indexFile, logFd, headerLine)
}

export function removeRecentIndex(indexFile: string): void {
  rmSync(recentIndexFile(indexFile), {force: true})
}
