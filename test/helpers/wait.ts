/** Waits for a condition another process or the event loop makes true, failing loudly if it never does. */
import {setTimeout as delay} from 'node:timers/promises'

export async function waitFor(
  condition: () => boolean,
  what: string,
  {tries = 1500, everyMs = 20} = {},
): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (condition()) return
    await delay(everyMs)
  }
  throw new Error(`gave up waiting for ${what}`)
}
