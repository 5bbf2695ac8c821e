/**
 * Progress in a CI log: no terminal to redraw a bar on, so a plain line on stderr every 10% of
 * the input or every minute, whichever comes later (a log of a long import stays short, and a
 * stalled one still shows signs of life every minute when its size is unknown).
 */
import type {ImportProgress} from '../bills/import.js'
import {formatCount} from '../shared/counts.js'
import {ciEnvironment, type CiEnvironment} from './environment.js'

export interface Throttle {
  /** The share of the input read, 0 to 1, or undefined when its size is unknown (stdin). */
  fraction: number | undefined
  now: number
}

/** Decides when the next line is due: both 10% more read and a minute passed since the last. */
export class ProgressThrottle {
  private lastAt: number
  private lastPercent = 0

  constructor(
    start: number,
    private readonly stepPercent = 10,
    private readonly intervalMs = 60_000,
  ) {
    this.lastAt = start
  }

  due({fraction, now}: Throttle): boolean {
    if (now - this.lastAt < this.intervalMs) return false
    // Whole percents: 0.6 - 0.5 is less than 0.1 in floating point.
    const percent = fraction === undefined ? undefined : Math.floor(fraction * 100)
    if (percent !== undefined && percent < 100 && percent - this.lastPercent < this.stepPercent) return false
    this.lastAt = now
    if (percent !== undefined) this.lastPercent = percent
    return true
  }
}

export interface ProgressDisplay {
  update: (p: ImportProgress) => void
  pause: () => void
  done: () => void
}

/** What a CI line says about an import. */
export function importProgressText(p: ImportProgress): string {
  const secs = p.elapsedMs / 1000
  const rate = secs > 0 ? Math.round(p.bills / secs) : 0
  const pct = p.size ? `${Math.min(100, Math.floor((p.bytes * 100) / p.size))}% · ` : ''
  const n = formatCount
  return `bills import: ${pct}rows ${n(p.rows)} · bills ${n(p.bills)} · created ${n(p.created)} · ${n(rate)} bills/s · ${Math.floor(secs / 60)}m${String(Math.floor(secs % 60)).padStart(2, '0')}s`
}

/**
 * The import's progress as plain lines, when bk runs in CI without a terminal; undefined
 * elsewhere (a terminal gets the bar, an interactive pipe gets nothing, as before).
 */
export function ciImportProgress(
  env: CiEnvironment = ciEnvironment(),
  write: (line: string) => void = (line) => void process.stderr.write(line + '\n'),
  now: () => number = () => performance.now(),
): ProgressDisplay | undefined {
  if (!env.ci) return undefined
  const throttle = new ProgressThrottle(now())
  let printed = false
  let last: ImportProgress | undefined
  return {
    update(p) {
      last = p
      if (throttle.due({fraction: p.size ? p.bytes / p.size : undefined, now: now()})) {
        write(importProgressText(p))
        printed = true
      }
    },
    pause() {},
    // A run long enough to have shown progress ends with its last line, so the log shows the end.
    done() {
      if (printed && last) write(importProgressText(last))
      printed = false
    },
  }
}
