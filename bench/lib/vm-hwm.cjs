// A process's peak resident memory in kB: VmHWM, the kernel's high-water mark of its memory since
// it last ran exec (so not the copy of a parent it was forked from). undefined where there is no
// /proc, or once the process is gone. CommonJS, for the start-up bench's --require hook too.
const {readFileSync} = require('node:fs')

function vmHwmKb(pid = 'self') {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) : undefined
  } catch {
    return undefined
  }
}

module.exports = {vmHwmKb}
