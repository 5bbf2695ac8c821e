// The emulator as the benchmarks run it: `bk emulator start --port 0 --json` in a process of its
// own (so that neither side shares an event loop), its first stdout line giving the address.
import {spawn} from 'node:child_process'
import {once} from 'node:events'
import {dirname, join} from 'node:path'
import {createInterface} from 'node:readline'
import {fileURLToPath} from 'node:url'

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'run.js')

/**
 * Starts it with these extra flags; resolves to {baseUrl, clientId, clientSecret, businessIds,
 * stop}. `stop` resolves once the process has exited: until then it may still write its state
 * into the folder a bench is about to remove.
 */
export async function startEmulatorProcess(flags = [], env = {}) {
  const child = spawn(process.execPath, [bin, 'emulator', 'start', '--port', '0', '--json', ...flags], {
    env: {...process.env, ...env},
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const exit = once(child, 'exit')
  const exited = exit.then(([code]) => {
    throw new Error(`the emulator exited with ${code}`)
  })
  const [first] = await Promise.race([once(createInterface({input: child.stdout}), 'line'), exited])
  exited.catch(() => {})
  const started = JSON.parse(first)
  return {
    baseUrl: started.base_url,
    clientId: started.client_id,
    clientSecret: started.client_secret,
    businessIds: started.business_ids,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exit
    },
  }
}
