// Preloaded with --require by the start-up bench: at exit, writes the process's peak resident
// memory in kB to file descriptor 3, which the bench reads. On Linux that is VmHWM: getrusage's
// maxrss also counts the copy of the bench that the child was forked from before it ran node
// (110 MB against bk's own 60), so it is the fallback only where /proc is missing.
const {writeSync} = require('node:fs')
const {vmHwmKb} = require('./vm-hwm.cjs')

process.on('exit', () => {
  try {
    writeSync(3, String(vmHwmKb() ?? process.resourceUsage().maxRSS))
  } catch {
    // Not run by the bench: nobody to tell.
  }
})
