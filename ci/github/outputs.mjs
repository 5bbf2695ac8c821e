// The step outputs of the action's run step, from bk's --json result (a result, a partial
// success with the same counts, or an error document whose details hold the summary):
// name=value lines for GITHUB_OUTPUT.
import {readFileSync} from 'node:fs'

const [file, code] = process.argv.slice(2)
let doc = {}
try {
  doc = JSON.parse(readFileSync(file, 'utf8'))
} catch {
  // No JSON (bk did not start, or printed nothing): the counts stay empty.
}
const result = doc.details?.summary ?? doc.details ?? doc
const count = (v) => (Array.isArray(v) ? v.length : typeof v === 'number' ? v : '')
const outputs = {
  'exit-code': code,
  created: count(result.created),
  skipped: count(result.skipped),
  failed: count(result.failed),
  unconfirmed: count(result.unconfirmed),
  'rejects-file': result.rejects_file ?? '',
  'unconfirmed-file': result.unconfirmed_file ?? '',
  result: file,
}
// Values are one line each: a newline in a file name would start another output.
for (const [name, value] of Object.entries(outputs))
  process.stdout.write(`${name}=${String(value).replace(/[\r\n]/g, ' ')}\n`)
