/**
 * The README's first command, `npm run demo` (scripts/demo.sh): it runs the main job against
 * the bundled emulator end to end, and leaves nothing running behind it.
 */
import {spawn} from 'node:child_process'
import {connect} from 'node:net'
import {join} from 'node:path'

import {expect, it, vi} from 'vitest'

import {ROOT, cleanEnv, tempDir} from '../helpers/bk.js'

vi.setConfig({testTimeout: 240_000})

/** Whether something accepts connections at this URL's port. */
function listening(url: string): Promise<boolean> {
  const {hostname, port} = new URL(url)
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname)
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

it('npm run demo imports, posts, exports and replays, then stops the emulator and listener it started', async () => {
  // The demo keeps its work folder for the user to look at: the test gives it a temporary folder
  // of its own (removed after the test) rather than leaving it in the system's.
  const tmp = tempDir('bk-demo-')
  const child = spawn('bash', [join(ROOT, 'scripts', 'demo.sh')], {
    cwd: ROOT,
    env: cleanEnv({TMPDIR: tmp}),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
  expect(code, stderr).toBe(0)
  expect(stdout).toMatch(/Done: 30 created, 0 failed, 0 unconfirmed/)
  expect(stdout).toMatch(/300 invoices written to /)
  expect(stdout).toMatch(/^total +\d+ +\d+\.\d\d$/m) // the aging table
  // Replayed from the notification log, each with its delivery status.
  expect(stdout).toMatch(/^msg_\S+ +\d{4}-\d\d-\d\d \S+ +(sent|pending|error) +RECEIPT_MATCHED$/m)
  expect(stderr).toMatch(/3 notifications; last: msg_/)
  expect(/Files of this run are in (\S+)/.exec(stdout)?.[1]).toMatch(new RegExp(`^${tmp}/`))

  const emulatorUrl = (JSON.parse(/^\{"base_url".*$/m.exec(stdout)![0]) as {base_url: string}).base_url
  const listenerUrl = /--webhook-url (http:\/\/127\.0\.0\.1:\d+)\//.exec(stdout)![1]!
  expect(await listening(emulatorUrl)).toBe(false)
  expect(await listening(listenerUrl)).toBe(false)
})
