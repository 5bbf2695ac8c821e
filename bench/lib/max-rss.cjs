// Preloaded with --require by the start-up bench: at exit, writes the process's peak resident
// memory (getrusage's maxrss, in kB) to file descriptor 3, which the bench reads.
const {writeSync} = require('node:fs')

process.on('exit', () => {
  try {
    writeSync(3, String(process.resourceUsage().maxRSS))
  } catch {
    // Not run by the bench: nobody to tell.
  }
})
