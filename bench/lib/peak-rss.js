// The peak resident memory of a child process, read from /proc (VmHWM, the kernel's high-water
// mark) every few milliseconds while it runs, so no benchmark needs a hook inside bk itself.
import {clearInterval, setInterval} from 'node:timers'

import {vmHwmKb} from './vm-hwm.cjs'

/** Starts watching `pid`; `stop()` returns the highest VmHWM seen, in MB. */
export function watchPeakRss(pid, everyMs = 5) {
  let peakKb = 0
  // Once the process has exited there is nothing to read: the peak stays.
  const read = () => (peakKb = Math.max(peakKb, vmHwmKb(pid) ?? 0))
  const timer = setInterval(read, everyMs)
  return {
    stop() {
      clearInterval(timer)
      return peakKb / 1024
    },
  }
}
