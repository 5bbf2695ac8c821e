/**
 * A one-line progress display on stderr (a TTY) for a long import: percent read, rows, bills,
 * bills created, rate and ETA, redrawn in place. `pause` clears it so that a message can be
 * printed on a line of its own; the next update draws it again.
 */
import type {ImportProgress} from '../bills/scan.js'
import {formatCount} from '../shared/counts.js'

export interface ProgressLine {
  update: (p: ImportProgress) => void
  pause: () => void
  done: () => void
}

export function progressLine(stream: NodeJS.WriteStream = process.stderr): ProgressLine {
  let shown = false
  const clear = () => {
    if (shown) stream.write('\r\u001B[2K')
    shown = false
  }
  return {
    update(p) {
      stream.write(`\r\u001B[2K${describe(p)}`)
      shown = true
    },
    pause: clear,
    done() {
      if (shown) stream.write('\n')
      shown = false
    },
  }
}

function describe(p: ImportProgress): string {
  const secs = p.elapsedMs / 1000
  const rate = secs > 0 ? Math.round(p.bills / secs) : 0
  let eta = ''
  if (p.size && p.bytes > 0 && p.bytes < p.size) {
    const left = Math.round((secs * (p.size - p.bytes)) / p.bytes)
    eta = ` · ETA ${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`
  }
  const pct = p.size ? ` ${Math.min(100, Math.floor((p.bytes * 100) / p.size))}%` : ''
  return `${pct} rows ${formatCount(p.rows)} · bills ${formatCount(p.bills)} · created ${formatCount(p.created)} · ${formatCount(rate)} bills/s${eta}`
}
