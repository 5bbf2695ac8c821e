// The peak resident memory of a child process, read from /proc (VmHWM, the kernel's high-water
// mark) every few milliseconds while it runs, so no benchmark needs a hook inside bk itself.
import {readFileSync} from 'node:fs'
import {clearInterval, setInterval} from 'node:timers'

/** Starts watching `pid`; `stop()` returns the highest VmHWM seen, in MB. */
export function watchPeakRss(pid, everyMs = 5) {
  let peakKb = 0
  const read = () => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
      if (m) peakKb = Math.max(peakKb, Number(m[1]))
    } catch {
      // The process has just exited.
    }
  }
  const timer = setInterval(read, everyMs)
  return {
    stop() {
      clearInterval(timer)
      return peakKb / 1024
    },
  }
}
