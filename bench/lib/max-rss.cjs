// Preloaded with --require by the start-up bench: at exit, writes the process's peak resident
// memory in kB to file descriptor 3, which the bench reads. On Linux that is VmHWM, the high-water
// mark of this program's own memory: getrusage's maxrss also counts the copy of the bench that
// the child was forked from before it ran node (110 MB against bk's own 60), so it is the
// fallback only where /proc is missing.
const {readFileSync, writeSync} = require('node:fs')

function peakKb() {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))
    if (m) return Number(m[1])
  } catch {
    // No /proc: not Linux.
  }
  return process.resourceUsage().maxRSS
}

process.on('exit', () => {
  try {
    writeSync(3, String(peakKb()))
  } catch {
    // Not run by the bench: nobody to tell.
  }
})
